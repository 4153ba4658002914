/* SPDX-License-Identifier: MIT */
/*
 * _pyperf_trampoline.c - the embedded perf trampoline for CPython
 * 3.8-3.13.  See trampoline/README.md.
 *
 * A PEP 523 frame-evaluation hook gives every code object, the first
 * time it runs, its own copy of a tiny machine-code template (an arena
 * mapped RW, filled, then made RX, with 64 KiB of reserved address
 * space below it; never unmapped).  The trampoline calls the evaluator
 * that was installed before us (the default one, or a debugger's hook:
 * we chain), so every Python frame has a unique return
 * address on the native stack, and a backend tells perf what it is:
 *   perf      START SIZE py::qualname:filename lines in perf-<pid>.map
 *   perf_jit  a jitdump jit-<pid>.dump with unwind info per trampoline
 * Everything runs with the GIL held (3.8-3.13 have one; free-threaded
 * builds are refused at compile time).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>

#if PY_VERSION_HEX < 0x03080000
#error "the embedded trampoline needs CPython 3.8 or later"
#endif
/*
 * 3.14 turned _PyInterpreterFrame.f_executable into a tagged stack
 * reference (_PyStackRef): reading it as a PyObject pointer would be
 * wrong, so 3.14+ is refused until that layout is handled (README).
 */
#if PY_VERSION_HEX >= 0x030E0000
#error "the embedded trampoline supports CPython 3.8-3.13 (3.14 changed the frame layout)"
#endif
#ifdef Py_DEBUG
#error "debug builds of CPython (Py_DEBUG) are not supported"
#endif
#ifdef Py_GIL_DISABLED
#error "free-threaded builds of CPython are not supported"
#endif

#if PY_VERSION_HEX < 0x03090000
/* 3.8 has no setter: interp->eval_frame lives in the internal struct. */
#define Py_BUILD_CORE
#include "internal/pycore_pystate.h"
#undef Py_BUILD_CORE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tramp_arch.h"
#include "tramp_unwind.h"

#if PY_VERSION_HEX >= 0x030C0000
#define code_get_extra PyUnstable_Code_GetExtra
#define code_set_extra PyUnstable_Code_SetExtra
#define request_extra_index PyUnstable_Eval_RequestCodeExtraIndex
#else
#define code_get_extra _PyCode_GetExtra
#define code_set_extra _PyCode_SetExtra
#define request_extra_index _PyEval_RequestCodeExtraIndex
#endif

/*
 * Frame -> code object.  3.11-3.13 only have the internal
 * _PyInterpreterFrame; where its code field is (3.11 f_code at 32,
 * 3.12 f_code at 0, 3.13 f_executable at 0) is pinned per minor version
 * and checked against the internal header when that is installed (it is
 * in pyenv and Debian builds).  3.13's f_executable is "a code object or
 * None": anything that is not code runs without a trampoline.
 */
#if PY_VERSION_HEX >= 0x030B0000
#if PY_VERSION_HEX >= 0x030D0000
#define FRAME_CODE_FIELD f_executable
#define FRAME_CODE_OFFSET 0
#elif PY_VERSION_HEX >= 0x030C0000
#define FRAME_CODE_FIELD f_code
#define FRAME_CODE_OFFSET 0
#else
#define FRAME_CODE_FIELD f_code
#define FRAME_CODE_OFFSET 32
#endif
#if defined(__has_include) && !defined(TRAMP_NO_LAYOUT_CHECK)
#if __has_include("internal/pycore_frame.h")
#define Py_BUILD_CORE
#define Py_BUILD_CORE_MODULE
#include "internal/pycore_frame.h"
#undef Py_BUILD_CORE
#undef Py_BUILD_CORE_MODULE
_Static_assert(offsetof(struct _PyInterpreterFrame, FRAME_CODE_FIELD) ==
	       FRAME_CODE_OFFSET, "_PyInterpreterFrame's code field moved");
#endif
#endif
#if PY_VERSION_HEX >= 0x030D0000
/*
 * The bits of f_executable that are not the pointer: none in 3.13; 3.14
 * made it a _PyStackRef whose low bits tag the reference (its
 * PyStackRef_AsPyObjectBorrow() masks them), kept here for when 3.14 is
 * enabled above.
 */
#if PY_VERSION_HEX >= 0x030E0000
#define FRAME_CODE_TAG_BITS ((uintptr_t)3)
#else
#define FRAME_CODE_TAG_BITS ((uintptr_t)0)
#endif
static inline PyCodeObject *frame_code(const void *f)
{
	uintptr_t bits = *(const uintptr_t *)((const char *)f +
					      FRAME_CODE_OFFSET);
	PyObject *x = (PyObject *)(bits & ~FRAME_CODE_TAG_BITS);

	return x && PyCode_Check(x) ? (PyCodeObject *)x : NULL;
}
#define FRAME_CODE(f) frame_code(f)
#else
#define FRAME_CODE(f) \
	(*(PyCodeObject **)((char *)(f) + FRAME_CODE_OFFSET))
#endif
#define HOOK_PARAMS PyThreadState *ts, struct _PyInterpreterFrame *f, int thr
#define HOOK_TSTATE ((const void *)ts)
#define CALL_PREV() prev_eval(ts, f, thr)
typedef PyObject *(*tramp_fn)(PyThreadState *, struct _PyInterpreterFrame *,
			      int, _PyFrameEvalFunction);
#define CALL_TRAMP(t) ((tramp_fn)(t))(ts, f, thr, prev_eval)
#elif PY_VERSION_HEX >= 0x03090000
#define FRAME_CODE(f) ((f)->f_code)
#define HOOK_PARAMS PyThreadState *ts, PyFrameObject *f, int thr
#define HOOK_TSTATE ((const void *)ts)
#define CALL_PREV() prev_eval(ts, f, thr)
typedef PyObject *(*tramp_fn)(PyThreadState *, PyFrameObject *, int,
			      _PyFrameEvalFunction);
#define CALL_TRAMP(t) ((tramp_fn)(t))(ts, f, thr, prev_eval)
#else
#define FRAME_CODE(f) ((f)->f_code)
#define HOOK_PARAMS PyFrameObject *f, int thr
/* 3.8 passes no thread state; the internal header has the fast getter. */
#define HOOK_TSTATE ((const void *)_PyThreadState_GET())
#define CALL_PREV() prev_eval(f, thr)
/* 3rd argument unused: the evaluator must be the 4th (rcx / x3). */
typedef PyObject *(*tramp_fn)(PyFrameObject *, int, void *,
			      _PyFrameEvalFunction);
#define CALL_TRAMP(t) ((tramp_fn)(t))(f, thr, NULL, prev_eval)
#endif

#define ARENA_SIZE (64 * 1024)
/*
 * Address space kept PROT_NONE right below every arena.  perf's
 * libunwind unwinder answers every read in [SP, SP + stack dump size)
 * from the sample's copy of the stack, and the dump is at most 65528
 * bytes; glibc maps thread stacks top-down in the mmap area, so a
 * thread created after an arena gets its stack right below it and the
 * arena (and perf's view of the unwind tables behind its trampolines)
 * would fall inside that window: the unwinding stops at the first
 * Python frame.  With the gap no mapping can start within 64 KiB below
 * an arena, so no stack pointer's window reaches it.  It costs address
 * space only.  A multiple of every page size (4, 16 and 64 KiB).
 */
#define ARENA_GAP (64 * 1024)
/*
 * Slot spacing: perf inject maps ALIGN_8(code) + mapped unwind size per
 * jitted function (0x60 on x86-64); overlapping maps confuse it.
 */
#define SLOT_SIZE 128

enum backend { BK_PERF, BK_JIT, BK_NR };

static const char *const backend_names[BK_NR] = { "perf", "perf_jit" };

struct code_info {
	void *tramp;
	char *qualname;		/* 3.8-3.10: from the enclosing code */
	uint32_t func_id;	/* context mode: its FUNC record, 0 = none */
};

struct tramp_entry {
	uintptr_t addr;
	char *name;
};

struct backend_state {
	int fd;
	size_t written;		/* registry entries already in the file */
	size_t arenas_written;	/* context arenas already in the file */
	uint64_t code_index;	/* jitdump */
	int failed;		/* a write failed: stop trying */
};

static const struct tramp_arch *arch = TRAMP_ARCH;
static Py_ssize_t extra_index = -1;
static _PyFrameEvalFunction prev_eval;
static int hook_in_chain;	/* our hook is (still) in the chain */
static int tramp_active;
static enum backend active_backend = BK_PERF;
static struct backend_state bk[BK_NR] = { { -1, 0, 0, 0, 0 },
					   { -1, 0, 0, 0, 0 } };
static struct tramp_entry *reg;
static size_t reg_nr, reg_alloc;
static unsigned char *arena_next;
static size_t arena_left;
static uint64_t salt;
static pid_t my_pid;
static int child_dirty;		/* set by the atfork child handler */

/*
 * Context mode (PYPERF_TRAMPOLINE_CONTEXTS=1, which pyperf-run record
 * sets; chosen at the first activation): every distinct Python call
 * path gets its own trampoline.  A context is an interned node (parent
 * context, code); the innermost context trampoline found in a sample
 * names every Python caller, however deep the stack, through the
 * context table the process writes (ctx-<pid>.tab, format in
 * trampoline/README.md).  Trampolines are 16-byte slots of arenas that
 * perf learns about per arena (one jitdump load or map line each), not
 * per trampoline.
 */
#define CTX_NAME "[pyperf contexts]"
#define CTX_ID_UNKNOWN 0xffffffffu
#define CTX_DEFAULT_MAX 1000000u
/* A rebuild walks at most this many frames (deeper: parent unknown). */
#define CTX_WALK_MAX 100000

struct ctx {
	struct ctx *parent;	/* ctx_root or ctx_unknown at the top */
	void *tramp;		/* NULL: no slot (out of memory) */
	uint32_t id, func_id;
	/*
	 * The last child entered from here: its code object, valid while
	 * no code object with our record was freed since (code_gen), so
	 * that a new code object at a freed one's address never matches.
	 */
	uint32_t cache_gen;
	const PyCodeObject *cache_code;
	struct ctx *cache_child;
};

static int ctx_mode;
static uint32_t ctx_max = CTX_DEFAULT_MAX;
static struct ctx ctx_root = { NULL, NULL, 0, 0, 0, NULL, NULL };
static struct ctx ctx_unknown = { NULL, NULL, CTX_ID_UNKNOWN, 0, 0, NULL,
				  NULL };
static uint32_t code_gen = 1;		/* bumped when a code record is freed */
static struct ctx **ctx_by_id;		/* [id - 1] */
static uint32_t ctx_nr, ctx_alloc;
static struct ctx **ctx_hash;		/* open addressing, (parent, func) */
static size_t ctx_hash_size;
static struct ctx *ctx_slab;		/* nodes are carved from slabs */
static size_t ctx_slab_left;
static char **func_names;		/* [func_id - 1] */
static uint32_t func_nr, func_alloc;
static uintptr_t *ctx_arenas;
static size_t ctx_arena_nr, ctx_arena_alloc;
static unsigned char *ctx_next;
static size_t ctx_left;
static uint64_t ctx_rebuilds;
static size_t ctx_name_bytes;

/*
 * Per thread state: the innermost hooked frame and its context.  A
 * frame whose caller is not that frame (frames entered before
 * activation, a greenlet switch, a re-activation) rebuilds its parent
 * context from the frame chain.  Keyed by the thread state, found
 * through a one-entry cache (the GIL lets one thread run Python at a
 * time, so it nearly always hits; thread-local storage measured slower
 * in the hook).  Entries are never freed: a thread state freed and
 * reused by a new thread finds its entry back at the root (every frame
 * returned), and its first frame's check rebuilds anything else.
 */
struct ctx_thread {
	const void *ts;
	struct ctx *ctx;
	const void *frame;
};
/* Matches no frame: an entry holding it rebuilds at its next frame. */
#define THR_STALE ((const void *)1)
static struct ctx_thread **thr_tab;
static size_t thr_size, thr_nr;
static const void *thr_last_ts;
static struct ctx_thread *thr_last;
static struct ctx_thread thr_fallback;	/* out of memory: shared */

/* The context table file, written through a shared mapping. */
static struct {
	int fd;
	unsigned char *map;
	size_t size, used;
	int failed;
} ctxf = { -1, NULL, 0, 0, 0 };

#define CTXF_MAGIC "PPRCTX01"
#define CTXF_GROW (1024 * 1024)
enum { CTXF_END = 0, CTXF_FUNC = 1, CTXF_CTX = 2, CTXF_ARENA = 3,
       CTXF_START = 4 };
/* CLOCK_MONOTONIC when context mode first activated (0: not yet). */
static uint64_t ctx_start_ns;

/* ---------------------------------------------------------------- arenas */

static unsigned char *arena_new(size_t slot_size)
{
	unsigned char *base, *p, *slot;
	size_t fill;

	/* Reserve gap + arena, then open up the arena part only. */
	base = mmap(NULL, ARENA_GAP + ARENA_SIZE, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	p = base + ARENA_GAP;
	if (mprotect(p, ARENA_SIZE, PROT_READ | PROT_WRITE) < 0)
		goto fail;
	/* x86: int3 between trampolines; aarch64: zero is "udf #0". */
	fill = arch->elf_machine == 62 ? 0xcc : 0x00;
	memset(p, (int)fill, ARENA_SIZE);
	for (slot = p; slot + slot_size <= p + ARENA_SIZE; slot += slot_size)
		memcpy(slot, arch->code, arch->code_size);
	if (mprotect(p, ARENA_SIZE, PROT_READ | PROT_EXEC) < 0)
		goto fail;
	__builtin___clear_cache((char *)p, (char *)p + ARENA_SIZE);
	return p;
fail:
	munmap(base, ARENA_GAP + ARENA_SIZE);
	return NULL;
}

/* Arenas are never unmapped: frames may be returning through them. */
static void *slot_alloc(void)
{
	void *t;

	if (arena_left < SLOT_SIZE) {
		unsigned char *p = arena_new(SLOT_SIZE);

		if (!p)
			return NULL;
		arena_next = p;
		arena_left = ARENA_SIZE;
	}
	t = arena_next;
	arena_next += SLOT_SIZE;
	arena_left -= SLOT_SIZE;
	return t;
}

/* ----------------------------------------------------------------- files */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Create DIR/perf-PID.map or DIR/jit-PID.dump for us alone: never follow
 * a symlink, never open a FIFO or device, never write through a hard link
 * or into someone else's file; a stale file of ours (an earlier process
 * with the same pid) is truncated so it cannot leak wrong names.
 * Returns the fd, or -1 with a Python exception set.
 */
static int open_private(const char *path)
{
	struct stat st;
	int fd, flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC;

	fd = open(path, flags | O_CREAT | O_EXCL, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EEXIST)
		goto errno_fail;
	fd = open(path, flags | O_NONBLOCK);
	if (fd < 0)
		goto errno_fail;
	if (fstat(fd, &st) < 0) {
		close(fd);
		goto errno_fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		close(fd);
		PyErr_Format(PyExc_PermissionError,
			     "refusing to write '%s': not a regular file of "
			     "ours with a single link", path);
		return -1;
	}
	if (ftruncate(fd, 0) < 0 || fchmod(fd, 0600) < 0 ||
	    fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		goto errno_fail;
	}
	return fd;
errno_fail:
	PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
	return -1;
}

static int file_path(char *buf, size_t len, enum backend b)
{
	const char *dir = getenv("PYPERF_TRAMPOLINE_DIR");
	int n;

	if (!dir || !*dir)
		dir = "/tmp";
	n = snprintf(buf, len, "%s/%s-%ld.%s", dir,
		     b == BK_PERF ? "perf" : "jit", (long)getpid(),
		     b == BK_PERF ? "map" : "dump");
	if (n < 0 || (size_t)n >= len) {
		PyErr_SetString(PyExc_ValueError,
				"PYPERF_TRAMPOLINE_DIR is too long");
		return -1;
	}
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define JIT_MAGIC 0x4A695444u
#define JIT_CODE_LOAD 0
#define JIT_CODE_UNWINDING_INFO 4

static int jit_write_header(int fd)
{
	struct rec r = { NULL, 0, 0 };
	int rc = 0;

	rc |= rec_u32(&r, JIT_MAGIC);
	rc |= rec_u32(&r, 1);			/* version */
	rc |= rec_u32(&r, 40);			/* header size */
	rc |= rec_u32(&r, arch->elf_machine);
	rc |= rec_u32(&r, 0);			/* pad */
	rc |= rec_u32(&r, (uint32_t)getpid());
	rc |= rec_u64(&r, mono_ns());
	rc |= rec_u64(&r, 0);			/* flags */
	if (!rc)
		rc = write_all(fd, r.buf, r.len);
	free(r.buf);
	return rc;
}

/*
 * UNWINDING_INFO + CODE_LOAD, in one write(2): code_size bytes of code
 * at addr named name, with the call frame instructions fde (NULL: one
 * trampoline's).
 */
static int jit_write_load(struct backend_state *s, uintptr_t addr,
			  const void *code, size_t code_size, const char *name,
			  const struct rec *fde)
{
	struct rec r = { NULL, 0, 0 };
	size_t start, eh_size, hdr_size, unw_size, code_off, i;
	uint64_t ts = mono_ns(), idx = ++s->code_index, mix;
	int rc = 0;

	/* UNWINDING_INFO */
	start = r.len;
	rc |= rec_u32(&r, JIT_CODE_UNWINDING_INFO);
	rc |= rec_u32(&r, 0);			/* total size, patched */
	rc |= rec_u64(&r, ts);
	rc |= rec_u64(&r, 0);			/* unwinding_size, patched */
	rc |= rec_u64(&r, 0);			/* eh_frame_hdr_size, patched */
	rc |= rec_u64(&r, 0);			/* mapped_size, patched */
	if (rc || put_unwind_data_for(&r, arch, code_size,
				      fde ? fde->buf : arch->fde_insns,
				      fde ? fde->len : arch->fde_insns_len,
				      &eh_size, &hdr_size) < 0)
		goto fail;
	unw_size = eh_size + hdr_size;
	while ((r.len - start) % 8)
		rc |= rec_u8(&r, 0);
	if (rc)
		goto fail;
	rec_set_u32(&r, start + 4, (uint32_t)(r.len - start));
	{
		uint64_t v[3] = { unw_size, hdr_size, ALIGN_UP(unw_size, 16) };

		memcpy(r.buf + start + 16, v, sizeof(v));
	}

	/* CODE_LOAD */
	start = r.len;
	rc |= rec_u32(&r, JIT_CODE_LOAD);
	rc |= rec_u32(&r, 0);			/* total size, patched */
	rc |= rec_u64(&r, ts);
	rc |= rec_u32(&r, (uint32_t)getpid());
	rc |= rec_u32(&r, (uint32_t)syscall(SYS_gettid));
	rc |= rec_u64(&r, addr);		/* vma */
	rc |= rec_u64(&r, addr);		/* code_addr */
	rc |= rec_u64(&r, code_size);
	rc |= rec_u64(&r, idx);
	rc |= rec_put(&r, name, strlen(name) + 1);
	code_off = r.len;
	rc |= rec_put(&r, code, code_size);
	if (rc)
		goto fail;
	/*
	 * Make the dumped bytes unique per function (the live code is
	 * untouched), so that perf versions that derive build-ids from
	 * the code never merge two synthesized DSOs.
	 */
	mix = salt ^ (idx * 0x9e3779b97f4a7c15ull);
	for (i = 0; i < 8 && i < code_size; i++)
		r.buf[code_off + code_size - 1 - i] ^=
			(unsigned char)(mix >> (8 * i));
	rec_set_u32(&r, start + 4, (uint32_t)(r.len - start));
	rc = write_all(s->fd, r.buf, r.len);
	free(r.buf);
	return rc;
fail:
	free(r.buf);
	return -1;
}

static int jit_write_entry(struct backend_state *s,
			   const struct tramp_entry *e)
{
	return jit_write_load(s, e->addr, arch->code, arch->code_size,
			      e->name, NULL);
}

static int perf_write_line(struct backend_state *s, uintptr_t addr,
			   size_t size, const char *name)
{
	char line[4096];
	int n;

	n = snprintf(line, sizeof(line), "%lx %lx %s\n",
		     (unsigned long)addr, (unsigned long)size, name);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	return write_all(s->fd, line, (size_t)n);
}

static int perf_write_entry(struct backend_state *s,
			    const struct tramp_entry *e)
{
	return perf_write_line(s, e->addr, arch->code_size, e->name);
}

static size_t ctx_slot_size(void)
{
	return ALIGN_UP(arch->code_size, 16);
}

/* One load (jitdump) or line (map) for a whole arena of contexts. */
static int arena_write(enum backend b, struct backend_state *s,
		       uintptr_t addr)
{
	struct rec fde = { NULL, 0, 0 };
	int rc;

	if (b == BK_PERF)
		return perf_write_line(s, addr, ARENA_SIZE, CTX_NAME);
	if (put_arena_fde_insns(&fde, arch, ctx_slot_size(),
				ARENA_SIZE / ctx_slot_size()) < 0) {
		free(fde.buf);
		return -1;
	}
	rc = jit_write_load(s, addr, (const void *)addr, ARENA_SIZE, CTX_NAME,
			    &fde);
	free(fde.buf);
	return rc;
}

/* ------------------------------------------------------ context table */

static int ctxf_path(char *buf, size_t len)
{
	const char *dir = getenv("PYPERF_TRAMPOLINE_DIR");
	int n;

	if (!dir || !*dir)
		dir = "/tmp";
	n = snprintf(buf, len, "%s/ctx-%ld.tab", dir, (long)getpid());
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/*
 * Give the table's file its blocks from 0 to size (or fail with an errno
 * value).  ftruncate() alone makes a sparse file: the blocks would be
 * allocated when the mapping is first written, and on a full file
 * system (tmpfs, a disk) that write kills the program with SIGBUS.
 * posix_fallocate() asks for them now, and a full disk is an error the
 * table can stop at while the program runs on.
 */
static int ctxf_allocate(int fd, size_t from, size_t size)
{
	return posix_fallocate(fd, (off_t)from, (off_t)(size - from));
}

/* Room for len more bytes: grow the file and its mapping. */
static int ctxf_reserve(size_t len)
{
	size_t want = ctxf.size;
	void *m;

	while (ctxf.used + len > want)
		want += want < 64 * CTXF_GROW ? want : 64 * CTXF_GROW;
	if (want == ctxf.size)
		return 0;
	if (ctxf_allocate(ctxf.fd, ctxf.size, want) != 0)
		return -1;
	m = mremap(ctxf.map, ctxf.size, want, MREMAP_MAYMOVE);
	if (m == MAP_FAILED)
		return -1;
	ctxf.map = m;
	ctxf.size = want;
	return 0;
}

/* Append one record (type, size, then body; padded to 8 bytes). */
static void ctxf_put(uint32_t type, const void *body, size_t body_len,
		     const void *tail, size_t tail_len)
{
	size_t len = ALIGN_UP(8 + body_len + tail_len, 8);
	uint32_t hdr[2];
	unsigned char *p;

	if (ctxf.fd < 0 || ctxf.failed)
		return;
	if (ctxf_reserve(len) < 0) {
		ctxf.failed = 1;	/* disk full...: keep running */
		return;
	}
	p = ctxf.map + ctxf.used;
	memset(p, 0, len);
	hdr[1] = (uint32_t)len;
	hdr[0] = 0;		/* type last: a reader never sees half */
	memcpy(p, hdr, 8);
	memcpy(p + 8, body, body_len);
	if (tail_len)
		memcpy(p + 8 + body_len, tail, tail_len);
	__atomic_store_n((uint32_t *)p, type, __ATOMIC_RELEASE);
	ctxf.used += len;
}

static void ctxf_put_func(uint32_t id)
{
	uint32_t body[2] = { id, 0 };
	const char *name = func_names[id - 1];

	ctxf_put(CTXF_FUNC, body, sizeof(body), name, strlen(name) + 1);
}

static void ctxf_put_ctx(const struct ctx *c)
{
	struct {
		uint64_t addr;
		uint32_t id, parent, func, flags;
	} body = { (uintptr_t)c->tramp, c->id, c->parent->id, c->func_id, 0 };

	ctxf_put(CTXF_CTX, &body, sizeof(body), NULL, 0);
}

static void ctxf_put_arena(uintptr_t start)
{
	struct {
		uint64_t start, len;
		uint32_t slot_size, reserved;
	} body = { start, ARENA_SIZE, (uint32_t)ctx_slot_size(), 0 };

	ctxf_put(CTXF_ARENA, &body, sizeof(body), NULL, 0);
}

/*
 * Open this process's table and write everything known so far (after
 * fork() the child starts with the parent's contexts: same ids, same
 * addresses, since the arenas are inherited).
 */
static int ctxf_open(void)
{
	char path[4096];
	uint32_t hdr[2] = { (uint32_t)getpid(), 0 };
	size_t i;
	int fd;

	if (ctxf_path(path, sizeof(path)) < 0) {
		PyErr_SetString(PyExc_ValueError,
				"PYPERF_TRAMPOLINE_DIR is too long");
		return -1;
	}
	fd = open_private(path);
	if (fd < 0)
		return -1;
	errno = ctxf_allocate(fd, 0, CTXF_GROW);
	if (errno != 0) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
		close(fd);
		return -1;
	}
	ctxf.map = mmap(NULL, CTXF_GROW, PROT_READ | PROT_WRITE, MAP_SHARED,
			fd, 0);
	if (ctxf.map == MAP_FAILED) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
		ctxf.map = NULL;
		close(fd);
		return -1;
	}
	ctxf.fd = fd;
	ctxf.size = CTXF_GROW;
	ctxf.failed = 0;
	memcpy(ctxf.map, CTXF_MAGIC, 8);
	memcpy(ctxf.map + 8, hdr, 8);
	ctxf.used = 16;
	if (!ctx_start_ns)
		ctx_start_ns = mono_ns();
	ctxf_put(CTXF_START, &ctx_start_ns, sizeof(ctx_start_ns), NULL, 0);
	for (i = 0; i < ctx_arena_nr; i++)
		ctxf_put_arena(ctx_arenas[i]);
	for (i = 0; i < func_nr; i++)
		ctxf_put_func((uint32_t)i + 1);
	for (i = 0; i < ctx_nr; i++)
		ctxf_put_ctx(ctx_by_id[i]);
	return 0;
}

/* Drop the mapping (the parent's, in a fork child) without writing. */
static void ctxf_drop(void)
{
	if (ctxf.map)
		munmap(ctxf.map, ctxf.size);
	if (ctxf.fd >= 0)
		close(ctxf.fd);
	ctxf.map = NULL;
	ctxf.fd = -1;
	ctxf.size = ctxf.used = 0;
	ctxf.failed = 0;
}

/* At exit: cut the file to what was written. */
static void ctxf_finish(void)
{
	if (ctxf.fd < 0 || my_pid != getpid() || child_dirty)
		return;
	if (ftruncate(ctxf.fd, (off_t)ctxf.used) < 0)
		return;		/* the zero tail marks the end as well */
}

/* The jitdump marker: perf inject finds the dump through this mapping. */
static int jit_map_marker(int fd, const char *path)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, (size_t)(pg > 0 ? pg : 4096),
		       PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

	if (m == MAP_FAILED) {
		PyErr_Format(PyExc_OSError,
			     "cannot map '%s' executable (is its file system "
			     "mounted noexec? set PYPERF_TRAMPOLINE_DIR): %s",
			     path, strerror(errno));
		return -1;
	}
	/* Kept for the life of the process (and inherited by children). */
	return 0;
}

static void backend_reset_after_fork(void)
{
	int b;

	for (b = 0; b < BK_NR; b++) {
		if (bk[b].fd >= 0)
			close(bk[b].fd);	/* the parent's file */
		bk[b].fd = -1;
		bk[b].written = 0;
		bk[b].arenas_written = 0;
		bk[b].code_index = 0;
		bk[b].failed = 0;
	}
	/* The parent's table: the child writes its own (lazily). */
	ctxf_drop();
	child_dirty = 0;
}

/* Make sure backend b's file for this process is open. */
static int backend_open(enum backend b)
{
	char path[4096];
	int fd;

	if (child_dirty || my_pid != getpid()) {
		backend_reset_after_fork();
		my_pid = getpid();
	}
	if (bk[b].fd >= 0)
		return 0;
	if (file_path(path, sizeof(path), b) < 0)
		return -1;
	fd = open_private(path);
	if (fd < 0)
		return -1;
	if (b == BK_JIT) {
		if (jit_write_header(fd) < 0) {
			PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
			close(fd);
			return -1;
		}
		if (jit_map_marker(fd, path) < 0) {
			close(fd);
			return -1;
		}
	}
	bk[b].fd = fd;
	bk[b].written = 0;
	bk[b].arenas_written = 0;
	bk[b].code_index = 0;
	bk[b].failed = 0;
	return 0;
}

/* Write the registry entries backend b has not seen yet. */
static void backend_sync(enum backend b)
{
	struct backend_state *s = &bk[b];

	if (s->fd < 0 || s->failed)
		return;
	while (s->written < reg_nr) {
		const struct tramp_entry *e = &reg[s->written];
		int rc = b == BK_PERF ? perf_write_entry(s, e) :
				jit_write_entry(s, e);

		if (rc < 0) {
			s->failed = 1;	/* disk full...: keep running */
			return;
		}
		s->written++;
	}
	while (s->arenas_written < ctx_arena_nr) {
		if (arena_write(b, s, ctx_arenas[s->arenas_written]) < 0) {
			s->failed = 1;
			return;
		}
		s->arenas_written++;
	}
}

/* ----------------------------------------------------------------- names */

#if PY_VERSION_HEX < 0x030B0000
static int code_is_function(PyCodeObject *co)
{
	return (co->co_flags & CO_NEWLOCALS) != 0;
}

static PyCodeObject *func_code_of(PyObject *v)
{
	if (PyFunction_Check(v))
		return (PyCodeObject *)PyFunction_GET_CODE(v);
	return NULL;
}

/* The function behind a class attribute (staticmethod, property...). */
static PyObject *unwrap_member(PyObject *v, PyCodeObject *co)
{
	static const char *const attrs[] = { "__func__", "fget", "fset",
					     "fdel", NULL };
	int i;

	if (func_code_of(v) == co)
		return v;
	if (!PyObject_TypeCheck(v, &PyStaticMethod_Type) &&
	    !PyObject_TypeCheck(v, &PyClassMethod_Type) &&
	    !PyObject_TypeCheck(v, &PyProperty_Type))
		return NULL;
	for (i = 0; attrs[i]; i++) {
		PyObject *f;

		if (!PyObject_HasAttrString(v, attrs[i]))
			continue;
		f = PyObject_GetAttrString(v, attrs[i]);
		if (!f) {
			PyErr_Clear();
			continue;
		}
		Py_DECREF(f);		/* still owned by v */
		if (func_code_of(f) == co)
			return f;
	}
	return NULL;
}

static PyObject *search_class(PyTypeObject *t, PyCodeObject *co, int depth)
{
	PyObject *k, *v, *f;
	Py_ssize_t pos = 0;

	if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE) || !t->tp_dict)
		return NULL;
	while (PyDict_Next(t->tp_dict, &pos, &k, &v)) {
		f = unwrap_member(v, co);
		if (f)
			return f;
		if (depth > 0 && PyType_Check(v) && v != (PyObject *)t) {
			f = search_class((PyTypeObject *)v, co, depth - 1);
			if (f)
				return f;
		}
	}
	return NULL;
}

/* A function object in globals (or in a class there) running co. */
static PyObject *search_globals(PyObject *globals, PyCodeObject *co)
{
	PyObject *k, *v, *f;
	Py_ssize_t pos = 0;

	if (!globals || !PyDict_Check(globals))
		return NULL;
	while (PyDict_Next(globals, &pos, &k, &v)) {
		if (func_code_of(v) == co)
			return v;
		if (PyType_Check(v)) {
			f = search_class((PyTypeObject *)v, co, 2);
			if (f)
				return f;
		}
	}
	return NULL;
}
#endif

static const char *utf8_or(PyObject *s, const char *dflt)
{
	const char *r;

	if (!s || !PyUnicode_Check(s))
		return dflt;
	r = PyUnicode_AsUTF8(s);
	if (!r) {
		PyErr_Clear();
		return dflt;
	}
	return r;
}

/*
 * The hook's fast path reads co->co_extra directly instead of calling
 * the out-of-line getter.  The layout (a size, then the slots) is not in
 * the installed headers, so it is only trusted after it was seen to
 * agree with the official getter (checked on the first trampolines).
 */
struct code_extra_mirror {
	Py_ssize_t ce_size;
	void *ce_extras[1];
};

static int extra_fast;		/* 1: mirror verified, -1: disagrees */

static inline struct code_info *code_info_fast(PyCodeObject *co)
{
	struct code_extra_mirror *x = co->co_extra;

	if (!x || extra_index >= x->ce_size)
		return NULL;
	return x->ce_extras[extra_index];
}

static struct code_info *code_info_get(PyCodeObject *co)
{
	void *p = NULL;

	if (code_get_extra((PyObject *)co, extra_index, &p) < 0) {
		PyErr_Clear();
		return NULL;
	}
	return p;
}

static void code_info_free(void *p)
{
	struct code_info *ci = p;

	code_gen++;		/* contexts' caches may name freed code */
	if (ci) {
		free(ci->qualname);
		free(ci);
	}
}

static struct code_info *code_info_ensure(PyCodeObject *co)
{
	struct code_info *ci = code_info_get(co);

	if (ci)
		return ci;
	ci = calloc(1, sizeof(*ci));
	if (!ci)
		return NULL;
	if (code_set_extra((PyObject *)co, extra_index, ci) < 0) {
		PyErr_Clear();
		free(ci);
		return NULL;
	}
	return ci;
}

#if PY_VERSION_HEX < 0x030B0000
/*
 * Before 3.11 code objects have no qualname.  When a code object first
 * runs, name the code objects among its constants the way the compiler
 * would: "Q.child" below a class body, "Q.<locals>.child" below a
 * function, "child" below a module.
 */
static void name_children(PyCodeObject *co, const char *qual)
{
	Py_ssize_t i, n;
	const char *own = utf8_or(co->co_name, "");
	int is_module = !strcmp(own, "<module>");
	int is_comp = !strcmp(own, "<listcomp>") || !strcmp(own, "<setcomp>") ||
		!strcmp(own, "<dictcomp>") || !strcmp(own, "<genexpr>");

	if (!co->co_consts || !PyTuple_Check(co->co_consts))
		return;
	n = PyTuple_GET_SIZE(co->co_consts);
	for (i = 0; i < n; i++) {
		PyObject *c = PyTuple_GET_ITEM(co->co_consts, i);
		PyCodeObject *cc = (PyCodeObject *)c;
		struct code_info *ci;
		const char *name;
		size_t len;
		char *q;

		if (!PyCode_Check(c))
			continue;
		ci = code_info_ensure(cc);
		if (!ci || ci->qualname)
			continue;
		name = utf8_or(cc->co_name, "?");
		len = strlen(qual) + strlen(name) + 16;
		q = malloc(len);
		if (!q)
			continue;
		/* Children of a comprehension get no "<locals>". */
		if (is_module)
			snprintf(q, len, "%s", name);
		else
			snprintf(q, len, "%s%s%s", qual,
				 code_is_function(co) && !is_comp ?
				 ".<locals>." : ".", name);
		ci->qualname = q;
	}
}
#endif

/* "py::qualname:filename", newlines made spaces.  malloc'd. */
static char *entry_name(PyCodeObject *co, PyObject *globals,
			struct code_info *ci)
{
	const char *qual, *file;
	char *name, *p;
	size_t len;

#if PY_VERSION_HEX >= 0x030B0000
	(void)globals;
	(void)ci;
	qual = utf8_or(co->co_qualname, "");
#else
	PyObject *fn;

	if (ci && ci->qualname) {
		qual = ci->qualname;
	} else if ((fn = search_globals(globals, co)) != NULL) {
		qual = utf8_or(((PyFunctionObject *)fn)->func_qualname,
			       utf8_or(co->co_name, ""));
	} else {
		qual = utf8_or(co->co_name, "");
	}
	if (ci && !ci->qualname)
		ci->qualname = strdup(qual);
	name_children(co, qual);
#endif
	file = utf8_or(co->co_filename, "");
	len = strlen(qual) + strlen(file) + 6;
	name = malloc(len);
	if (!name)
		return NULL;
	snprintf(name, len, "py::%s:%s", qual, file);
	for (p = name; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return name;
}

/* -------------------------------------------------------------- contexts */

/*
 * The caller of the frame being entered, and the frame chain: the
 * caller is the thread's current frame when the hook runs (3.11+: the
 * evaluator links the new frame only once it starts; 3.8-3.10: f_back
 * is set before evaluation, generators' on every resume).
 */
#if PY_VERSION_HEX >= 0x030D0000
#define CALLER_FRAME(f) ((const void *)ts->current_frame)
#elif PY_VERSION_HEX >= 0x030B0000
#define CALLER_FRAME(f) ((const void *)ts->cframe->current_frame)
#else
#define CALLER_FRAME(f) ((const void *)(f)->f_back)
#endif

#if PY_VERSION_HEX >= 0x030B0000
#if PY_VERSION_HEX >= 0x030C0000
#define FRAME_PREVIOUS_OFFSET 8
#define FRAME_OWNER_OFFSET 70
#else
#define FRAME_PREVIOUS_OFFSET 48
#define FRAME_OWNER_OFFSET 69
#endif
#ifdef Py_INTERNAL_FRAME_H
_Static_assert(offsetof(struct _PyInterpreterFrame, previous) ==
	       FRAME_PREVIOUS_OFFSET, "_PyInterpreterFrame.previous moved");
_Static_assert(offsetof(struct _PyInterpreterFrame, owner) ==
	       FRAME_OWNER_OFFSET, "_PyInterpreterFrame.owner moved");
#endif
/* 3.12+: the evaluator's entry frame on the C stack, not Python code. */
#define FRAME_OWNED_BY_CSTACK_VALUE 3

static const void *frame_previous(const void *fr)
{
	return *(const void *const *)((const char *)fr +
				      FRAME_PREVIOUS_OFFSET);
}

static PyCodeObject *frame_python_code(const void *fr)
{
	PyCodeObject *co;

#if PY_VERSION_HEX >= 0x030C0000
	if (((const char *)fr)[FRAME_OWNER_OFFSET] ==
	    FRAME_OWNED_BY_CSTACK_VALUE)
		return NULL;
#endif
	co = FRAME_CODE(fr);
#ifdef CO_NO_MONITORING_EVENTS
	/*
	 * 3.13's shim frames (the static, read-only _Py_InitCleanup that
	 * finishes a class's __init__) are not Python functions and never
	 * reach the hook; their code object cannot carry an extra either.
	 */
	if (co && (co->co_flags & CO_NO_MONITORING_EVENTS))
		return NULL;
#endif
	return co;
}
#define FRAME_GLOBALS_OF(fr) NULL
#else
static const void *frame_previous(const void *fr)
{
	return ((const PyFrameObject *)fr)->f_back;
}

static PyCodeObject *frame_python_code(const void *fr)
{
	return ((const PyFrameObject *)fr)->f_code;
}
#define FRAME_GLOBALS_OF(fr) (((const PyFrameObject *)(fr))->f_globals)
#endif

/* Make sure this process's files are open (also after a raw fork()). */
static void ctx_files_ready(void)
{
	if (child_dirty || my_pid != getpid()) {
		backend_reset_after_fork();
		my_pid = getpid();
	}
	if (!tramp_active)
		return;
	if (bk[active_backend].fd < 0 && backend_open(active_backend) < 0)
		PyErr_Clear();
	if (ctxf.fd < 0 && !ctxf.failed && ctxf_open() < 0) {
		PyErr_Clear();
		ctxf.failed = 1;
	}
}

/* The FUNC id of a code object, naming it on first use. */
static uint32_t func_id_of(PyCodeObject *co, PyObject *globals)
{
	struct code_info *ci = code_info_ensure(co);
	char *name;

	if (!ci)
		return 0;
	if (ci->func_id)
		return ci->func_id;
	/*
	 * First, so that a fork child replays into its own table what
	 * existed before this record, then writes this one once.
	 */
	ctx_files_ready();
	if (func_nr == func_alloc) {
		uint32_t na = func_alloc ? func_alloc * 2 : 1024;
		char **nf = realloc(func_names, na * sizeof(*nf));

		if (!nf)
			return 0;
		func_names = nf;
		func_alloc = na;
	}
	name = entry_name(co, globals, ci);
	if (!name)
		return 0;
	func_names[func_nr++] = name;
	ctx_name_bytes += strlen(name) + 1;
	ci->func_id = func_nr;
	if (extra_fast == 0 && func_nr >= 8)
		extra_fast = 1;
	if (extra_fast >= 0 && code_info_fast(co) != ci)
		extra_fast = -1;
	ctxf_put_func(ci->func_id);
	return ci->func_id;
}

static size_t ctx_hash_of(const struct ctx *parent, uint32_t func)
{
	uint64_t h = ((uint64_t)(uintptr_t)parent >> 4) ^
		((uint64_t)func << 32);

	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20);
}

static int ctx_hash_grow(void)
{
	size_t n = ctx_hash_size ? ctx_hash_size * 2 : 4096, i, j;
	struct ctx **t = calloc(n, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < ctx_hash_size; i++) {
		struct ctx *c = ctx_hash[i];

		if (!c)
			continue;
		for (j = ctx_hash_of(c->parent, c->func_id) & (n - 1); t[j];
		     j = (j + 1) & (n - 1))
			;
		t[j] = c;
	}
	free(ctx_hash);
	ctx_hash = t;
	ctx_hash_size = n;
	return 0;
}

/* A trampoline slot for a new context (arenas of 16-byte slots). */
static void *ctx_slot_alloc(void)
{
	size_t slot = ctx_slot_size();
	void *t;

	if (ctx_left < slot) {
		unsigned char *p;
		uintptr_t *na;

		if (ctx_arena_nr == ctx_arena_alloc) {
			size_t n = ctx_arena_alloc ? ctx_arena_alloc * 2 : 16;

			na = realloc(ctx_arenas, n * sizeof(*na));
			if (!na)
				return NULL;
			ctx_arenas = na;
			ctx_arena_alloc = n;
		}
		p = arena_new(slot);
		if (!p)
			return NULL;
		ctx_files_ready();	/* before the arena is listed */
		ctx_arenas[ctx_arena_nr++] = (uintptr_t)p;
		ctx_next = p;
		ctx_left = ARENA_SIZE;
		ctxf_put_arena((uintptr_t)p);
		if (tramp_active)
			backend_sync(active_backend);
	}
	t = ctx_next;
	ctx_next += slot;
	ctx_left -= slot;
	return t;
}

/*
 * The child context (parent, func): found, or created with its own
 * trampoline and table record.  Past ctx_max contexts, new paths get
 * the context (unknown, func): the report then falls back to what the
 * sample itself holds above that frame.  NULL only without memory.
 */
static struct ctx *ctx_child(struct ctx *parent, uint32_t func)
{
	size_t i;
	struct ctx *c;

	if (!func)
		return NULL;
	if (ctx_hash_size) {
		for (i = ctx_hash_of(parent, func) & (ctx_hash_size - 1);
		     (c = ctx_hash[i]) != NULL; i = (i + 1) & (ctx_hash_size - 1))
			if (c->parent == parent && c->func_id == func)
				return c;
	}
	if (ctx_nr >= ctx_max && parent != &ctx_unknown)
		return ctx_child(&ctx_unknown, func);
	/* a fork child opens its own table before its first new record */
	ctx_files_ready();
	if ((ctx_nr + 1) * 2 > ctx_hash_size && ctx_hash_grow() < 0)
		return NULL;
	if (ctx_nr == ctx_alloc) {
		uint32_t na = ctx_alloc ? ctx_alloc * 2 : 4096;
		struct ctx **nb = realloc(ctx_by_id, na * sizeof(*nb));

		if (!nb)
			return NULL;
		ctx_by_id = nb;
		ctx_alloc = na;
	}
	if (!ctx_slab_left) {
		ctx_slab = calloc(1024, sizeof(*ctx_slab));
		if (!ctx_slab)
			return NULL;
		ctx_slab_left = 1024;
	}
	c = ctx_slab++;
	ctx_slab_left--;
	c->tramp = ctx_slot_alloc();
	if (!c->tramp) {
		ctx_slab--;
		ctx_slab_left++;
		return NULL;
	}
	c->parent = parent;
	c->func_id = func;
	c->id = ++ctx_nr;
	c->cache_gen = 0;
	c->cache_code = NULL;
	c->cache_child = NULL;
	ctx_by_id[c->id - 1] = c;
	for (i = ctx_hash_of(parent, func) & (ctx_hash_size - 1); ctx_hash[i];
	     i = (i + 1) & (ctx_hash_size - 1))
		;
	ctx_hash[i] = c;
	ctxf_put_ctx(c);
	return c;
}

/*
 * The context of a frame that did not enter through our hook (it
 * started before activation, the thread switched stacks, or 3.13.0
 * pushed it inline: a class's __init__ called through
 * CALL_ALLOC_AND_ENTER_INIT skips PEP 523).  Walk its chain up to the
 * thread's innermost hooked frame (known, whose context is known: *found
 * is set to 1) or else to the outermost Python frame, and intern the
 * path from there.
 */
static struct ctx *ctx_rebuild(const void *fr, const void *known,
			       struct ctx *known_ctx, int *found)
{
	const void **chain = NULL;
	size_t n = 0, alloc = 0;
	struct ctx *c = &ctx_root;

	ctx_rebuilds++;
	*found = 0;
	for (; fr; fr = frame_previous(fr)) {
		if (fr == known) {
			c = known_ctx;
			*found = 1;
			break;
		}
		if (n == CTX_WALK_MAX) {
			free(chain);
			return &ctx_unknown;
		}
		if (!frame_python_code(fr))
			continue;
		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 64;
			const void **nc = realloc(chain, na * sizeof(*nc));

			if (!nc) {
				free(chain);
				return &ctx_unknown;
			}
			chain = nc;
			alloc = na;
		}
		chain[n++] = fr;
	}
	while (n--) {
		const void *f = chain[n];
		struct ctx *next = ctx_child(c, func_id_of(
			frame_python_code(f), FRAME_GLOBALS_OF(f)));

		if (!next) {
			c = &ctx_unknown;
			break;
		}
		c = next;
	}
	free(chain);
	return c;
}

/* Every thread rebuilds its context at its next frame. */
static void ctx_threads_stale(void)
{
	size_t i;

	for (i = 0; i < thr_size; i++)
		if (thr_tab[i])
			thr_tab[i]->frame = THR_STALE;
	thr_fallback.frame = THR_STALE;
}

static size_t thr_hash(const void *ts)
{
	return (size_t)(((uint64_t)(uintptr_t)ts * 0x9e3779b97f4a7c15ull) >>
			24);
}

/* The state of the thread whose thread state is ts (created at root). */
static struct ctx_thread *thr_state(const void *ts)
{
	struct ctx_thread *e;
	size_t i;

	if (thr_size) {
		for (i = thr_hash(ts) & (thr_size - 1); (e = thr_tab[i]) != NULL;
		     i = (i + 1) & (thr_size - 1))
			if (e->ts == ts)
				goto found;
	}
	if ((thr_nr + 1) * 2 > thr_size) {
		size_t n = thr_size ? thr_size * 2 : 64, j;
		struct ctx_thread **t = calloc(n, sizeof(*t));

		if (!t)
			goto fallback;
		for (j = 0; j < thr_size; j++) {
			if (!thr_tab[j])
				continue;
			for (i = thr_hash(thr_tab[j]->ts) & (n - 1); t[i];
			     i = (i + 1) & (n - 1))
				;
			t[i] = thr_tab[j];
		}
		free(thr_tab);
		thr_tab = t;
		thr_size = n;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		goto fallback;
	e->ts = ts;
	e->ctx = &ctx_root;
	e->frame = THR_STALE;	/* a new thread may be mid-stack: rebuild */
	for (i = thr_hash(ts) & (thr_size - 1); thr_tab[i];
	     i = (i + 1) & (thr_size - 1))
		;
	thr_tab[i] = e;
	thr_nr++;
found:
	thr_last_ts = ts;
	thr_last = e;
	return e;
fallback:
	/* Wrong contexts are caught by the frame check: it rebuilds. */
	if (!thr_fallback.ctx) {
		thr_fallback.ctx = &ctx_root;
		thr_fallback.frame = THR_STALE;
	}
	return &thr_fallback;
}

/* The slow path of entering code co under parent. */
static struct ctx *ctx_enter_slow(struct ctx *parent, PyCodeObject *co,
				  PyObject *globals)
{
	uint32_t func = func_id_of(co, globals);
	struct ctx *c = ctx_child(parent, func);

	if (!c)
		return &ctx_unknown;
	parent->cache_gen = code_gen;
	parent->cache_code = co;
	parent->cache_child = c;
	return c;
}

/* ------------------------------------------------------------------ hook */

static void *tramp_create(PyCodeObject *co, PyObject *globals)
{
	struct code_info *ci;
	struct tramp_entry *e;
	void *t;
	char *name;

	ci = code_info_ensure(co);
	if (!ci)
		return NULL;
	if (reg_nr == reg_alloc) {
		size_t na = reg_alloc ? reg_alloc * 2 : 1024;
		struct tramp_entry *nr = realloc(reg, na * sizeof(*nr));

		if (!nr)
			return NULL;
		reg = nr;
		reg_alloc = na;
	}
	name = entry_name(co, globals, ci);
	if (!name)
		return NULL;
	t = slot_alloc();
	if (!t) {
		free(name);
		return NULL;
	}
	e = &reg[reg_nr++];
	e->addr = (uintptr_t)t;
	e->name = name;
	ci->tramp = t;
	if (extra_fast == 0 && reg_nr >= 8)
		extra_fast = 1;
	if (extra_fast >= 0 && code_info_fast(co) != ci)
		extra_fast = -1;
	if (tramp_active) {
		/* A fork may have happened without os.fork (raw fork()). */
		if (bk[active_backend].fd < 0 || child_dirty) {
			if (backend_open(active_backend) < 0)
				PyErr_Clear();
		}
		backend_sync(active_backend);
	}
	return t;
}

#if PY_VERSION_HEX >= 0x030B0000
#define FRAME_GLOBALS(f) NULL
#else
#define FRAME_GLOBALS(f) ((f)->f_globals)
#endif

/*
 * The parent context when the caller is not the thread's innermost
 * hooked frame (rebuilt from the frame chain).  *rctx and *pframe get
 * the thread state to restore once the frame returns.
 */
static __attribute__((noinline)) struct ctx *
ctx_parent_slow(struct ctx_thread *st, const void *caller,
		struct ctx **rctx, const void **pframe)
{
	PyObject *et, *ev, *etb;
	struct ctx *parent;
	int found = 0;

	PyErr_Fetch(&et, &ev, &etb);
	parent = caller ? ctx_rebuild(caller, st->frame, st->ctx, &found) :
		&ctx_root;
	PyErr_Restore(et, ev, etb);
	if (!found) {
		/*
		 * Unhooked frames up to the root: keep the result, so that
		 * their next calls take the fast path.
		 */
		st->ctx = parent;
		st->frame = caller;
	}
	/*
	 * Else a few unhooked frames above a hooked one: the thread state
	 * stays that of the hooked frame, which runs on once they return.
	 */
	*rctx = st->ctx;
	*pframe = st->frame;
	return parent;
}

/* The child context for code co when parent's cache misses. */
static __attribute__((noinline)) struct ctx *
ctx_child_slow(struct ctx *parent, PyCodeObject *co, PyObject *globals)
{
	PyObject *et, *ev, *etb;
	struct ctx *c;

	/* thr=1 (generator.throw) runs with an exception set. */
	PyErr_Fetch(&et, &ev, &etb);
	c = ctx_enter_slow(parent, co, globals);
	PyErr_Restore(et, ev, etb);
	return c;
}

/*
 * The frame hook in context mode: enter f under the context of its
 * caller.  The fast path (the caller is this thread's innermost hooked
 * frame, and it entered the same code last time) is a few loads and
 * compares; everything else is out of line.
 */
static PyObject *ppt_ctx_hook(HOOK_PARAMS)
{
	struct ctx_thread *st;
	const void *caller, *pframe;
	struct ctx *parent, *c, *rctx;
	PyCodeObject *co;
	PyObject *res;

	if (__builtin_expect(!tramp_active, 0))
		return CALL_PREV();
	co = FRAME_CODE(f);
	if (__builtin_expect(!co, 0))
		return CALL_PREV();
	st = HOOK_TSTATE == thr_last_ts ? thr_last : thr_state(HOOK_TSTATE);
	caller = CALLER_FRAME(f);
	pframe = st->frame;
	rctx = parent = st->ctx;
	if (__builtin_expect(caller != pframe, 0))
		parent = ctx_parent_slow(st, caller, &rctx, &pframe);
	if (__builtin_expect(parent->cache_code == co &&
			     parent->cache_gen == code_gen, 1))
		c = parent->cache_child;
	else
		c = ctx_child_slow(parent, co, FRAME_GLOBALS(f));
	st->ctx = c;
	st->frame = f;
	res = c->tramp ? CALL_TRAMP(c->tramp) : CALL_PREV();
	st->ctx = rctx;
	st->frame = pframe;
	return res;
}

static PyObject *ppt_hook(HOOK_PARAMS)
{
	PyCodeObject *co;
	struct code_info *ci;
	void *t;

	if (!tramp_active)
		return CALL_PREV();
	co = FRAME_CODE(f);
	if (!co)
		return CALL_PREV();
	if (extra_fast > 0) {
		ci = code_info_fast(co);
	} else {
		ci = NULL;
		code_get_extra((PyObject *)co, extra_index, (void **)&ci);
	}
	if (ci && ci->tramp) {
		t = ci->tramp;
	} else {
		PyObject *et, *ev, *etb;

		/* thr=1 (generator.throw) runs with an exception set. */
		PyErr_Fetch(&et, &ev, &etb);
		t = tramp_create(co, FRAME_GLOBALS(f));
		PyErr_Restore(et, ev, etb);
		if (!t)
			return CALL_PREV();
	}
	return CALL_TRAMP(t);
}

static _PyFrameEvalFunction eval_get(void)
{
#if PY_VERSION_HEX >= 0x03090000
	return _PyInterpreterState_GetEvalFrameFunc(PyInterpreterState_Get());
#else
	return PyThreadState_Get()->interp->eval_frame;
#endif
}

static void eval_set(_PyFrameEvalFunction fn)
{
#if PY_VERSION_HEX >= 0x03090000
	_PyInterpreterState_SetEvalFrameFunc(PyInterpreterState_Get(), fn);
#else
	PyThreadState_Get()->interp->eval_frame = fn;
#endif
}

/* ----------------------------------------------------------- Python API */

static int ensure_extra_index(void)
{
	if (extra_index >= 0)
		return 0;
	extra_index = request_extra_index(code_info_free);
	if (extra_index < 0) {
		extra_index = -1;
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_RuntimeError,
					"no free code-extra index for the "
					"perf trampoline");
		return -1;
	}
	return 0;
}

static int parse_backend(PyObject *arg, enum backend *b)
{
	const char *s;

	if (!PyUnicode_Check(arg)) {
		PyErr_Format(PyExc_TypeError,
			     "activate_stack_trampoline() argument must be "
			     "str, not %.50s", Py_TYPE(arg)->tp_name);
		return -1;
	}
	s = PyUnicode_AsUTF8(arg);
	if (!s)
		return -1;
	if (!strcmp(s, "perf")) {
		*b = BK_PERF;
	} else if (!strcmp(s, "perf_jit")) {
		*b = BK_JIT;
	} else {
		PyErr_Format(PyExc_ValueError, "invalid backend: %s", s);
		return -1;
	}
	return 0;
}

/*
 * PYPERF_TRAMPOLINE_CONTEXTS=1 selects context mode, at the first
 * activation only (trampolines of one kind exist afterwards);
 * PYPERF_TRAMPOLINE_MAX_CONTEXTS caps the number of contexts.
 */
static int ctx_mode_wanted(void)
{
	const char *v = getenv("PYPERF_TRAMPOLINE_CONTEXTS");
	const char *m = getenv("PYPERF_TRAMPOLINE_MAX_CONTEXTS");

	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (m && *m) {
		char *end;
		unsigned long x;

		errno = 0;
		x = strtoul(m, &end, 10);
		if (errno || *end || !x || x >= CTX_ID_UNKNOWN) {
			PyErr_Format(PyExc_ValueError,
				     "PYPERF_TRAMPOLINE_MAX_CONTEXTS: not a "
				     "count from 1 to %u: '%s'",
				     CTX_ID_UNKNOWN - 1, m);
			return -1;
		}
		ctx_max = (uint32_t)x;
	}
	ctx_mode = 1;
	return 0;
}

static PyObject *ppt_activate(PyObject *self, PyObject *arg)
{
	enum backend b;

	if (parse_backend(arg, &b) < 0)
		return NULL;
	if (PyThreadState_Get()->interp != PyInterpreterState_Main()) {
		/* Code-extra indices and the hook are per interpreter. */
		PyErr_SetString(PyExc_RuntimeError,
				"the perf trampoline can only be activated in "
				"the main interpreter");
		return NULL;
	}
	if (tramp_active && active_backend == b)
		Py_RETURN_NONE;		/* like CPython: a no-op */
	if (ensure_extra_index() < 0)
		return NULL;
	if (!ctx_mode && !reg_nr && ctx_mode_wanted() < 0)
		return NULL;
	if (backend_open(b) < 0)
		return NULL;
	if (ctx_mode && ctxf.fd < 0 && ctxf_open() < 0)
		return NULL;
	active_backend = b;
	backend_sync(b);
	ctx_threads_stale();	/* frames ran unhooked while inactive */
	if (!hook_in_chain) {
		/* Chain to whatever is there (default or a debugger). */
		prev_eval = eval_get();
		eval_set(ctx_mode ? ppt_ctx_hook : ppt_hook);
		hook_in_chain = 1;
	}
	tramp_active = 1;
	Py_RETURN_NONE;
}

static PyObject *ppt_deactivate(PyObject *self, PyObject *unused)
{
	tramp_active = 0;
	/*
	 * Unhook only if we are on top; if someone chained onto us, we
	 * stay in their chain as a pass-through.
	 */
	if (hook_in_chain && (eval_get() == ppt_hook ||
			      eval_get() == ppt_ctx_hook)) {
		eval_set(prev_eval);
		hook_in_chain = 0;
	}
	Py_RETURN_NONE;
}

/*
 * For measurements only (bench/tramp-overhead.py): a PEP 523 hook that
 * only calls the evaluator, the floor any frame hook pays (on 3.11+ it
 * turns off call inlining).  Not a backend: nothing is written.
 */
static PyObject *empty_hook(HOOK_PARAMS)
{
	return CALL_PREV();
}

static PyObject *ppt_empty_hook(PyObject *self, PyObject *unused)
{
	if (hook_in_chain || tramp_active) {
		PyErr_SetString(PyExc_RuntimeError, "a trampoline is active");
		return NULL;
	}
	prev_eval = eval_get();
	eval_set(empty_hook);
	Py_RETURN_NONE;
}

/*
 * For tests: the id of the calling Python frame's context (its
 * thread's innermost hooked frame), 0 when none, None outside context
 * mode.
 */
static PyObject *ppt_context(PyObject *self, PyObject *unused)
{
	PyThreadState *ts = PyThreadState_Get();
	struct ctx_thread *st;

	if (!ctx_mode || !tramp_active)
		Py_RETURN_NONE;
	st = thr_state(ts);
	return PyLong_FromUnsignedLong(st->ctx ? st->ctx->id : 0);
}

static PyObject *ppt_is_active(PyObject *self, PyObject *unused)
{
	return PyBool_FromLong(tramp_active);
}

/* Registered with os.register_at_fork(after_in_child=...). */
static PyObject *ppt_after_fork_child(PyObject *self, PyObject *unused)
{
	backend_reset_after_fork();
	my_pid = getpid();
	salt ^= (uint64_t)my_pid * 0x2545f4914f6cdd1dull;
	if (tramp_active) {
		/* Replay the parent's trampolines under the child's pid. */
		if (backend_open(active_backend) < 0) {
			PyErr_Clear();
			Py_RETURN_NONE;
		}
		backend_sync(active_backend);
		if (ctx_mode && ctxf_open() < 0) {
			PyErr_Clear();
			ctxf.failed = 1;
		}
	}
	Py_RETURN_NONE;
}

static PyObject *ppt_state(PyObject *self, PyObject *unused)
{
	/* Memory the contexts use: nodes, index, hash, arenas, names. */
	size_t ctx_bytes = ctx_nr * (sizeof(struct ctx) + sizeof(void *)) +
		ctx_hash_size * sizeof(void *) + ctx_arena_nr * ARENA_SIZE +
		ctx_name_bytes + func_nr * sizeof(char *);

	return Py_BuildValue(
		"{s:O,s:s,s:n,s:n,s:i,s:i,s:s,s:i,s:O,s:O,s:n,s:n,s:n,s:K,"
		"s:n,s:n}",
		"active", tramp_active ? Py_True : Py_False,
		"backend", backend_names[active_backend],
		"trampolines", (Py_ssize_t)reg_nr,
		"extra_index", extra_index,
		"slot_size", ctx_mode ? (int)ctx_slot_size() : SLOT_SIZE,
		"code_size", (int)arch->code_size,
		"arch", arch->name,
		"fast_extra", extra_fast,
		"chained", (hook_in_chain && prev_eval &&
			    prev_eval != _PyEval_EvalFrameDefault) ?
			Py_True : Py_False,
		"contexts_mode", ctx_mode ? Py_True : Py_False,
		"contexts", (Py_ssize_t)ctx_nr,
		"functions", (Py_ssize_t)func_nr,
		"context_arenas", (Py_ssize_t)ctx_arena_nr,
		"context_rebuilds", (unsigned long long)ctx_rebuilds,
		"context_bytes", (Py_ssize_t)ctx_bytes,
		"context_max", (Py_ssize_t)ctx_max);
}

static void atfork_child(void)
{
	/* Only async-signal-safe work here; the rest happens lazily. */
	child_dirty = 1;
}

static PyMethodDef ppt_methods[] = {
	{ "activate", ppt_activate, METH_O,
	  "activate(backend): start the 'perf' or 'perf_jit' trampoline." },
	{ "deactivate", ppt_deactivate, METH_NOARGS,
	  "deactivate(): stop creating and using trampolines." },
	{ "is_active", ppt_is_active, METH_NOARGS,
	  "is_active() -> bool" },
	{ "_after_fork_child", ppt_after_fork_child, METH_NOARGS,
	  "internal: reopen the files for the child and replay." },
	{ "_state", ppt_state, METH_NOARGS, "internal state, for tests" },
	{ "_context", ppt_context, METH_NOARGS,
	  "internal: the calling frame's context id, for tests" },
	{ "_empty_hook", ppt_empty_hook, METH_NOARGS,
	  "internal: install a pass-through frame hook, for measurements" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef ppt_module = {
	PyModuleDef_HEAD_INIT, "_pyperf_trampoline",
	"Embedded perf trampoline (pyperf-run) for CPython 3.8-3.13.",
	-1, ppt_methods, NULL, NULL, NULL, NULL
};

/* 3.8's PyMODINIT_FUNC does not export under -fvisibility=hidden. */
#define PPT_EXPORT __attribute__((visibility("default")))

PPT_EXPORT PyMODINIT_FUNC PyInit__pyperf_trampoline(void);

PPT_EXPORT PyMODINIT_FUNC PyInit__pyperf_trampoline(void)
{
	static int atfork_done;
	PyObject *m, *os = NULL, *fn = NULL, *reg_fn = NULL, *kw = NULL,
		 *args = NULL, *r = NULL;

	m = PyModule_Create(&ppt_module);
	if (!m)
		return NULL;
	if (!atfork_done) {
		struct timespec ts;

		my_pid = getpid();
		clock_gettime(CLOCK_REALTIME, &ts);
		salt = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^
			((uint64_t)my_pid << 16) ^ (uintptr_t)&ts;
		pthread_atfork(NULL, NULL, atfork_child);
		Py_AtExit(ctxf_finish);
		atfork_done = 1;
	}
	os = PyImport_ImportModule("os");
	if (!os)
		goto fail;
	reg_fn = PyObject_GetAttrString(os, "register_at_fork");
	fn = PyObject_GetAttrString(m, "_after_fork_child");
	args = PyTuple_New(0);
	kw = reg_fn && fn && args ?
		Py_BuildValue("{s:O}", "after_in_child", fn) : NULL;
	if (!kw)
		goto fail;
	r = PyObject_Call(reg_fn, args, kw);
	if (!r)
		goto fail;
	Py_DECREF(r);
	Py_DECREF(kw);
	Py_DECREF(args);
	Py_DECREF(fn);
	Py_DECREF(reg_fn);
	Py_DECREF(os);
	return m;
fail:
	Py_XDECREF(kw);
	Py_XDECREF(args);
	Py_XDECREF(fn);
	Py_XDECREF(reg_fn);
	Py_XDECREF(os);
	Py_DECREF(m);
	return NULL;
}
