/* SPDX-License-Identifier: MIT */
/*
 * tramp_unwind.h - jitdump record buffers and the .eh_frame +
 * .eh_frame_hdr of one trampoline.  No Python
 * dependency, so tests can build the unwind data of every architecture
 * (tests/fixtures/tramp-unwind.c).
 */
#ifndef TRAMP_UNWIND_H
#define TRAMP_UNWIND_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tramp_arch.h"

/* Little helpers to lay out jitdump records in native byte order. */
struct rec {
	unsigned char *buf;
	size_t len, alloc;
};

static int rec_put(struct rec *r, const void *p, size_t n)
{
	if (r->len + n > r->alloc) {
		size_t na = (r->len + n) * 2 + 256;
		unsigned char *nb = realloc(r->buf, na);

		if (!nb)
			return -1;
		r->buf = nb;
		r->alloc = na;
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	return 0;
}

static int rec_u32(struct rec *r, uint32_t v)
{
	return rec_put(r, &v, sizeof(v));
}

static int rec_u64(struct rec *r, uint64_t v)
{
	return rec_put(r, &v, sizeof(v));
}

static int rec_u8(struct rec *r, unsigned v)
{
	unsigned char c = (unsigned char)v;

	return rec_put(r, &c, 1);
}

static void rec_set_u32(struct rec *r, size_t off, uint32_t v)
{
	memcpy(r->buf + off, &v, sizeof(v));
}

static void rec_set_i32(struct rec *r, size_t off, int32_t v)
{
	memcpy(r->buf + off, &v, sizeof(v));
}

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/*
 * .eh_frame (one CIE, one FDE covering code_size bytes with the call
 * frame instructions fde/fde_len) followed by .eh_frame_hdr, laid out
 * for perf's synthesized ELF: .text at 0x80, .eh_frame at ALIGN_8(0x80 +
 * code size), .eh_frame_hdr right after it.  All pointers are relative.
 */
static int put_unwind_data_for(struct rec *r, const struct tramp_arch *a,
			       size_t code_size, const unsigned char *fde_insns,
			       size_t fde_len, size_t *eh_size,
			       size_t *hdr_size)
{
	size_t start = r->len, cie, fde, len_off, n;
	int32_t text_from_eh = (int32_t)ALIGN_UP(code_size, 8);
	int rc = 0;

	/* CIE */
	cie = r->len;
	rc |= rec_u32(r, 0);			/* length, patched */
	rc |= rec_u32(r, 0);			/* CIE id */
	rc |= rec_u8(r, 1);			/* version */
	rc |= rec_put(r, "zR", 3);		/* augmentation + NUL */
	rc |= rec_u8(r, a->code_align);	/* ULEB128, < 0x80 */
	rc |= rec_u8(r, (unsigned char)a->data_align & 0x7f); /* SLEB */
	rc |= rec_u8(r, a->ra_reg);		/* ULEB128, < 0x80 */
	rc |= rec_u8(r, 1);			/* augmentation data length */
	rc |= rec_u8(r, DW_EH_PE_pcrel_sdata4);	/* FDE pointer encoding */
	rc |= rec_put(r, a->cie_insns, a->cie_insns_len);
	while ((r->len - cie) % 8)
		rc |= rec_u8(r, 0);		/* DW_CFA_nop */
	if (rc)
		return -1;
	rec_set_u32(r, cie, (uint32_t)(r->len - cie - 4));

	/* FDE */
	fde = r->len;
	rc |= rec_u32(r, 0);			/* length, patched */
	rc |= rec_u32(r, (uint32_t)(r->len - cie)); /* back to the CIE */
	len_off = r->len;
	rc |= rec_u32(r, 0);			/* pc_begin, patched */
	rc |= rec_u32(r, (uint32_t)code_size);	/* pc_range */
	rc |= rec_u8(r, 0);			/* augmentation data length */
	rc |= rec_put(r, fde_insns, fde_len);
	while ((r->len - fde) % 8)
		rc |= rec_u8(r, 0);
	if (rc)
		return -1;
	rec_set_u32(r, fde, (uint32_t)(r->len - fde - 4));
	/* pc_begin: .text minus the address of this field */
	rec_set_i32(r, len_off,
		    -(text_from_eh + (int32_t)(len_off - start)));
	*eh_size = r->len - start;

	/* .eh_frame_hdr */
	n = r->len;
	rc |= rec_u8(r, 1);			/* version */
	rc |= rec_u8(r, DW_EH_PE_pcrel_sdata4);	/* eh_frame_ptr encoding */
	rc |= rec_u8(r, DW_EH_PE_udata4);	/* fde_count encoding */
	rc |= rec_u8(r, DW_EH_PE_datarel_sdata4); /* table encoding */
	rc |= rec_u32(r, (uint32_t)-(int32_t)(*eh_size + 4));
	rc |= rec_u32(r, 1);			/* fde_count */
	rc |= rec_u32(r, (uint32_t)-(text_from_eh + (int32_t)*eh_size));
	rc |= rec_u32(r, (uint32_t)-(int32_t)(*eh_size - (fde - start)));
	if (rc)
		return -1;
	*hdr_size = r->len - n;
	return 0;
}

/* The unwind data of one trampoline. */
static inline int put_unwind_data(struct rec *r, const struct tramp_arch *a,
				  size_t *eh_size, size_t *hdr_size)
{
	return put_unwind_data_for(r, a, a->code_size, a->fde_insns,
				   a->fde_insns_len, eh_size, hdr_size);
}

/*
 * The call frame instructions of a whole arena of nslots trampolines
 * slot_size bytes apart: the template's rows repeated for every slot.
 * The template's first instruction is an advance; for every slot after
 * the first it also advances over the rest of the previous slot, whose
 * last row (CFA back at the entry rule) holds until the next slot's
 * first change.  Returns -1 if a merged advance would not fit the
 * one-byte form (never for the templates in tramp_arch.h).
 */
static inline int put_arena_fde_insns(struct rec *r, const struct tramp_arch *a,
			       size_t slot_size, size_t nslots)
{
	const unsigned char *t = a->fde_insns;
	size_t i, span = 0, units = slot_size / a->code_align, gap;
	int rc = 0;

	/* Sum of the template's advances (DW_CFA_advance_loc only). */
	for (i = 0; i < a->fde_insns_len; i++) {
		unsigned char op = t[i];

		if ((op & 0xc0) == 0x40)
			span += op & 0x3f;
		else if ((op & 0xc0) == 0x80 || op == DW_CFA_def_cfa_offset)
			i++;		/* one ULEB128 operand, < 0x80 */
		else if (op == DW_CFA_def_cfa)
			i += 2;
	}
	if ((t[0] & 0xc0) != 0x40 || span > units)
		return -1;
	gap = units - span;
	if ((t[0] & 0x3f) + gap > 0x3f)
		return -1;
	for (i = 0; i < nslots && !rc; i++) {
		if (i == 0) {
			rc |= rec_put(r, t, a->fde_insns_len);
		} else {
			rc |= rec_u8(r, DW_CFA_advance_loc((t[0] & 0x3f) + gap));
			rc |= rec_put(r, t + 1, a->fde_insns_len - 1);
		}
	}
	return rc ? -1 : 0;
}

#endif /* TRAMP_UNWIND_H */
