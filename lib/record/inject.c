/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jit mode with a jitdump: the dumps repaired, then perf inject --jit
 * (see run_priv.h).
 */
#include "compat.h"
#include "record/run_priv.h"
#include "alloc.h"
#include "numparse.h"
#include "record/checks.h"
#include "record/jitdump.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * CPython 3.13.0's jitdump breaks when the process forks (see
 * record_repair_jitdump()): mend, before perf inject reads them, the
 * dumps written during the run by our processes that have ended.  A
 * dump of another run is mended correctly too, so no pid list is
 * needed; one still being written is left alone.
 */
static void repair_dumps(struct record_run *r)
{
	size_t j;

	for (j = 0; r->srcdirs[j]; j++) {
		DIR *d = opendir(r->srcdirs[j]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d))) {
			unsigned long v;
			const char *end;
			struct stat st;
			char *path;
			long dropped;

			if (strncmp(de->d_name, "jit-", 4) ||
			    parse_uint_prefix(de->d_name + 4, &v, &end) ||
			    strcmp(end, ".dump") || !v || v > INT32_MAX)
				continue;
			if (kill((pid_t)v, 0) == 0 || errno != ESRCH)
				continue;
			path = xasprintf("%s/%s", r->srcdirs[j], de->d_name);
			if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    st.st_uid == geteuid() &&
			    st.st_mtim.tv_sec + 1 >= (time_t)r->start) {
				dropped = record_repair_jitdump(path,
							       (pid_t)v);
				if (dropped < 0)
					record_say(r, RECORD_MSG_WARNING,
					    "cannot repair '%s': %s", path,
					    strerror((int)-dropped));
			}
			free(path);
		}
		closedir(d);
	}
}

/* perf inject --jit: raw into data, or raw kept as data on failure. */
void record_inject(struct record_run *r)
{
	struct strbuf ierr = STRBUF_INIT;
	int st;

	repair_dumps(r);
	st = record_run_quiet(r->inject_argv.v, &ierr);
	if (st != 0) {
		if (strstr(ierr.buf, strerror(ENOSPC)) || r->nospace)
			record_say(r, RECORD_MSG_WARNING, "no space left for "
				   "perf inject --jit in '%s': Python frames "
				   "will be missing", r->o->output);
		else
			record_say(r, RECORD_MSG_WARNING, "perf inject --jit "
				   "failed: Python frames will be missing");
		record_say_output(r, ierr.buf);
		unlink(r->data);
		if (rename(r->raw, r->data) < 0)
			record_say(r, RECORD_MSG_ERROR,
				   "cannot rename '%s': %s", r->raw,
				   strerror(errno));
	} else {
		unlink(r->raw);
	}
	strbuf_release(&ierr);
}
