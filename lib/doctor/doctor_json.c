/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `pyperf-run doctor --json`: the whole of struct doctor as one JSON
 * object (see doctor.h and pyperf-run-doctor(1)).
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "json.h"

static void json_kv_str(struct json *j, const char *k, const char *v)
{
	json_key(j, k);
	json_string(j, v);
}

static void json_kv_bool(struct json *j, const char *k, int v)
{
	json_key(j, k);
	json_bool(j, v);
}

static void json_value(struct json *j, const char *k,
		       const struct sysprobe_value *v)
{
	json_key(j, k);
	if (v->have)
		json_int(j, v->value);
	else
		json_null(j);
}

static void json_open(struct json *j, const char *k,
		      const struct sysprobe_open *o)
{
	json_key(j, k);
	json_begin_object(j);
	json_kv_bool(j, "ok", o->ok);
	json_kv_bool(j, "user_only", o->user_only);
	json_kv_str(j, "error", o->ok ? NULL : strerror(o->error));
	json_end_object(j);
}

static void json_levels(struct json *j, const struct doctor *d,
			const char *key, enum doctor_level l)
{
	size_t i;

	json_key(j, key);
	json_begin_array(j);
	for (i = 0; i < d->nr_checks; i++)
		if (d->checks[i].level == l)
			json_string(j, d->checks[i].text);
	json_end_array(j);
}

static void json_strvec(struct json *j, const char *k,
			const struct strvec *sv)
{
	size_t i;

	json_key(j, k);
	json_begin_array(j);
	for (i = 0; i < sv->nr; i++)
		json_string(j, sv->v[i]);
	json_end_array(j);
}

static void json_kv_opt(struct json *j, const char *k, const char *v)
{
	json_kv_str(j, k, v[0] ? v : NULL);
}

/* The package of an object's debug symbols (debugpkg.h), or null. */
static void json_debug_package(struct json *j, const struct debugpkg *k)
{
	json_key(j, "debug_package");
	if (!k) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_str(j, "verdict", debugpkg_verdict_name(k->verdict));
	json_kv_opt(j, "debug_file", k->debug_file);
	json_kv_opt(j, "owner", k->owner);
	json_kv_opt(j, "owner_version", k->owner_version);
	json_kv_opt(j, "candidates", k->candidates);
	json_kv_opt(j, "package", k->package);
	json_kv_opt(j, "version", k->version);
	json_kv_opt(j, "versions", k->versions);
	json_kv_opt(j, "upgrade_version", k->upgrade_version);
	json_kv_opt(j, "install", k->install);
	json_kv_opt(j, "apt_error", k->apt_error);
	json_kv_opt(j, "why", k->why);
	json_kv_bool(j, "unlisted", k->unlisted);
	json_kv_bool(j, "cached", k->cached);
	json_end_object(j);
}

static void json_python(struct json *j, const struct doctor *d)
{
	const struct pyinfo *py = &d->py;
	size_t i;

	json_key(j, "python");
	json_begin_object(j);
	json_kv_str(j, "path", d->python_arg);
	/* the root a `-- chroot ROOT python3.X` command runs it in */
	json_kv_str(j, "root", d->py_root);
	if (!d->python_ok) {
		json_kv_str(j, "executable", NULL);
		json_kv_str(j, "version", NULL);
		json_kv_bool(j, "supported", 0);
		json_kv_str(j, "error", d->python_error);
		json_end_object(j);
		return;
	}
	json_kv_str(j, "executable", py->executable);
	json_kv_str(j, "version", py->version);
	json_kv_str(j, "implementation", py->implementation);
	json_kv_bool(j, "supported", d->python_supported);
	json_kv_bool(j, "native_perf", py->native_perf);
	json_kv_bool(j, "native_perf_jit", py->native_perf_jit);
	json_kv_bool(j, "frame_pointers", py->cflags.fp && py->cflags.leaf_fp);
	json_kv_bool(j, "fno_omit_frame_pointer", py->cflags.fp);
	json_kv_bool(j, "mno_omit_leaf_frame_pointer", py->cflags.leaf_fp);
	json_kv_str(j, "optimisation", py->cflags.opt);
	json_kv_bool(j, "debug", py->pydebug);
	json_kv_bool(j, "has_headers", py->has_headers);
	json_key(j, "embedded");
	json_begin_object(j);
	json_kv_bool(j, "supported", d->embedded_supported);
	json_kv_bool(j, "available", d->embedded_available);
	json_kv_str(j, "why_not", d->embedded_available ? NULL
							: d->embedded_why);
	json_end_object(j);
	json_key(j, "symbols");
	json_begin_array(j);
	for (i = 0; i < d->nr_syms; i++) {
		const struct doctor_symbols *y = &d->syms[i];

		json_begin_object(j);
		json_kv_str(j, "path", y->path);
		json_kv_bool(j, "full", y->full || y->debug_file);
		json_kv_bool(j, "symtab", y->full);
		json_kv_str(j, "debug_file", y->debug_file);
		json_kv_str(j, "build_id", y->build_id[0] ? y->build_id
							  : NULL);
		json_debug_package(j, y->pkg);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

static void json_probe(struct json *j, const struct doctor_probe *p)
{
	size_t i;

	json_key(j, "probe");
	if (!p->ran && !p->unavailable) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_bool(j, "ran", p->ran);
	json_kv_bool(j, "ok", p->recorded && p->reached_module);
	json_kv_str(j, "mode", p->ran ? mode_name_str(p->mode) : NULL);
	json_kv_bool(j, "recorded", p->recorded);
	json_kv_bool(j, "names_found", p->names_found);
	json_kv_bool(j, "reached_module", p->reached_module);
	json_key(j, "samples");
	json_uint(j, p->samples);
	json_key(j, "python_samples");
	json_uint(j, p->python_samples);
	json_key(j, "depth");
	json_int(j, DOCTOR_PROBE_DEPTH);
	json_kv_bool(j, "shallow_complete_first", p->shallow_first);
	json_key(j, "shallow_needed_stack_size");
	if (p->shallow_need)
		json_uint(j, p->shallow_need);
	else
		json_null(j);
	json_kv_bool(j, "deep_complete", p->deep_complete);
	json_kv_str(j, "limit", p->recorded && p->names_found
					? probe_limit_name(p->limit) : NULL);
	json_kv_str(j, "limit_text", p->limit_why.text[0] ? p->limit_why.text
							  : NULL);
	json_kv_str(j, "limit_fix", p->limit_why.hint[0] ? p->limit_why.hint
							 : NULL);
	json_key(j, "needed_stack_size");
	if (p->needed_stack)
		json_uint(j, p->needed_stack);
	else
		json_null(j);
	json_key(j, "shallow_stack_bytes");
	json_uint(j, p->shallow_bytes);
	json_key(j, "deep_stack_bytes");
	json_uint(j, p->deep_bytes);
	json_kv_str(j, "unwinder", p->unwinder[0] ? p->unwinder : NULL);
	json_key(j, "passes");
	json_begin_array(j);
	for (i = 0; i < p->nr_passes; i++) {
		const struct probe_pass *a = &p->pass[i];

		json_begin_object(j);
		json_key(j, "stack_size");
		if (a->stack_size)
			json_uint(j, a->stack_size);
		else
			json_null(j);
		json_key(j, "samples");
		json_uint(j, a->samples);
		json_key(j, "shallow");
		json_uint(j, a->shallow);
		json_key(j, "shallow_complete");
		json_uint(j, a->shallow_complete);
		json_key(j, "deep");
		json_uint(j, a->deep);
		json_key(j, "deep_complete");
		json_uint(j, a->deep_complete);
		json_key(j, "deep_python_frames");
		json_uint(j, a->deep_py_max);
		json_key(j, "deep_frames");
		json_uint(j, a->deep_frames_max);
		json_kv_str(j, "deep_stop", a->deep_stop[0] ? a->deep_stop
							    : NULL);
		json_end_object(j);
	}
	json_end_array(j);
	json_kv_str(j, "detail", p->detail[0] ? p->detail : NULL);
	json_key(j, "pid");
	if (p->pid)
		json_int(j, p->pid);
	else
		json_null(j);
	json_kv_str(j, "workdir", p->workdir[0] ? p->workdir : NULL);
	json_end_object(j);
}

void doctor_write_json(const struct doctor *d, FILE *fp)
{
	const struct sysprobe_kernel *k = &d->kernel;
	struct json j;
	size_t i;

	json_init(&j, fp, 1);
	json_begin_object(&j);
	json_kv_bool(&j, "ok", doctor_ok(d));
	json_levels(&j, d, "problems", DOCTOR_PROBLEM);
	json_levels(&j, d, "warnings", DOCTOR_WARNING);

	json_python(&j, d);

	json_key(&j, "perf");
	json_begin_object(&j);
	json_kv_str(&j, "path", d->perf_path);
	json_kv_str(&j, "version", d->perf_version_ok ? d->perf_version_str
						      : NULL);
	json_kv_str(&j, "version_text", d->perf_version_text);
	json_kv_str(&j, "jit_fix", tristate_name(d->jit_fix));
	json_kv_str(&j, "jit_fix_why",
		    d->perf_version_ok || d->jit_fix_from_probe
			    ? d->jit_fix_why : NULL);
	json_kv_str(&j, "jit_fix_source", d->jit_fix_from_probe ? "probe"
					  : d->jit_fix_from_cache ? "cache"
					  : d->perf_version_ok ? "version"
							       : NULL);
	json_kv_str(&j, "dwarf_unwind", tristate_name(d->dwarf_unwind));
	json_kv_str(&j, "unwinder", d->unwinder[0] ? d->unwinder : NULL);
	json_kv_str(&j, "unwinder_source", d->unwinder[0]
						   ? d->unwinder_source : NULL);
	json_kv_str(&j, "error", d->perf_error[0] ? d->perf_error : NULL);
	json_end_object(&j);

	json_key(&j, "kernel");
	json_begin_object(&j);
	json_value(&j, "perf_event_paranoid", &k->paranoid);
	json_value(&j, "kptr_restrict", &k->kptr_restrict);
	json_value(&j, "perf_event_max_sample_rate", &k->max_sample_rate);
	json_value(&j, "perf_event_max_stack", &k->max_stack);
	json_kv_bool(&j, "privileged", k->privileged);
	json_open(&j, "callchain", &k->callchain);
	if (k->regs_supported)
		json_open(&j, "dwarf", &k->dwarf);
	json_end_object(&j);

	/* what --mode auto records with: the walker, or perf_mode */
	json_key(&j, "mode");
	json_begin_object(&j);
	json_kv_str(&j, "name", d->walker ? "bpf" :
		    d->python_ok ? mode_name_str(d->mode.name) : "none");
	json_kv_str(&j, "reason", d->walker ? d->walker_why :
		    d->mode.reason[0] ? d->mode.reason : NULL);
	json_kv_str(&j, "walker", d->python_ok ? d->walker_why : NULL);
	json_end_object(&j);

	/* perf record's route: --mode jit/perf, or without privileges */
	json_key(&j, "perf_mode");
	json_begin_object(&j);
	json_kv_str(&j, "name", mode_name_str(d->mode.name));
	json_kv_str(&j, "trampoline", mode_trampoline_str(d->mode.trampoline));
	json_kv_str(&j, "call_graph", d->mode.call_graph[0]
					      ? d->mode.call_graph : NULL);
	json_key(&j, "stack_size");
	if (d->mode.name == MODE_JIT)
		json_uint(&j, d->mode.stack_size);
	else
		json_null(&j);
	json_kv_str(&j, "reason", d->mode.reason[0] ? d->mode.reason : NULL);
	json_kv_str(&j, "problem", d->mode.problem[0] ? d->mode.problem
						      : NULL);
	json_kv_str(&j, "warning", d->mode.warning[0] ? d->mode.warning
						      : NULL);
	json_end_object(&j);

	json_key(&j, "commands");
	json_begin_object(&j);
	json_strvec(&j, "environment", &d->record_env);
	json_kv_str(&j, "environment_note", d->env_note);
	json_kv_str(&j, "record", d->record_cmd);
	json_strvec(&j, "record_argv", &d->record_argv);
	json_kv_str(&j, "inject", d->inject_cmd);
	json_strvec(&j, "inject_argv", &d->inject_argv);
	json_end_object(&j);

	json_key(&j, "housekeeping");
	json_begin_object(&j);
	json_kv_str(&j, "tmpdir", d->tmpdir);
	json_key(&j, "tmp_free_bytes");
	if (d->tmp_free >= 0)
		json_int(&j, d->tmp_free);
	else
		json_null(&j);
	json_key(&j, "stale_files");
	json_uint(&j, d->stale.files);
	json_key(&j, "stale_bytes");
	json_uint(&j, d->stale.bytes);
	json_key(&j, "stale_pids");
	json_begin_array(&j);
	for (i = 0; i < d->stale.nr_pids; i++)
		json_int(&j, d->stale.pids[i]);
	json_end_array(&j);
	json_key(&j, "live_files");
	json_uint(&j, d->stale.live);
	json_kv_str(&j, "buildid_dir", d->buildid_dir);
	json_key(&j, "buildid_bytes");
	if (d->buildid_exists)
		json_uint(&j, d->buildid_bytes);
	else
		json_null(&j);
	json_end_object(&j);

	json_key(&j, "reader");
	json_begin_object(&j);
	json_kv_str(&j, "libdw", d->reader.libdw_version[0]
					 ? d->reader.libdw_version : NULL);
	json_kv_bool(&j, "libperf", d->reader.libperf);
	json_key(&j, "perf_libtraceevent");
	if (d->reader.perf_libtraceevent < 0)
		json_null(&j);
	else
		json_bool(&j, d->reader.perf_libtraceevent > 0);
	json_key(&j, "kallsyms");
	json_begin_object(&j);
	json_kv_bool(&j, "readable", d->reader.kallsyms >= 0);
	json_key(&j, "addresses");
	if (d->reader.kallsyms < 0)
		json_null(&j);
	else
		json_bool(&j, d->reader.kallsyms);
	json_kv_str(&j, "error", d->reader.kallsyms < 0
					 ? strerror(-d->reader.kallsyms) : NULL);
	json_end_object(&j);
	json_end_object(&j);

	json_probe(&j, &d->probe);

	json_key(&j, "checks");
	json_begin_array(&j);
	for (i = 0; i < d->nr_checks; i++) {
		const struct doctor_check *c = &d->checks[i];

		json_begin_object(&j);
		json_kv_str(&j, "id", c->id);
		json_kv_str(&j, "level", doctor_level_name(c->level));
		json_kv_str(&j, "text", c->text);
		json_kv_str(&j, "fix", c->fix);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
