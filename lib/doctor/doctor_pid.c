/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * doctor --pid: the JSON form of walker/access.h's report (the text form
 * is cmd/doctor.c's).  One object: the verdict and what attaching would
 * do, the interpreter, the caller's credentials and capabilities, the
 * target's ids, the kernel settings, then one check per need.
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "json.h"

static void json_long_or_null(struct json *j, const char *key, long v)
{
	json_key(j, key);
	if (v < 0)
		json_null(j);
	else
		json_int(j, v);
}

void doctor_pid_write_json(const struct access_report *r, FILE *fp)
{
	const struct pytarget *t = &r->target;
	struct json j;
	char buf[32];
	int i;

	json_init(&j, fp, 1);
	json_begin_object(&j);
	json_key(&j, "pid");
	json_int(&j, r->pid);
	json_key(&j, "ok");
	json_bool(&j, r->ok);
	json_key(&j, "summary");
	json_string(&j, r->summary);

	json_key(&j, "python");
	json_begin_object(&j);
	json_key(&j, "status");
	if (r->item[ACCESS_PYTHON].state == ACCESS_NOT_CHECKED &&
	    r->py_status == PYTARGET_OK)
		json_string(&j, "not-checked");
	else
		json_string(&j, pytarget_status_name(r->py_status));
	json_key(&j, "version");
	json_string(&j, t->version[0] ? t->version : NULL);
	json_key(&j, "path");
	json_string(&j, t->path[0] ? t->path : NULL);
	json_key(&j, "free_threaded");
	json_bool(&j, t->free_threaded);
	json_key(&j, "layout");
	json_string(&j, r->py_status != PYTARGET_OK ? NULL :
		    t->from_debug_offsets ? "debug-offsets" : "tables");
	json_key(&j, "runtime");
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)t->runtime);
	json_string(&j, t->runtime ? buf : NULL);
	json_end_object(&j);

	json_key(&j, "caller");
	json_begin_object(&j);
	json_long_or_null(&j, "uid", r->caller_ruid);
	json_long_or_null(&j, "gid", r->caller_rgid);
	json_long_or_null(&j, "euid", r->caller_euid);
	json_key(&j, "cap_bpf");
	json_bool(&j, r->cap_bpf);
	json_key(&j, "cap_perfmon");
	json_bool(&j, r->cap_perfmon);
	json_key(&j, "cap_sys_admin");
	json_bool(&j, r->cap_sys_admin);
	json_key(&j, "cap_sys_ptrace");
	json_bool(&j, r->cap_sys_ptrace);
	json_end_object(&j);

	json_key(&j, "target");
	json_begin_object(&j);
	json_long_or_null(&j, "uid", r->target_uid[1]);
	json_long_or_null(&j, "gid", r->target_gid[1]);
	json_key(&j, "descendant");
	json_bool(&j, r->descendant);
	json_end_object(&j);

	json_key(&j, "kernel");
	json_begin_object(&j);
	json_long_or_null(&j, "yama_ptrace_scope", r->yama_scope);
	json_long_or_null(&j, "unprivileged_bpf_disabled",
			  r->unprivileged_bpf_disabled);
	json_key(&j, "perf_event_paranoid");
	json_int(&j, r->perf_event_paranoid);
	json_long_or_null(&j, "seccomp", r->seccomp);
	json_end_object(&j);

	json_key(&j, "checks");
	json_begin_array(&j);
	for (i = 0; i < ACCESS_NR; i++) {
		const struct access_item *it = &r->item[i];

		json_begin_object(&j);
		json_key(&j, "name");
		json_string(&j, access_need_name((enum access_need)i));
		json_key(&j, "state");
		json_string(&j, access_state_name(it->state));
		json_key(&j, "text");
		json_string(&j, it->what);
		json_key(&j, "fix");
		json_string(&j, it->fix[0] ? it->fix : NULL);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
