/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/session.c: the meta file and the session directories
 * (create, rotate, commit).
 */
#include "compat.h"
#include "alloc.h"
#include "paths.h"
#include "perfdata.h"
#include "record/record.h"
#include "session.h"
#include "strbuf.h"
#include "tap.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_meta(void)
{
	struct session_meta m = SESSION_META_INIT, back = SESSION_META_INIT;
	char err[PPR_ERR_LEN];
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	session_meta_set(&m, "format", "%d", 1);
	session_meta_set(&m, "command", "%s", "python -c 'a\nb' x\\y");
	session_meta_set(&m, "format", "%d", 2);
	TAP_STR(session_meta_get(&m, "format"), "2", "meta: set replaces");
	TAP_OK(session_meta_get(&m, "nope") == NULL, "meta: missing key");
	session_meta_print(&m, fp);
	fclose(fp);
	TAP_STR(buf, "format=2\ncommand=python -c 'a\\nb' x\\\\y\n",
		"meta: newline and backslash escaped, one line each");
	TAP_INT(session_meta_parse(&back, buf, len, err, sizeof(err)), 0,
		"meta: parse");
	TAP_STR(session_meta_get(&back, "command"), "python -c 'a\nb' x\\y",
		"meta: round trip");
	session_meta_release(&back);
	TAP_INT(session_meta_parse(&back, "ok=1\nbad line\n", 14, err,
				   sizeof(err)), -1, "meta: a line without =");
	TAP_STR(err, "line 2 is not a key=value line", "meta: error says where");
	session_meta_release(&back);
	TAP_INT(session_meta_parse(&back, "Bad=1\n", 6, err, sizeof(err)),
		-1, "meta: a key with capitals");
	session_meta_release(&back);
	session_meta_release(&m);
	free(buf);
}

static void test_session_dirs(void)
{
	char dir[] = "/tmp/t-session-XXXXXX";
	char err[PPR_ERR_LEN];
	char *target, *tmp = NULL, *old, *f;
	int exists = -1, fd;

	if (!mkdtemp(dir)) {
		TAP_OK(0, "session: cannot make a directory");
		return;
	}
	target = xasprintf("%s/pyperf.data", dir);
	old = xasprintf("%s/pyperf.data.old", dir);
	TAP_INT(session_check_target(target, &exists, err, sizeof(err)), 0,
		"session: a new target is fine");
	TAP_INT(exists, 0, "session: ...and does not exist");
	TAP_INT(session_create_tmp(target, &tmp, err, sizeof(err)), 0,
		"session: tmp created");
	TAP_OK(tmp && !strncmp(tmp, target, strlen(target)),
	       "session: tmp is next to the target");
	TAP_INT(session_commit(tmp, target, err, sizeof(err)), 0,
		"session: commit");
	free(tmp);
	tmp = NULL;
	f = xasprintf("%s/meta", target);
	fd = open(f, O_WRONLY | O_CREAT, 0600);
	close(fd);
	free(f);
	TAP_INT(session_check_target(target, &exists, err, sizeof(err)), 0,
		"session: an existing session is fine");
	TAP_INT(exists, 1, "session: ...and will be rotated");
	session_create_tmp(target, &tmp, err, sizeof(err));
	TAP_INT(session_commit(tmp, target, err, sizeof(err)), 0,
		"session: second commit");
	f = xasprintf("%s/meta", old);
	TAP_OK(access(f, F_OK) == 0, "session: the first one is now .old");
	free(f);
	free(tmp);
	f = xasprintf("%s/other", dir);
	mkdir(f, 0700);
	free(f);
	f = xasprintf("%s/other/file", dir);
	fd = open(f, O_WRONLY | O_CREAT, 0600);
	close(fd);
	free(f);
	f = xasprintf("%s/other", dir);
	TAP_INT(session_check_target(f, &exists, err, sizeof(err)), -1,
		"session: a directory with other files is refused");
	free(f);
	paths_remove_tree(dir);
	free(target);
	free(old);
}

int main(void)
{
	test_meta();
	test_session_dirs();
	return tap_done();
}
