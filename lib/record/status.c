/* SPDX-License-Identifier: GPL-2.0-only */
/* The internal exec helper's status file (see status.h). */
#include "compat.h"
#include "record/status.h"
#include "fileio.h"
#include "numparse.h"
#include "strbuf.h"

int record_status_write(int fd, enum record_status_kind kind, int value)
{
	char buf[64];
	int n;

	n = snprintf(buf, sizeof(buf), "%s=%d\n",
		     kind == RECORD_STATUS_ERRNO ? "error" :
		     kind == RECORD_STATUS_WAIT ? "status" :
		     kind == RECORD_STATUS_PROGRAM ? "program" : "exec",
		     value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	return write_in_full(fd, buf, (size_t)n);
}

enum record_status_kind record_status_read(const char *path, int *value,
					   pid_t *exec_pid,
					   pid_t *program_pid)
{
	struct strbuf sb = STRBUF_INIT;
	enum record_status_kind kind = RECORD_STATUS_NONE;
	const char *p;

	if (exec_pid)
		*exec_pid = 0;
	if (program_pid)
		*program_pid = 0;
	if (strbuf_read_file(&sb, path, 4096) < 0)
		goto out;
	for (p = sb.buf; *p; ) {
		size_t n = strcspn(p, "\n");
		char line[64];
		long v;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n;
		if (*p)
			p++;
		if (!strncmp(line, "exec=", 5)) {
			if (exec_pid && !parse_long(line + 5, 10, 1, INT32_MAX,
						    &v))
				*exec_pid = (pid_t)v;
		} else if (!strncmp(line, "program=", 8)) {
			if (program_pid && !parse_long(line + 8, 10, 1,
						       INT32_MAX, &v))
				*program_pid = (pid_t)v;
		} else if (!strncmp(line, "status=", 7)) {
			if (!parse_long(line + 7, 10, 0, INT32_MAX, &v)) {
				kind = RECORD_STATUS_WAIT;
				*value = (int)v;
			}
		} else if (!strncmp(line, "error=", 6)) {
			if (!parse_long(line + 6, 10, 0, INT32_MAX, &v)) {
				kind = RECORD_STATUS_ERRNO;
				*value = (int)v;
			}
		}
	}
out:
	strbuf_release(&sb);
	return kind;
}
