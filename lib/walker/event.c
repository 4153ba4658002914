/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walker's events decoded (walker.h): every size and count the BPF
 * program wrote is checked against the bytes the ring buffer gave
 * before anything points past the fixed header, so that a short, torn
 * or hostile event is refused with the field that is wrong, never read
 * out of bounds.  The variable parts (registers, kernel frames, Python
 * frames, the user stack) are left as byte pointers, read with
 * get_le64() or walker_py_frame_at(), so that no pointer is cast at an
 * alignment the event does not promise.
 */
#include "compat.h"
#include "walker/walker.h"

#include <stdint.h>

/* The fixed part each event type starts with. */
static size_t fixed_size(uint32_t type)
{
	switch (type) {
	case WALKER_EV_SAMPLE:
	case WALKER_EV_OFFCPU:
		return sizeof(struct walker_sample);
	case WALKER_EV_ONCPU:
	case WALKER_EV_FORK:
	case WALKER_EV_EXEC:
	case WALKER_EV_EXIT:
		return sizeof(struct walker_task);
	case WALKER_EV_LOST:
		return sizeof(struct walker_lost);
	case WALKER_EV_WAKING:
		return sizeof(struct walker_waking);
	}
	return 0;
}

/*
 * The parts after a sample's or a waking's fixed header (hsize bytes):
 * registers, nk kernel frames, npy Python frames, ulen stack bytes.
 */
static int decode_parts(const unsigned char *p, size_t size, size_t hsize,
			unsigned nk, unsigned npy, unsigned ulen,
			struct walker_decoded *out, char *err, size_t errlen)
{
	uint64_t need, at;

	if (nk > WALKER_MAX_KSTACK)
		return set_err(err, errlen,
			       "sample with %u kernel frames (at most %u)",
			       nk, WALKER_MAX_KSTACK);
	if (npy > WALKER_MAX_PY_FRAMES)
		return set_err(err, errlen,
			       "sample with %u Python frames (at most %u)",
			       npy, WALKER_MAX_PY_FRAMES);
	if (ulen > WALKER_USTACK_MAX)
		return set_err(err, errlen,
			       "sample with %u bytes of user stack (at most "
			       "%u)", ulen, WALKER_USTACK_MAX);
	/* the caps above keep this sum far from overflowing 64 bits */
	need = hsize + 8ull * WALKER_NR_REGS + 8ull * nk +
	       (uint64_t)sizeof(struct walker_py_frame) * npy + ulen;
	if (need > size)
		return set_err(err, errlen,
			       "sample of %zu bytes holds less than its "
			       "registers, %u kernel frames, %u Python frames "
			       "and %u stack bytes (%llu bytes)", size, nk, npy,
			       ulen, (unsigned long long)need);
	at = hsize;
	out->regs = p + at;
	at += 8ull * WALKER_NR_REGS;
	out->kstack = p + at;
	at += 8ull * nk;
	out->py = p + at;
	at += (uint64_t)sizeof(struct walker_py_frame) * npy;
	out->ustack = p + at;
	out->nr_kstack = nk;
	out->nr_py = npy;
	out->ustack_len = ulen;
	return 0;
}

static int decode_sample(const unsigned char *p, size_t size,
			 struct walker_decoded *out, char *err,
			 size_t errlen)
{
	const struct walker_sample *s = (const void *)p;

	if (decode_parts(p, size, sizeof(*s), s->nr_kstack, s->nr_py,
			 s->ustack_len, out, err, errlen) < 0)
		return -1;
	out->sample = s;
	return 0;
}

static int decode_waking(const unsigned char *p, size_t size,
			 struct walker_decoded *out, char *err,
			 size_t errlen)
{
	const struct walker_waking *w = (const void *)p;

	if (w->context > WALKER_WAKE_NMI)
		return set_err(err, errlen, "waking in unknown context %u",
			       (unsigned)w->context);
	if (decode_parts(p, size, sizeof(*w), w->nr_kstack, w->nr_py,
			 w->ustack_len, out, err, errlen) < 0)
		return -1;
	out->waking = w;
	return 0;
}

int walker_decode(const void *ev, size_t len, struct walker_decoded *out,
		  char *err, size_t errlen)
{
	const unsigned char *p = ev;
	const struct walker_ev_hdr *h = ev;
	size_t fixed;

	memset(out, 0, sizeof(*out));
	if (!ev || len < sizeof(*h))
		return set_err(err, errlen,
			       "event of %zu bytes is shorter than its header "
			       "(%zu bytes)", len, sizeof(*h));
	/* the ring buffer gives 8-byte aligned records; the structs need it */
	if ((uintptr_t)ev % 8)
		return set_err(err, errlen, "event at a misaligned address");
	fixed = fixed_size(h->type);
	if (!fixed)
		return set_err(err, errlen, "event of unknown type %u",
			       (unsigned)h->type);
	if (h->size > len)
		return set_err(err, errlen,
			       "event says %u bytes, the ring buffer gave %zu",
			       (unsigned)h->size, len);
	if (h->size < fixed)
		return set_err(err, errlen,
			       "event of type %u has %u bytes, fewer than its "
			       "%zu-byte header", (unsigned)h->type,
			       (unsigned)h->size, fixed);
	out->hdr = h;
	switch (h->type) {
	case WALKER_EV_SAMPLE:
	case WALKER_EV_OFFCPU:
		if (decode_sample(p, h->size, out, err, errlen) < 0) {
			memset(out, 0, sizeof(*out));
			return -1;
		}
		break;
	case WALKER_EV_WAKING:
		if (decode_waking(p, h->size, out, err, errlen) < 0) {
			memset(out, 0, sizeof(*out));
			return -1;
		}
		break;
	case WALKER_EV_LOST:
		out->lost = ((const struct walker_lost *)ev)->lost;
		break;
	default:
		out->task = ev;
		break;
	}
	return 0;
}

void walker_py_frame_at(const struct walker_decoded *d, unsigned i,
			struct walker_py_frame *out)
{
	if (!d->py || i >= d->nr_py) {
		memset(out, 0, sizeof(*out));
		return;
	}
	memcpy(out, d->py + (size_t)i * sizeof(*out), sizeof(*out));
}
