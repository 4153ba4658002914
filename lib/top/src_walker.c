/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top's frame-walker source (top_priv.h): the in-kernel walker
 * (walker/wrecord.h) instead of a libperf event, for top --mode bpf and
 * top -p.  The recording's records go, in time order, into the same
 * native stream the ring buffers feed (report/src_native.h), made on
 * the walker's attrs; the stream names the Python frames of their raw
 * part from the code objects the recording names while it runs.
 */
#include "compat.h"
#include "top/top_priv.h"

#ifdef PPR_HAVE_LIBPERF
#include "alloc.h"
#include "report/src_native.h"
#include "walker/wrecord.h"

/* One record of the recording, into the stream. */
static int on_record(void *data, const void *rec, size_t len)
{
	struct top *t = data;
	const unsigned char *h = rec;
	struct pd_record r;
	uint16_t size;

	if (len < 8)
		return 0;
	memcpy(&r.type, h, 4);
	memcpy(&r.misc, h + 4, 2);
	memcpy(&size, h + 6, 2);
	if (size < 8 || size > len)
		return 0;
	r.len = size - 8u;
	r.body = h + 8;
	r.offset = 0;
	if (r.type == PD_RECORD_FORK) {
		struct pd_task tk;

		if (!perfdata_decode_task(&r, &tk))
			top_note_pid(t, tk.pid);
	} else if (r.type == PD_RECORD_LOST && r.len >= 16) {
		uint64_t lost;

		memcpy(&lost, r.body + 8, 8);
		t->st.lost += lost;
	}
	native_stream_record(t->ns, &r);
	return 0;
}

int walker_src_open(struct top *t, char *err, size_t errlen)
{
	struct wrec_opts wo;
	int errnum = 0;

	memset(&wo, 0, sizeof(wo));
	wo.session_dir = t->o.session_dir;
	wo.record_fn = on_record;
	wo.record_data = t;
	wo.freq = t->o.freq;
	wo.ustack_bytes = t->o.stack_size;
	wo.max_py_frames = WALKER_MAX_PY_FRAMES;
	wo.follow_children = 1;
	wo.wall = t->o.wall;	/* switch-out stacks, walked too */
	wo.wakers = t->o.wall && t->o.wakers;	/* each wait's waker */
	if (wrec_start(&t->wrec, &wo, &errnum, err, errlen) < 0)
		return -1;
	if (wrec_image(t->wrec, &t->image, &t->image_len, err, errlen) < 0 ||
	    perfdata_open_mem(&t->d, t->image, t->image_len, err,
			      errlen) < 0 ||
	    native_stream_new(&t->ns, &t->d, t->o.session_dir, 0,
			      top_keep_sample, t, err, errlen) < 0)
		return -1;
	/* the recording's cache: names frames as their samples come */
	native_stream_set_pycode(t->ns,
				 (struct pycode_cache *)wrec_codes(t->wrec));
	return 0;
}

int walker_src_watch(struct top *t, pid_t pid, int before_exec, char *err,
		     size_t errlen)
{
	top_note_pid(t, pid);
	return wrec_add_pid(t->wrec, pid, before_exec ? WREC_BEFORE_EXEC : 0,
			    err, errlen);
}

int walker_src_attach(struct top *t, char *err, size_t errlen)
{
	return wrec_attach(t->wrec, err, errlen);
}

void walker_src_poll(struct top *t, int timeout_ms)
{
	char err[PPR_ERR_LEN];

	wrec_poll(t->wrec, timeout_ms, err, sizeof(err));
}

void walker_src_close(struct top *t)
{
	char err[PPR_ERR_LEN];

	if (!t->wrec)
		return;
	/* the rest of the ring buffer into the stream, then detach */
	wrec_finish(t->wrec, err, sizeof(err));
	wrec_free(t->wrec);
	t->wrec = NULL;
	native_stream_free(t->ns);
	t->ns = NULL;
}

#endif
