/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether the walker can attach to a process, and what is missing
 * (access.h).  Facts first (credentials, sysctls, capabilities, the
 * target's ids), then one judgement per need, each with its fix.
 */
#include "compat.h"
#include "walker/access.h"
#include "sysprobe.h"
#include "strbuf.h"

#include <sys/stat.h>
#include <unistd.h>

/* Capability numbers (linux/capability.h). */
#define CAP_SYS_PTRACE_BIT 19
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

const char *access_need_name(enum access_need n)
{
	static const char *const names[ACCESS_NR] = {
		"process", "ptrace", "bpf", "seccomp", "perf", "python",
	};

	return (unsigned)n < ACCESS_NR ? names[n] : "?";
}

const char *access_state_name(enum access_state s)
{
	switch (s) {
	case ACCESS_OK: return "ok";
	case ACCESS_WARN: return "warning";
	case ACCESS_MISSING: return "missing";
	case ACCESS_NOT_CHECKED: break;
	}
	return "not-checked";
}

static void set_item(struct access_report *r, enum access_need n,
		     enum access_state st, const char *fix,
		     const char *fmt, ...) PPR_PRINTF(5, 6);
static void set_item(struct access_report *r, enum access_need n,
		     enum access_state st, const char *fix,
		     const char *fmt, ...)
{
	struct access_item *it = &r->item[n];
	va_list ap;

	it->state = st;
	va_start(ap, fmt);
	vsnprintf(it->what, sizeof(it->what), fmt, ap);
	va_end(ap);
	snprintf(it->fix, sizeof(it->fix), "%s", fix ? fix : "");
}

/* "Key:\tv1\tv2..." of /proc/PID/status: up to n numbers (base). */
static int status_field(const char *status, const char *key, int base,
			long *out, int n)
{
	size_t kl = strlen(key);
	const char *p = status;
	int i;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ':') {
			char *end;

			p += kl + 1;
			for (i = 0; i < n; i++) {
				out[i] = strtol(p, &end, base);
				if (end == p)
					return i;
				p = end;
			}
			return n;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static unsigned long long cap_eff(void)
{
	struct strbuf sb;
	unsigned long long v = 0;
	const char *p;

	strbuf_init(&sb, 2048);
	if (!strbuf_read_file(&sb, "/proc/self/status", 1 << 20) &&
	    (p = strstr(sb.buf, "\nCapEff:")))
		v = strtoull(p + 8, NULL, 16);
	strbuf_release(&sb);
	return v;
}

static long read_sysctl(const char *path)
{
	long v;

	return sysprobe_read_long(path, &v) ? -1 : v;
}

/* Does pid descend from the calling process? */
static int descends_from_me(pid_t pid)
{
	pid_t me = getpid(), p = pid;
	int depth;

	for (depth = 0; depth < 4096 && p > 1; depth++) {
		char path[64];
		struct strbuf sb;
		long ppid = -1;

		if (p == me)
			return 1;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)p);
		strbuf_init(&sb, 2048);
		if (strbuf_read_file(&sb, path, 1 << 20) ||
		    status_field(sb.buf, "PPid", 10, &ppid, 1) != 1)
			ppid = -1;
		strbuf_release(&sb);
		if (ppid <= 0)
			return 0;
		p = (pid_t)ppid;
	}
	return 0;
}

/* The ptrace judgement, by the caller's real credentials. */
static void judge_ptrace(struct access_report *r)
{
	long ruid = r->caller_ruid, rgid = r->caller_rgid;
	int same = 1, i;

	if (r->yama_scope == 3) {
		set_item(r, ACCESS_PTRACE, ACCESS_MISSING,
			 "the setting is fixed until reboot: boot with "
			 "kernel.yama.ptrace_scope below 3",
			 "kernel.yama.ptrace_scope = 3: no process may read "
			 "another's memory, root included");
		return;
	}
	if (ruid == 0) {
		set_item(r, ACCESS_PTRACE, ACCESS_OK, NULL,
			 "root may read process %d's memory", (int)r->pid);
		return;
	}
	for (i = 0; i < 3; i++)
		if (r->target_uid[i] != ruid || r->target_gid[i] != rgid)
			same = 0;
	if (!same) {
		set_item(r, ACCESS_PTRACE, ACCESS_MISSING,
			 "run pyperf-run as that user, or as root (sudo); "
			 "capabilities given to pyperf-run do not extend to "
			 "other users' processes",
			 "process %d belongs to uid %ld (gid %ld), not to the "
			 "caller (uid %ld, gid %ld): the caller could not "
			 "ptrace it", (int)r->pid, r->target_uid[1],
			 r->target_gid[1], ruid, rgid);
		return;
	}
	if (r->dumpable == 0) {
		set_item(r, ACCESS_PTRACE, ACCESS_MISSING,
			 "run pyperf-run as root (sudo)",
			 "process %d is not dumpable (it changed credentials, "
			 "or set PR_SET_DUMPABLE 0): only root may read it",
			 (int)r->pid);
		return;
	}
	if (r->yama_scope == 2) {
		set_item(r, ACCESS_PTRACE, ACCESS_MISSING,
			 "run pyperf-run as root (sudo), or: sudo sysctl "
			 "kernel.yama.ptrace_scope=1",
			 "kernel.yama.ptrace_scope = 2: only root may read "
			 "another process's memory");
		return;
	}
	if (r->yama_scope == 1 && !r->descendant) {
		set_item(r, ACCESS_PTRACE, ACCESS_MISSING,
			 "start the program under pyperf-run (record without "
			 "-p), run pyperf-run as root, or: sudo sysctl "
			 "kernel.yama.ptrace_scope=0",
			 "kernel.yama.ptrace_scope = 1: only a process's "
			 "ancestors may read its memory, and process %d does "
			 "not descend from pyperf-run", (int)r->pid);
		return;
	}
	set_item(r, ACCESS_PTRACE, ACCESS_OK, NULL,
		 "process %d belongs to the caller (uid %ld)%s", (int)r->pid,
		 ruid, r->yama_scope < 0 ? "; Yama is not enabled" :
		 r->yama_scope == 0 ? "; kernel.yama.ptrace_scope = 0" :
		 "; it descends from pyperf-run (ptrace_scope = 1)");
}

static void judge_privileges(struct access_report *r)
{
	int admin = r->cap_sys_admin;
	int bpf = admin || (r->cap_bpf && r->cap_perfmon);
	int perfmon = admin || r->cap_perfmon;

	if (bpf)
		set_item(r, ACCESS_BPF, ACCESS_OK, NULL,
			 "%s: may load BPF programs that sample",
			 r->caller_euid == 0 ? "root" : admin ?
			 "CAP_SYS_ADMIN" : "CAP_BPF and CAP_PERFMON");
	else
		set_item(r, ACCESS_BPF, ACCESS_MISSING, ACCESS_SETCAP_FIX,
			 "loading the walker's BPF programs needs root, or "
			 "CAP_BPF and CAP_PERFMON (this process has %s%s%s); "
			 "kernel.unprivileged_bpf_disabled = %ld",
			 r->cap_bpf ? "CAP_BPF" : "",
			 r->cap_bpf && r->cap_perfmon ? " and " :
			 !r->cap_bpf && !r->cap_perfmon ? "neither" : "",
			 r->cap_perfmon ? "CAP_PERFMON" : "",
			 r->unprivileged_bpf_disabled);
	if (perfmon)
		set_item(r, ACCESS_PERF, ACCESS_OK, NULL,
			 "%s: may open per-CPU sampling events",
			 r->caller_euid == 0 ? "root" : admin ?
			 "CAP_SYS_ADMIN" : "CAP_PERFMON");
	else if (r->perf_event_paranoid >= 0 && r->perf_event_paranoid <= 0)
		set_item(r, ACCESS_PERF, ACCESS_OK, NULL,
			 "kernel.perf_event_paranoid = %ld allows per-CPU "
			 "sampling events", r->perf_event_paranoid);
	else
		set_item(r, ACCESS_PERF, ACCESS_MISSING, ACCESS_SETCAP_FIX,
			 "per-CPU sampling events need CAP_PERFMON "
			 "(kernel.perf_event_paranoid = %ld)",
			 r->perf_event_paranoid);
	if (r->seccomp == 2)
		set_item(r, ACCESS_SECCOMP, ACCESS_WARN,
			 "in a container: allow bpf(2) and perf_event_open(2) "
			 "in its seccomp profile (Docker: --security-opt "
			 "seccomp=<profile>, or seccomp=unconfined)",
			 "a seccomp filter is active (Seccomp: 2, as in a "
			 "container): it may refuse bpf(2) or "
			 "perf_event_open(2)");
	else if (r->seccomp == 1)
		set_item(r, ACCESS_SECCOMP, ACCESS_MISSING,
			 "run pyperf-run outside the strict seccomp sandbox",
			 "strict seccomp mode (Seccomp: 1) allows only read, "
			 "write, exit and sigreturn");
	else
		set_item(r, ACCESS_SECCOMP, ACCESS_OK, NULL, "%s",
			 r->seccomp == 0 ? "no seccomp filter" :
			 "seccomp state unknown");
}

static void judge_python(struct access_report *r)
{
	static const char *const fixes[] = {
		[PYTARGET_NOT_PYTHON] = "attach to the Python process itself "
			"(its pid, not a parent's or a shell's)",
		[PYTARGET_NOT_YET] = "try again once the interpreter has "
			"started",
		[PYTARGET_UNSUPPORTED] = "run the program with CPython 3.8 to "
			"3.15 (not free-threaded), or start it under "
			"'pyperf-run record', whose trampoline covers what it "
			"can",
		[PYTARGET_NO_ACCESS] = "run pyperf-run as the process's user, "
			"or as root (sudo)",
	};
	struct pytarget *t = &r->target;

	r->py_status = pytarget_inspect(r->pid, t);
	if (r->py_status == PYTARGET_OK)
		set_item(r, ACCESS_PYTHON, ACCESS_OK, NULL,
			 "python %s (%s), layout from %s", t->version, t->path,
			 t->from_debug_offsets ? "its _Py_DebugOffsets" :
			 "tables");
	else if (r->py_status == PYTARGET_GONE)
		set_item(r, ACCESS_PROCESS, ACCESS_MISSING, NULL,
			 "process %d has exited", (int)r->pid);
	else
		set_item(r, ACCESS_PYTHON, ACCESS_MISSING,
			 (unsigned)r->py_status < ARRAY_SIZE(fixes) ?
			 fixes[r->py_status] : NULL, "%s", t->why);
}

int access_walker_ready(char *why, size_t whylen, char *fix, size_t fixlen)
{
	unsigned long long caps = cap_eff();
	int admin = !!(caps >> CAP_SYS_ADMIN_BIT & 1);

	snprintf(fix, fixlen, "%s", "");
#ifndef PPR_HAVE_BPF
	snprintf(why, whylen, "this pyperf-run was built without libbpf");
	snprintf(fix, fixlen, "install libbpf-dev, bpftool and clang, then "
		 "./configure && make");
	return 0;
#endif
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, whylen, "the kernel has no BTF "
			 "(/sys/kernel/btf/vmlinux: %s)", strerror(errno));
		snprintf(fix, fixlen, "a kernel built with "
			 "CONFIG_DEBUG_INFO_BTF=y");
		return 0;
	}
	if (!admin && !((caps >> CAP_BPF_BIT & 1) &&
			(caps >> CAP_PERFMON_BIT & 1))) {
		snprintf(why, whylen, "loading BPF programs needs root, or "
			 "CAP_BPF and CAP_PERFMON (kernel.unprivileged_bpf_"
			 "disabled = %ld)",
			 read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled"));
		snprintf(fix, fixlen, "%s", ACCESS_SETCAP_FIX);
		return 0;
	}
	snprintf(why, whylen, "%s", geteuid() == 0 ? "root" : admin ?
		 "CAP_SYS_ADMIN" : "CAP_BPF and CAP_PERFMON");
	return 1;
}

int access_check(pid_t pid, struct access_report *r)
{
	char path[64];
	struct strbuf sb;
	struct stat st;
	unsigned long long caps;
	int i;

	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->dumpable = -1;
	for (i = 0; i < ACCESS_NR; i++)
		set_item(r, (enum access_need)i, ACCESS_NOT_CHECKED, NULL,
			 "not checked");
	for (i = 0; i < 3; i++)
		r->target_uid[i] = r->target_gid[i] = -1;
	r->caller_ruid = (long)getuid();
	r->caller_rgid = (long)getgid();
	r->caller_euid = (long)geteuid();
	r->yama_scope = read_sysctl("/proc/sys/kernel/yama/ptrace_scope");
	r->unprivileged_bpf_disabled =
		read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled");
	r->perf_event_paranoid =
		read_sysctl("/proc/sys/kernel/perf_event_paranoid");
	r->seccomp = -1;
	strbuf_init(&sb, 2048);
	if (!strbuf_read_file(&sb, "/proc/self/status", 1 << 20))
		status_field(sb.buf, "Seccomp", 10, &r->seccomp, 1);
	strbuf_release(&sb);
	caps = cap_eff();
	r->cap_bpf = !!(caps >> CAP_BPF_BIT & 1);
	r->cap_perfmon = !!(caps >> CAP_PERFMON_BIT & 1);
	r->cap_sys_admin = !!(caps >> CAP_SYS_ADMIN_BIT & 1);
	r->cap_sys_ptrace = !!(caps >> CAP_SYS_PTRACE_BIT & 1);
	judge_privileges(r);

	/* the process and its credentials */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	strbuf_init(&sb, 2048);
	if (pid <= 0 || strbuf_read_file(&sb, path, 1 << 20)) {
		strbuf_release(&sb);
		set_item(r, ACCESS_PROCESS, ACCESS_MISSING, NULL,
			 "process %d does not exist (it has exited)",
			 (int)pid);
		goto out;
	}
	status_field(sb.buf, "Uid", 10, r->target_uid, 3);
	status_field(sb.buf, "Gid", 10, r->target_gid, 3);
	strbuf_release(&sb);
	if (r->target_uid[0] < 0 || r->target_gid[0] < 0) {
		set_item(r, ACCESS_PROCESS, ACCESS_MISSING, NULL,
			 "process %d has exited (or is a zombie)", (int)pid);
		goto out;
	}
	set_item(r, ACCESS_PROCESS, ACCESS_OK, NULL,
		 "process %d runs as uid %ld", (int)pid, r->target_uid[1]);
	/* a process that is not dumpable has /proc/PID/mem owned by root */
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if (!stat(path, &st))
		r->dumpable = !(st.st_uid == 0 && r->target_uid[1] != 0);
	r->descendant = descends_from_me(pid);
	judge_ptrace(r);
	if (r->item[ACCESS_PTRACE].state == ACCESS_OK)
		judge_python(r);
	else
		set_item(r, ACCESS_PYTHON, ACCESS_NOT_CHECKED, NULL,
			 "not inspected: the caller may not read process "
			 "%d's memory", (int)pid);
out:
	r->ok = 1;
	for (i = 0; i < ACCESS_NR; i++)
		if (r->item[i].state == ACCESS_MISSING ||
		    r->item[i].state == ACCESS_NOT_CHECKED)
			r->ok = 0;
	if (r->ok) {
		snprintf(r->summary, sizeof(r->summary), "record -p %d would "
			 "walk frames in the kernel: python %s, layout from %s",
			 (int)pid, r->target.version,
			 r->target.from_debug_offsets ? "_Py_DebugOffsets" :
			 "tables");
	} else {
		for (i = 0; i < ACCESS_NR; i++)
			if (r->item[i].state == ACCESS_MISSING)
				break;
		if (i == ACCESS_NR)
			i = ACCESS_PROCESS;
		snprintf(r->summary, sizeof(r->summary), "record -p %d "
			 "cannot attach: %s", (int)pid, r->item[i].what);
	}
	return r->ok;
}
