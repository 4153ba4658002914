/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libdwfl, one Dwfl per process, for the frames whose CFI the fast
 * path does not compile (single steps), or for whole walks under
 * UNWIND_DWFL_ONLY.  Modules are the process's non-jitted mappings
 * (jitted ones too under UNWIND_DWFL_ONLY), reported lazily with
 * dwfl_report_module() and a find_elf handing out elf_memory() on our
 * copy of the file: no file descriptor per module (thousands of jitted
 * objects per process would pass RLIMIT_NOFILE).  The thread callbacks
 * answer with the sample's registers and mem_read().  Calls into
 * maps.c and elffile.c only (see unwind_priv.h).
 */
#include "compat.h"
#include "alloc.h"
#include "unwind/unwind_priv.h"

#include <dwarf.h>

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return p->cur ? p->cur->tid : 0;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg,
			  void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	uint64_t v;

	(void)dwfl;
	if (mem_read(arg, addr, &v) < 0)
		return false;
	*result = v;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct proc *p = arg;
	int r;

	for (r = 0; r < NREGS; r++) {
		if (!(p->init_valid >> r & 1))
			continue;
		if (!dwfl_thread_state_registers(thread, r, 1, &p->init[r]))
			return false;
	}
	if (p->init_valid >> REG_RA & 1)
		dwfl_thread_state_register_pc(thread, p->init[REG_RA]);
	return true;
}

/*
 * No separate debuginfo for libdwfl: its only use here would be
 * .debug_frame for a pc without .eh_frame, and looking for it loads
 * and decompresses the whole debug file (zlib was 14-21% of a run),
 * in every process.  Symbols come from fsyms_load(), which finds the
 * debug file's .symtab itself.
 */
static int cb_find_debuginfo(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink,
			     GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink;
	(void)crc;
	(void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/*
 * libdwfl's find_elf: the module's image from our copy of the file
 * (set as its userdata by report_one()), so that no file descriptor
 * stays open per module: there can be thousands of jitted-*.so in
 * each of many processes, past RLIMIT_NOFILE.
 */
static int cb_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct file *f = *userdata;

	(void)mod;
	(void)name;
	(void)base;
	*elfp = NULL;
	if (!f || file_map(f) < 0)
		return -1;
	*elfp = elf_memory((char *)f->map, f->size);
	if (*elfp && !*file_name)
		*file_name = xstrdup(f->path);
	return -1;
}

static void report_one(struct proc *p, struct mapping *m)
{
	struct unwind *u = p->u;
	uint64_t bias = 0, lo, hi;
	void **ud;
	struct file *f = m->f;

	m->reported = 1;
	m->mod = NULL;
	if (!f || elf_layout(m, &bias, &lo, &hi) < 0)
		return;
	/* another mapping of the same file, in this pass or before */
	if (f->last_proc == p && f->last_gen == p->gen && f->last_mod) {
		Dwarf_Addr olo, ohi;

		dwfl_module_info(f->last_mod, NULL, &olo, &ohi, NULL, NULL,
				 NULL, NULL);
		if (olo == lo && ohi == hi) {
			m->mod = f->last_mod;
			return;
		}
	}
	m->mod = dwfl_report_module(p->dwfl, m->name, lo, hi);
	if (!m->mod) {
		u->st.module_errors++;
		return;
	}
	dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = f;
	f->last_proc = p;
	f->last_mod = m->mod;
	f->last_gen = p->gen;
	u->st.modules++;
}

/* Bring the Dwfl in line with the mappings. */
int proc_report(struct proc *p)
{
	struct unwind *u = p->u;
	size_t i;

	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&u->cbs);
		if (!p->dwfl)
			return -1;
		u->st.dwfl_new++;
		p->need_full = 0;
	}
	if (p->need_full) {
		/*
		 * Name every module we keep again (dwfl_report_module()
		 * with its range finds the existing one); the others
		 * are dropped by dwfl_report_end().
		 */
		dwfl_report_begin(p->dwfl);
		for (i = 0; i < p->nr; i++) {
			struct mapping *m = &p->maps[i];
			Dwarf_Addr lo, hi;
			const char *name;

			if (!m->mod)
				continue;
			dwfl_module_info(m->mod, NULL, &lo, &hi, NULL, NULL,
					 &name, NULL);
			m->mod = dwfl_report_module(p->dwfl, name, lo, hi);
		}
		u->st.full_reports++;
		p->gen++;
	} else {
		dwfl_report_begin_add(p->dwfl);
	}
	for (i = 0; i < p->nr; i++)
		if (!p->maps[i].reported &&
		    !(p->maps[i].jit && !(u->flags & UNWIND_DWFL_ONLY)))
			report_one(p, &p->maps[i]);
	dwfl_report_end(p->dwfl, NULL, NULL);
	u->st.reports++;
	p->dirty = 0;
	p->need_full = 0;
	proc_clear_syms(p);
	if (!p->attached &&
	    dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_cbs, p))
		p->attached = 1;
	return p->attached ? 0 : -1;
}

struct walk {
	struct unwind_frame *f;
	int n, max, depth;
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (w->n >= w->max) {
		w->depth = 1;
		return DWARF_CB_ABORT;
	}
	memset(&w->f[w->n], 0, sizeof(w->f[w->n]));
	w->f[w->n].pc = pc;
	w->f[w->n].activation = act;
	w->n++;
	return DWARF_CB_OK;
}

struct step {
	Dwarf_Word *regs;
	uint32_t valid;
	int n, got, act;
};

static int step_cb(Dwfl_Frame *state, void *arg)
{
	struct step *st = arg;
	Dwarf_Addr pc;
	bool act;
	int r;

	if (st->n++ == 0)
		return DWARF_CB_OK;	/* the frame we start from */
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	for (r = 0; r < NREGS; r++) {
		Dwarf_Word v;

		if (dwfl_frame_reg(state, (unsigned)r, &v) == 0) {
			st->regs[r] = v;
			st->valid |= 1u << r;
		}
	}
	st->regs[REG_RA] = pc;
	st->valid |= 1u << REG_RA;
	st->act = act;
	st->got = 1;
	return DWARF_CB_ABORT;
}

/*
 * One step by libdwfl from p->init, for a row the fast path does not
 * compile (a CFA expression, no .eh_frame entry): the caller's state
 * in nregs.  1 done, 0 the end of the chain, -1 an error.
 * NEEDSWORK: libdwfl takes the state as an activation, so for a return
 * address it looks up pc, not pc - 1.
 */
int dwfl_step(struct proc *p, Dwarf_Word *nregs, uint32_t *nvalid,
		     int *act)
{
	struct step st;
	int r;

	if ((p->dirty || !p->attached) && proc_report(p) < 0)
		return -1;
	memset(&st, 0, sizeof(st));
	st.regs = nregs;
	r = dwfl_getthread_frames(p->dwfl, p->cur->tid, step_cb, &st);
	if (st.got) {
		*nvalid = st.valid;
		*act = st.act;
		return 1;
	}
	return r == 0 ? 0 : -1;
}


/*
 * The whole walk by libdwfl: the frames filled; *status 0 at the end of
 * the chain, 1 at max frames, -1 where it failed.
 */
int dwfl_walk(struct proc *p, struct unwind_frame *f, int max, int *status)
{
	struct walk w;
	int r;

	memset(&w, 0, sizeof(w));
	w.f = f;
	w.max = max;
	*status = -1;
	if ((p->dirty || !p->attached) && proc_report(p) < 0)
		return 0;
	r = dwfl_getthread_frames(p->dwfl, p->cur->tid, frame_cb, &w);
	*status = w.depth ? 1 : r ? -1 : 0;
	return w.n;
}

void dwfl_setup(struct unwind *u)
{
	u->cbs.find_elf = cb_find_elf;
	u->cbs.find_debuginfo = cb_find_debuginfo;
	u->cbs.debuginfo_path = &u->debuginfo_path;
}
