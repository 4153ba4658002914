/* SPDX-License-Identifier: MIT */
/*
 * tramp_arch.h - machine-code trampoline templates and their DWARF call
 * frame information, per architecture.
 *
 * A trampoline is called as  t(a, b, c, eval)  and calls  eval(a, b, c),
 * returning its result.  The evaluator is the 4th integer argument:
 * %rcx on x86-64, x3 on aarch64.  Only the template for the build
 * architecture is used; both are plain data, so the aarch64 one (and its
 * unwind rules) is reviewed here but never executed on x86-64.
 *
 * Unwind rules (what perf's DWARF unwinder needs for a jitted function):
 *
 * x86-64  off 0: sub $8,%rsp        CFA = rsp+8,  RA at CFA-8
 *         off 4: call *%rcx         CFA = rsp+16
 *         off 6: add $8,%rsp        CFA = rsp+16
 *         off 10: ret               CFA = rsp+8
 * aarch64 off 0: stp x29,x30,[sp,#-16]!   CFA = sp+0
 *         off 4: mov x29,sp               CFA = sp+16, x29 at -16, x30 at -8
 *         off 8: blr x3
 *         off 12: ldp x29,x30,[sp],#16
 *         off 16: ret                     CFA = sp+0, x29/x30 restored
 */
#ifndef TRAMP_ARCH_H
#define TRAMP_ARCH_H

/* DWARF call frame instruction opcodes used below. */
#define DW_CFA_advance_loc(n)	(0x40 | (n))
#define DW_CFA_offset(r)	(0x80 | (r))
#define DW_CFA_restore(r)	(0xc0 | (r))
#define DW_CFA_def_cfa		0x0c
#define DW_CFA_def_cfa_offset	0x0e
#define DW_EH_PE_pcrel_sdata4	0x1b
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_datarel_sdata4	0x3b

struct tramp_arch {
	const char *name;
	unsigned elf_machine;		/* EM_* for the jitdump header */
	const unsigned char *code;
	unsigned code_size;
	unsigned char code_align;	/* CIE code alignment factor */
	signed char data_align;		/* CIE data alignment factor */
	unsigned char ra_reg;		/* DWARF return address column */
	const unsigned char *cie_insns;	/* initial instructions */
	unsigned cie_insns_len;
	const unsigned char *fde_insns;
	unsigned fde_insns_len;
};

static const unsigned char tramp_x86_64_code[] = {
	0x48, 0x83, 0xec, 0x08,		/* sub    $0x8,%rsp */
	0xff, 0xd1,			/* call   *%rcx */
	0x48, 0x83, 0xc4, 0x08,		/* add    $0x8,%rsp */
	0xc3,				/* ret */
};

static const unsigned char tramp_x86_64_cie[] = {
	DW_CFA_def_cfa, 7, 8,		/* CFA = rsp + 8 */
	DW_CFA_offset(16), 1,		/* RA (r16) at CFA - 8 */
};

static const unsigned char tramp_x86_64_fde[] = {
	DW_CFA_advance_loc(4),		/* after sub */
	DW_CFA_def_cfa_offset, 16,
	DW_CFA_advance_loc(6),		/* after call + add */
	DW_CFA_def_cfa_offset, 8,
};

static const unsigned char tramp_aarch64_code[] = {
	0xfd, 0x7b, 0xbf, 0xa9,		/* stp x29, x30, [sp, #-16]! */
	0xfd, 0x03, 0x00, 0x91,		/* mov x29, sp */
	0x60, 0x00, 0x3f, 0xd6,		/* blr x3 */
	0xfd, 0x7b, 0xc1, 0xa8,		/* ldp x29, x30, [sp], #16 */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
};

static const unsigned char tramp_aarch64_cie[] = {
	DW_CFA_def_cfa, 31, 0,		/* CFA = sp + 0 */
};

static const unsigned char tramp_aarch64_fde[] = {
	DW_CFA_advance_loc(1),		/* 1 * 4: after stp */
	DW_CFA_def_cfa_offset, 16,
	DW_CFA_offset(29), 2,		/* x29 at CFA - 16 */
	DW_CFA_offset(30), 1,		/* x30 at CFA - 8 */
	DW_CFA_advance_loc(3),		/* 3 * 4: after ldp */
	DW_CFA_def_cfa_offset, 0,
	DW_CFA_restore(29),
	DW_CFA_restore(30),
};

static const struct tramp_arch tramp_arch_x86_64 = {
	"x86_64", 62, tramp_x86_64_code, sizeof(tramp_x86_64_code),
	1, -8, 16,
	tramp_x86_64_cie, sizeof(tramp_x86_64_cie),
	tramp_x86_64_fde, sizeof(tramp_x86_64_fde),
};

static const struct tramp_arch tramp_arch_aarch64 = {
	"aarch64", 183, tramp_aarch64_code, sizeof(tramp_aarch64_code),
	4, -8, 30,
	tramp_aarch64_cie, sizeof(tramp_aarch64_cie),
	tramp_aarch64_fde, sizeof(tramp_aarch64_fde),
};

#if defined(__x86_64__)
#define TRAMP_ARCH (&tramp_arch_x86_64)
#elif defined(__aarch64__)
#define TRAMP_ARCH (&tramp_arch_aarch64)
#else
#error "the pyperf trampoline supports x86-64 and aarch64 only"
#endif

#endif /* TRAMP_ARCH_H */
