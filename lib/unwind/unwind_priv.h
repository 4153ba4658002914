/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_UNWIND_PRIV_H
#define PPR_UNWIND_PRIV_H
/*
 * What the files of lib/unwind/ share.  They form layers: each file
 * calls only into the files below it, never up or sideways.
 *
 *   unwind.c   setup and teardown: unwind_new(), unwind_free(),
 *              unwind_stats()
 *   cfi.c      compiled CFI rows, the fast walk, unwind_sample()
 *   symbols.c  sorted ELF symbols (PLT entries named), kallsyms, names
 *   dwfl.c     a Dwfl per process: callbacks, single steps, full walks
 *              (symbols.c and dwfl.c do not call each other)
 *   maps.c     processes, mappings (MMAP/FORK/exec), file resolution
 *              through the session, memory reads
 *   elffile.c  the file cache: bytes, libelf, load bias, debug file
 *   (lib/hmap.c, the hash maps, under them all; intern() below is one
 *   lookup in them)
 */
#include "compat.h"
#include "unwind/unwind.h"
#include "hmap.h"

#include <elfutils/libdwfl.h>

#define PERF_CONTEXT_KERNEL ((uint64_t)-128)
#define PERF_CONTEXT_USER ((uint64_t)-512)
#define PERF_CONTEXT_MAX ((uint64_t)-4095)

/*
 * x86_64 DWARF registers 0..16 (16: the return address, rip).  A CFI
 * row compiled for the fast path: CFA = reg + offset, and per register
 * one of the simple rules.  ok = 0: something else (a DWARF
 * expression, no module, no CFI): libdwfl unwinds from there.
 */
#define NREGS 17
#define REG_SP 7
#define REG_RA 16

enum rule_kind { RULE_UNDEF, RULE_SAME, RULE_OFFSET, RULE_VAL_OFFSET,
		 RULE_REGISTER };

struct cfi_rule {
	uint8_t ok, signal, cfa_reg;
	uint8_t plt_k;			/* PLT: CFA += 8 if (pc & 15) >= k */
	int64_t cfa_off;
	struct {
		uint8_t kind, reg;
		int64_t off;
	} r[NREGS];
};

/* A function symbol, at an ELF address of its file. */
struct fsym {
	uint64_t off, size;
	const char *name;		/* interned */
	int rank;			/* global 3, local 2, weak 1,
					   untyped 0 */
};

/* A file the mappings point at; read on first use. */
struct file {
	char *path;			/* where we read it */
	const unsigned char *map;
	size_t size;
	unsigned tried : 1, heap : 1, id_read : 1;
	char *build_id;			/* hex, or NULL: none (file_build_id) */
	/* the module made from it last, in which process (report_one) */
	struct proc *last_proc;
	Dwfl_Module *last_mod;
	unsigned last_gen;
	/* function symbols sorted by address, shared by every process */
	struct fsym *syms;
	size_t nr_syms;
	unsigned syms_loaded : 1;
	/* libelf on our copy, its .eh_frame, compiled rows by address */
	Elf *elf;
	Dwarf_CFI *eh;
	unsigned elf_tried : 1;
	struct umap rules;		/* vaddr -> struct cfi_rule * */
	/*
	 * One copy of each distinct rule (a few hundred in a file), which
	 * rules point to: a long recording samples ever more addresses
	 * (the interpreter's loop is one function of thousands of
	 * instructions), and a rule of its own for each grew the memory of
	 * a recorder attached to a gunicorn worker by 0.6 MB a minute.
	 */
	struct smap rule_set;		/* rule bytes -> the copy (owned) */
};

struct mapping {
	uint64_t start, end, pgoff;
	const char *name;		/* perf's name for it (dso); interned */
	struct file *f;			/* NULL: not found, or anonymous */
	Dwfl_Module *mod;		/* NULL until reported (or failed) */
	uint64_t bias;			/* ELF vaddr + bias = address */
	int bias_state;			/* 0 not known yet, 1 ok, -1 none */
	unsigned reported : 1;		/* tried: do not try again */
	unsigned jit : 1;		/* a jitted-*.so */
};

/* A symbolized pc: perf's symbol and object names. */
struct sym {
	const char *sym, *dso;
	unsigned jit : 1, nosym : 1;
};

struct proc {
	struct unwind *u;
	pid_t pid;
	struct mapping *maps;
	size_t nr, alloc;
	Dwfl *dwfl;
	unsigned attached : 1, dirty : 1, need_full : 1;
	unsigned gen;			/* full report passes */
	struct umap syms;		/* pc -> struct sym * */
	/* the sample being unwound, and the registers to start from */
	const struct pd_sample *cur;
	Dwarf_Word init[NREGS];
	uint32_t init_valid;		/* bit per DWARF register */
	int mem_fail;
};

struct ksym {
	uint64_t addr;
	const char *name;
	const char *dso;		/* "[kernel.kallsyms]" or "[module]" */
};

struct unwind {
	char *dir;
	unsigned flags;			/* UNWIND_* */
	struct umap procs;		/* pid -> struct proc * */
	struct smap files;		/* resolved path -> struct file * */
	struct smap names;		/* interned strings */
	struct smap syms;		/* sym, dso, flags -> struct sym * */
	struct smap buildids;		/* filename -> hex build-id */
	struct ksym *ksyms;
	size_t nr_ksyms;
	char *kbuf;			/* the kallsyms text */
	struct umap kcache;		/* kernel pc -> struct sym * */
	int ksyms_loaded;
	const char *vdso_id;		/* the session's one saved vDSO's */
	int vdso_looked;		/* ...looked for (session_vdso_id()) */
	Dwfl_Callbacks cbs;
	char *debuginfo_path;
	struct unwind_stats st;
};

/* The one copy of the string s (len bytes), valid until unwind_free(). */
static inline const char *intern(struct unwind *u, const char *s, size_t len)
{
	return smap_get(&u->names, s, len, NULL)->key;
}

/* elffile.c */
int file_exists(const char *p);
struct file *file_at(struct unwind *u, const char *path);
int file_map(struct file *f);
void file_free(void *p);
int elf_layout(const struct mapping *m, uint64_t *bias, uint64_t *lo,
	       uint64_t *hi);
int map_bias(struct mapping *m);
Elf *file_elf(struct file *f);
struct file *debug_file(struct unwind *u, const char *path, Elf *elf);
const char *file_build_id(struct file *f);

/* maps.c */
const char *base_name(const char *p);
struct proc *proc_get(struct unwind *u, pid_t pid);
struct mapping *map_find(struct proc *p, uint64_t addr);
int mem_read(struct proc *p, uint64_t addr, uint64_t *v);
/* A process's state freed (maps, Dwfl, symbols). */
void proc_free(struct proc *p);
void proc_clear_syms(struct proc *p);

/* dwfl.c */
void dwfl_setup(struct unwind *u);
int proc_report(struct proc *p);
int dwfl_step(struct proc *p, Dwarf_Word *nregs, uint32_t *nvalid,
	      int *act);
/* libdwfl for the whole walk (UNWIND_DWFL_ONLY) */
int dwfl_walk(struct proc *p, struct unwind_frame *f, int max, int *status);

/* symbols.c */
const struct sym *symbolize(struct proc *p, uint64_t pc);
const struct sym *ksymbolize(struct unwind *u, uint64_t pc);
void ksyms_free(struct unwind *u);
void syms_free(struct unwind *u);

/* cfi.c: see unwind_sample() */

#endif
