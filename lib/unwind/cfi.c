/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fast path of DWARF unwinding, and unwind_sample().
 *
 * From the sample's registers, each frame is one hash lookup of a
 * compiled CFI row (CFA = reg + off, simple register rules), compiled
 * once per address of each file from its .eh_frame with libdw, and a
 * few 8-byte reads (mem_read(): the stack dump for [sp, sp +
 * dyn_size), else the mapped file).  Where a row is not simple (a CFA
 * expression other than the lazy-PLT one, no .eh_frame entry) libdwfl
 * does one step (dwfl.c) and the fast path goes on from its result.
 * Above dwfl.c, symbols.c, maps.c and elffile.c; only unwind.c is
 * above it (see unwind_priv.h).
 */
#include "compat.h"
#include "alloc.h"
#include "byteorder.h"
#include "unwind/unwind_priv.h"

#include <dwarf.h>

/*
 * perf's x86_64 user register order (PERF_REG_X86_*: ax bx cx dx si di
 * bp sp ip flags cs ss ds es fs gs r8..r15) to DWARF numbers (rax rdx
 * rcx rbx rsi rdi rbp rsp r8..r15 rip=16); -1: not a DWARF register.
 */
static const signed char x86_64_dwarf[24] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1,
	8, 9, 10, 11, 12, 13, 14, 15,
};

/* The sample's user registers in DWARF numbering; 0 when none. */
static uint32_t sample_regs(const struct pd_sample *s, Dwarf_Word *regs)
{
	uint64_t mask = s->attr->sample_regs_user;
	uint32_t valid = 0;
	int bit, k = 0;

	for (bit = 0; bit < 64 && k < s->nr_regs; bit++) {
		if (!(mask >> bit & 1))
			continue;
		if (bit < 24 && x86_64_dwarf[bit] >= 0) {
			regs[x86_64_dwarf[bit]] = get_le64(s->regs + 8 * k);
			valid |= 1u << x86_64_dwarf[bit];
		}
		k++;
	}
	return valid;
}

/*
 * Compile the CFI row for ELF address addr of f (already - 1 for return
 * addresses).  libdw's dwarf_cfi_addrframe() interprets the FDE's
 * instructions and allocates every time it is called, which is most of
 * libdwfl's own per-frame cost: we call it once per distinct address
 * of each file, whatever the number of processes.  Only .eh_frame:
 * looking for .debug_frame makes libdwfl load and decompress the whole
 * separate debuginfo (libz was 14% of a run), so that is left to the
 * libdwfl fallback.
 */
/*
 * The CFA expression binutils writes for x86_64 lazy PLT entries:
 * rsp + 8, plus 8 more once the entry has pushed its index (pc & 15 at
 * or past the push: 11, or 10 with IBT):
 *   breg7 8; breg16 0; lit15; and; litK; ge; lit3; shl; plus
 */
static int plt_cfa(const Dwarf_Op *o, size_t n, struct cfi_rule *ru)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[0].number != 8 ||
	    o[1].atom != DW_OP_breg16 || o[1].number != 0 ||
	    o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and ||
	    o[4].atom < DW_OP_lit1 || o[4].atom > DW_OP_lit15 ||
	    o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 ||
	    o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus)
		return -1;
	ru->cfa_reg = REG_SP;
	ru->cfa_off = 8;
	ru->plt_k = (uint8_t)(o[4].atom - DW_OP_lit0);
	return 0;
}

static void rule_compile(struct file *f, uint64_t addr, struct cfi_rule *ru)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	bool signal = false;
	int r;

	memset(ru, 0, sizeof(*ru));
	if (!file_elf(f) || !f->eh || dwarf_cfi_addrframe(f->eh, addr, &fr))
		return;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0)
		goto out;
	if (nops == 1 && ops[0].atom == DW_OP_bregx &&
	    ops[0].number < NREGS) {
		ru->cfa_reg = (uint8_t)ops[0].number;
		ru->cfa_off = (int64_t)ops[0].number2;
	} else if (plt_cfa(ops, nops, ru) < 0) {
		goto out;	/* another CFA expression */
	}
	for (r = 0; r < NREGS; r++) {
		if (dwarf_frame_register(fr, r, mem, &ops, &nops) != 0)
			goto out;
		if (!nops) {
			ru->r[r].kind = ops ? RULE_UNDEF : RULE_SAME;
			continue;
		}
		if (ops[0].atom == DW_OP_regx && nops == 1 &&
		    ops[0].number < NREGS) {
			ru->r[r].kind = RULE_REGISTER;
			ru->r[r].reg = (uint8_t)ops[0].number;
			continue;
		}
		if (ops[0].atom != DW_OP_call_frame_cfa)
			goto out;
		ru->r[r].kind = RULE_OFFSET;
		if (nops > 1 && ops[1].atom == DW_OP_plus_uconst) {
			ru->r[r].off = (int64_t)ops[1].number;
			ops++;
			nops--;
		}
		if (nops == 2 && ops[1].atom == DW_OP_stack_value)
			ru->r[r].kind = RULE_VAL_OFFSET;
		else if (nops != 1)
			goto out;
	}
	dwarf_frame_info(fr, NULL, NULL, &signal);
	ru->signal = signal;
	ru->ok = 1;
out:
	free(fr);
}

static const struct cfi_rule no_rule;

/*
 * The addresses a file keeps compiled rows for: a cache, emptied when
 * it holds this many.  A server's samples keep reaching new addresses
 * in the same few functions, so without a bound the table doubled
 * every few minutes of a long attach (+0.7 MB in the 4th minute of a
 * gunicorn worker, make bench BENCH_PARTS=l).  At this size (at most
 * 8,192 slots of 24 bytes, 192 KiB a file) the recorder's anonymous
 * memory stayed at 6.9 MB for the 4 minutes, at the same CPU (1.9 %
 * of a core); refilling costs a libdw lookup an address.  The
 * distinct rows themselves (rule_set) stay.
 */
#define CFI_ADDRS_MAX 4096u

/* The compiled row for pc in p (pc - 1 for return addresses). */
static const struct cfi_rule *rule_get(struct proc *p, uint64_t pc)
{
	struct mapping *m = map_find(p, pc);
	struct umap_ent *e;
	struct smap_ent *se;
	struct cfi_rule *ru, tmp;
	struct file *f;
	uint64_t addr;
	int added;

	if (!m || map_bias(m) < 0)
		return &no_rule;
	f = m->f;
	addr = pc - m->bias;
	e = umap_find(&f->rules, addr);
	if (e && e->val)
		return e->val;
	/* compiled into zeroed memory: equal rules are equal bytes */
	rule_compile(f, addr, &tmp);
	se = smap_get(&f->rule_set, (const char *)&tmp, sizeof(tmp), &added);
	if (added) {
		se->val = xmalloc(sizeof(tmp));
		memcpy(se->val, &tmp, sizeof(tmp));
	}
	ru = se->val;
	if (f->rules.nr >= CFI_ADDRS_MAX)
		umap_release(&f->rules);
	umap_get(&f->rules, addr, NULL)->val = ru;
	return ru;
}

/* Apply a compiled row to regs: the caller's registers in nregs. */
static int apply_rule(struct proc *p, const struct cfi_rule *ru,
		      const Dwarf_Word *regs, uint32_t valid,
		      Dwarf_Word *nregs, uint32_t *nvalid)
{
	uint64_t cfa, v;
	int r;

	*nvalid = 0;
	if (!(valid >> ru->cfa_reg & 1))
		return -1;
	cfa = regs[ru->cfa_reg] + (uint64_t)ru->cfa_off;
	if (ru->plt_k && (regs[REG_RA] & 15) >= ru->plt_k)
		cfa += 8;
	for (r = 0; r < NREGS; r++) {
		switch (ru->r[r].kind) {
		case RULE_UNDEF:
			continue;
		case RULE_SAME:
			if (!(valid >> r & 1))
				continue;
			v = regs[r];
			break;
		case RULE_OFFSET:
			/*
			 * A save slot below the frame's sp has been popped:
			 * past an epilogue's pop or leave, compilers keep the
			 * register's rule (no .cfi_restore) while the
			 * register already holds the caller's value again.
			 * The kernel copies the stack from sp up, so the
			 * slot cannot be read either (both perf unwinders
			 * stop there: a sample on the ret of a function
			 * with a frame pointer lost its callers).
			 */
			if (r != REG_RA && (valid >> r & 1) &&
			    (valid >> REG_SP & 1) &&
			    cfa + (uint64_t)ru->r[r].off + 8 <= regs[REG_SP]) {
				v = regs[r];
				break;
			}
			if (mem_read(p, cfa + (uint64_t)ru->r[r].off, &v) < 0) {
				if (r == REG_RA)
					return -1;
				continue;
			}
			break;
		case RULE_VAL_OFFSET:
			v = cfa + (uint64_t)ru->r[r].off;
			break;
		default:
			if (!(valid >> ru->r[r].reg & 1))
				continue;
			v = regs[ru->r[r].reg];
			break;
		}
		nregs[r] = v;
		*nvalid |= 1u << r;
	}
	nregs[REG_SP] = cfa;
	*nvalid |= 1u << REG_SP;
	return 0;
}

/*
 * Unwind from p->init with compiled rows, and single libdwfl steps
 * where a row is not simple.  1 at the end of the chain (return
 * address undefined or 0, or max frames), -1 on a failed read or a
 * stack that does not move.
 */
/* Is pc in code without a file (JIT arenas, perf-map code)? */
static int anon_code(struct proc *p, uint64_t pc)
{
	const struct mapping *m = map_find(p, pc);

	return m && !m->f;
}

/*
 * Code without a file has no CFI: step by the frame pointer, as
 * libdwfl's x86_64 fallback does (the caller's rbp at [rbp], its pc
 * at [rbp + 8], its sp rbp + 16; nothing else known).
 */
static int fp_step(struct proc *p, const Dwarf_Word *regs, uint32_t valid,
		   Dwarf_Word *nregs, uint32_t *nvalid)
{
	uint64_t fp, prev = 0, ret;

	*nvalid = 0;
	if (!(valid >> 6 & 1) || !(valid >> REG_SP & 1))
		return -1;
	fp = regs[6];
	if (mem_read(p, fp + 8, &ret) < 0)
		return -1;
	if (mem_read(p, fp, &prev) == 0) {
		nregs[6] = prev;
		*nvalid |= 1u << 6;
	}
	nregs[REG_SP] = fp + 16;
	nregs[REG_RA] = ret;
	*nvalid |= 1u << REG_SP | 1u << REG_RA;
	return 0;
}

static int fast_walk(struct proc *p, struct unwind_frame *f, int max,
		     int *nr, int *depth)
{
	Dwarf_Word *regs = p->init, nregs[NREGS];
	uint32_t valid = p->init_valid, nvalid;
	int a = 1, na, r;

	while (valid >> REG_RA & 1) {
		uint64_t pc = regs[REG_RA];
		const struct cfi_rule *ru;

		if (!pc)
			return 1;
		if (*nr >= max) {
			*depth = 1;
			return 1;
		}
		memset(&f[*nr], 0, sizeof(f[*nr]));
		f[*nr].pc = pc;
		f[*nr].activation = (unsigned)a;
		(*nr)++;
		ru = rule_get(p, a ? pc : pc - 1);
		if (ru->ok) {
			if (apply_rule(p, ru, regs, valid, nregs, &nvalid) < 0)
				return -1;
			na = ru->signal;
		} else if (anon_code(p, pc)) {
			if (fp_step(p, regs, valid, nregs, &nvalid) < 0)
				return -1;
			na = 0;
		} else {
			p->u->st.fallbacks++;
			if (!a)
				p->u->st.fallbacks_ret++;
			p->init_valid = valid;	/* regs is p->init */
			r = dwfl_step(p, nregs, &nvalid, &na);
			if (r <= 0)
				return r == 0 ? 1 : -1;
		}
		if (!(nvalid >> REG_RA & 1))
			return 1;	/* outermost: RA undefined */
		if (!(nvalid >> REG_SP & 1) ||
		    (nregs[REG_SP] <= regs[REG_SP] && !ru->signal))
			return -1;	/* no progress */
		memcpy(regs, nregs, sizeof(nregs));
		valid = nvalid;
		a = na;
	}
	return 1;
}

/*
 * Name the user frames [from, to) of f in p, as perf does (a DWARF
 * unwind's callers already at their return address - 1: dwarf_user();
 * frame-pointer chains as the kernel gave them).
 */
static void name_user(struct proc *p, struct unwind_frame *f, int from,
		      int to)
{
	int k;

	for (k = from; k < to; k++) {
		const struct sym *sy;

		sy = symbolize(p, f[k].pc);
		f[k].sym = sy->sym;
		f[k].dso = sy->dso;
		f[k].jit = sy->jit;
		f[k].nosym = sy->nosym;
		f[k].kernel = 0;
	}
}

static void put_kernel(struct unwind *u, struct unwind_frame *f, uint64_t pc)
{
	const struct sym *sy = ksymbolize(u, pc);

	memset(f, 0, sizeof(*f));
	f->pc = pc;
	f->kernel = 1;
	f->activation = 1;
	f->sym = sy->sym;
	f->dso = sy->dso;
	f->nosym = sy->nosym;
}

/*
 * The DWARF unwind of sample s's user part into f[n..max): frames from
 * its registers and stack dump, callers at their return address - 1,
 * not named.  Returns the new n; res's stop and nr_user say how it went.
 */
static int dwarf_user(struct proc *p, const struct pd_sample *s,
		      struct unwind_frame *f, int n, int max,
		      struct unwind_result *res)
{
	int user_from = n, depth = 0, r, k;

	if (!s->regs || !s->have_stack || !s->have_sp || n >= max) {
		res->stop = n >= max ? UNWIND_STOP_DEPTH : UNWIND_STOP_NODUMP;
		return n;
	}
	p->cur = s;
	p->mem_fail = 0;
	p->init_valid = sample_regs(s, p->init);
	if (p->u->flags & UNWIND_DWFL_ONLY) {
		n += dwfl_walk(p, f + n, max - n, &r);
		if (r > 0)
			res->stop = UNWIND_STOP_DEPTH;
		else if (r < 0)
			res->stop = p->mem_fail ? UNWIND_STOP_MEMORY :
				    UNWIND_STOP_NOCFI;
	} else {
		r = fast_walk(p, f, max, &n, &depth);
		if (r > 0)
			res->stop = depth ? UNWIND_STOP_DEPTH :
					    UNWIND_STOP_END;
		else
			res->stop = p->mem_fail ? UNWIND_STOP_MEMORY :
				    UNWIND_STOP_OTHER;
	}
	p->cur = NULL;
	/*
	 * A return address is after its call: perf looks callers of a
	 * DWARF unwind up at pc - 1, where the call is (the call may be a
	 * function's last instruction), and shows that address.
	 */
	for (k = user_from; k < n; k++)
		if (!f[k].activation)
			f[k].pc--;
	res->nr_user = n - user_from;
	return n;
}

int unwind_sample(struct unwind *u, const struct pd_sample *s,
		  struct unwind_frame *f, int max, struct unwind_result *res)
{
	struct proc *p = proc_get(u, s->pid);
	int n = 0, user_from;
	/* DWARF mode: the attr asked for a stack dump */
	int dwarf = s->attr && s->attr->sample_stack_user;

	memset(res, 0, sizeof(*res));
	u->st.samples++;
	if (max <= 0)
		return 0;
	if (s->callchain) {
		uint64_t i, ctx = PERF_CONTEXT_KERNEL;

		for (i = 0; i < s->nr_callchain && n < max; i++) {
			uint64_t pc = get_le64(s->callchain + 8 * i);

			if (pc >= PERF_CONTEXT_MAX) {
				/*
				 * The kernel writes its own frames before the
				 * user ones, so a marker after user frames is
				 * a word that the kernel's frame-pointer walk
				 * of user code took from the stack (code
				 * built without frame pointers): -128 reads as
				 * PERF_CONTEXT_KERNEL.  The chain is garbage
				 * from there on; it ends.
				 */
				if (ctx == PERF_CONTEXT_USER)
					break;
				ctx = pc;
				continue;
			}
			if (ctx == PERF_CONTEXT_KERNEL) {
				put_kernel(u, &f[n++], pc);
			} else if (ctx == PERF_CONTEXT_USER && !dwarf) {
				memset(&f[n], 0, sizeof(f[n]));
				f[n].pc = pc;
				f[n].activation = !res->nr_user;
				res->nr_user++;
				n++;
			}
		}
		res->nr_kernel = n - res->nr_user;
		if (!dwarf) {
			name_user(p, f, res->nr_kernel, n);
			if (n >= max)
				res->stop = UNWIND_STOP_DEPTH;
			u->st.frames += (uint64_t)n;
			return n;
		}
	} else if (!dwarf) {
		/* no callchain: the sample's ip alone */
		if (s->ip >= 0xffff800000000000ULL) {
			put_kernel(u, &f[n++], s->ip);
			res->nr_kernel = 1;
		} else {
			memset(&f[n], 0, sizeof(f[n]));
			f[n].pc = s->ip;
			f[n].activation = 1;
			name_user(p, f, 0, 1);
			res->nr_user = 1;
			n++;
		}
		u->st.frames += (uint64_t)n;
		return n;
	}
	res->nr_kernel = n;
	user_from = n;
	n = dwarf_user(p, s, f, n, max, res);
	name_user(p, f, user_from, n);
	u->st.frames += (uint64_t)n;
	return n;
}

int unwind_user(struct unwind *u, const struct pd_sample *s, uint64_t *pcs,
		int max, struct unwind_result *res)
{
	struct unwind_frame f[UNWIND_USER_MAX];
	int n, k;

	memset(res, 0, sizeof(*res));
	if (max > UNWIND_USER_MAX)
		max = UNWIND_USER_MAX;
	if (max <= 0)
		return 0;
	n = dwarf_user(proc_get(u, s->pid), s, f, 0, max, res);
	for (k = 0; k < n; k++)
		pcs[k] = f[k].pc;
	u->st.samples++;
	u->st.frames += (uint64_t)n;
	return n;
}
