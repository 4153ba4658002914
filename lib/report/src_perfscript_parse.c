/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "alloc.h"
#include "numparse.h"
#include "report/src_perfscript_parse.h"

void perfscript_init(struct perfscript *ps, sample_fn cb, void *data)
{
	memset(ps, 0, sizeof(*ps));
	ps->cb = cb;
	ps->data = data;
}

void perfscript_release(struct perfscript *ps)
{
	free(ps->buf);
	free(ps->frames);
	perfscript_init(ps, NULL, NULL);
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Decimal digits [p, e) into *out; 0 on success. */
static int dec(const char *p, const char *e, uint64_t *out)
{
	uint64_t v = 0;

	if (p == e || e - p > 19)
		return -1;
	for (; p < e; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

/* "PID/TID" */
static int parse_pidtid(const char *p, const char *e, pid_t *pid,
			pid_t *tid)
{
	const char *slash = memchr(p, '/', (size_t)(e - p));
	uint64_t a, b;

	if (!slash || dec(p, slash, &a) < 0 || dec(slash + 1, e, &b) < 0 ||
	    a > INT32_MAX || b > INT32_MAX)
		return -1;
	*pid = (pid_t)a;
	*tid = (pid_t)b;
	return 0;
}

/* "SECONDS.FRACTION:" (the colon excluded from [p, e)) */
static int parse_time(const char *p, const char *e, uint64_t *ns)
{
	const char *dot = memchr(p, '.', (size_t)(e - p));
	uint64_t sec, frac = 0;
	int digits;

	if (!dot || dec(p, dot, &sec) < 0 || sec > 18000000000ULL)
		return -1;
	digits = (int)(e - dot - 1);
	if (digits < 1 || digits > 9 || dec(dot + 1, e, &frac) < 0)
		return -1;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* The next blank-separated token of [*pp, e). */
static int next_token(const char **pp, const char *e, const char **ts,
		      const char **te)
{
	const char *p = *pp;

	while (p < e && is_blank(*p))
		p++;
	if (p == e)
		return -1;
	*ts = p;
	while (p < e && !is_blank(*p))
		p++;
	*te = p;
	*pp = p;
	return 0;
}

int perfscript_parse_frame(const char *line, size_t len, struct sample_frame *f)
{
	const char *p = line, *e = line + len, *q, *open;
	uint64_t ip = 0;
	int n = 0, d, depth;

	while (p < e && is_blank(*p))
		p++;
	while (p < e && (d = hexval((unsigned char)*p)) >= 0) {
		if (++n > 16)
			return -1;
		ip = (ip << 4) | (uint64_t)d;
		p++;
	}
	if (!n || p == e || *p != ' ')
		return -1;
	p++;
	while (e > p && (is_blank(e[-1]) || e[-1] == '\r'))
		e--;
	if (e == p || e[-1] != ')')
		return -1;
	/* the last balanced "(...)" is the dso */
	open = memrchr(p, '(', (size_t)(e - 1 - p));
	if (!open)
		return -1;
	if (memchr(open + 1, ')', (size_t)(e - 2 - open))) {
		/* parentheses inside the dso name: count them */
		depth = 0;
		for (q = e - 1; q >= p; q--) {
			if (*q == ')')
				depth++;
			else if (*q == '(' && !--depth)
				break;
		}
		if (q < p)
			return -1;
		open = q;
	}
	f->ip = ip;
	f->kind = SAMPLE_FRAME_ADDR;
	f->line = 0;
	f->dso.s = open + 1;
	f->dso.len = (size_t)(e - 1 - (open + 1));
	q = open;
	while (q > p && is_blank(q[-1]))
		q--;
	f->sym.s = p;
	f->sym.len = (size_t)(q - p);
	if (!f->sym.len) {
		f->sym.s = "[unknown]";
		f->sym.len = 9;
	}
	if (!f->dso.len) {
		f->dso.s = "[unknown]";
		f->dso.len = 9;
	}
	return 0;
}

/*
 * After "PID/TID": [TIME:] [PERIOD] EVENT: [IP SYM (DSO)].  Returns 0
 * when the rest of the line has that shape.
 */
static int parse_rest(const char *p, const char *e, struct sample *s,
		      struct sample_frame *inline_frame, int *has_inline)
{
	const char *ts, *te;
	uint64_t v;

	if (next_token(&p, e, &ts, &te) < 0)
		return -1;
	s->time_ns = 0;
	if (te[-1] == ':' && memchr(ts, '.', (size_t)(te - ts))) {
		if (parse_time(ts, te - 1, &s->time_ns) < 0)
			return -1;
		if (next_token(&p, e, &ts, &te) < 0)
			return -1;
	}
	s->period = 1;
	s->weight = 1;
	s->unit = UNIT_SAMPLES;
	s->cpu = -1;
	if (te[-1] != ':') {
		if (dec(ts, te, &v) < 0)
			return -1;
		s->period = v;
		if (next_token(&p, e, &ts, &te) < 0 || te[-1] != ':')
			return -1;
	}
	s->event.s = ts;
	s->event.len = (size_t)(te - 1 - ts);
	while (p < e && is_blank(*p))
		p++;
	if (p < e) {
		if (perfscript_parse_frame(p, (size_t)(e - p),
					   inline_frame) < 0)
			return -1;
		*has_inline = 1;
	}
	return 0;
}

/*
 * COMM PID/TID [TIME:] [PERIOD] EVENT: [IP SYM (DSO)]
 * The comm may hold blanks: take the first "PID/TID" token after which
 * the rest of the line fits.
 */
static int parse_header(const char *line, size_t len, struct sample *s,
			struct sample_frame *inline_frame, int *has_inline)
{
	const char *e = line + len, *p = line, *ts, *te, *q;

	while (e > line && (is_blank(e[-1]) || e[-1] == '\r'))
		e--;
	while (!next_token(&p, e, &ts, &te)) {
		*has_inline = 0;
		if (!memchr(ts, '/', (size_t)(te - ts)) ||
		    parse_pidtid(ts, te, &s->pid, &s->tid) < 0 ||
		    parse_rest(te, e, s, inline_frame, has_inline) < 0)
			continue;
		q = ts;
		while (q > line && is_blank(q[-1]))
			q--;
		s->comm.s = line;
		s->comm.len = (size_t)(q - line);
		return 0;
	}
	return -1;
}

/* "(A:B)" at [*pp, e), moving *pp past it. */
static int parse_pair(const char **pp, const char *e, pid_t *a, pid_t *b)
{
	const char *p = *pp, *colon, *close;
	uint64_t x, y;

	if (p >= e || *p != '(')
		return -1;
	colon = memchr(p, ':', (size_t)(e - p));
	close = memchr(p, ')', (size_t)(e - p));
	if (!colon || !close || colon > close ||
	    dec(p + 1, colon, &x) < 0 || dec(colon + 1, close, &y) < 0 ||
	    x > INT32_MAX || y > INT32_MAX)
		return -1;
	*a = (pid_t)x;
	*b = (pid_t)y;
	*pp = close + 1;
	return 0;
}

/*
 * After "PERF_RECORD_": "FORK(PID:TID):(PPID:PTID)", the same for
 * EXIT, "COMM exec: NAME:PID/TID" (NAME may hold ':' and blanks);
 * any other record is PS_TASK_OTHER.
 */
static void parse_task_record(const char *p, const char *e,
			      struct ps_task *t)
{
	const char *c;

	t->kind = PS_TASK_OTHER;
	if ((e - p > 4 && !memcmp(p, "FORK", 4)) ||
	    (e - p > 4 && !memcmp(p, "EXIT", 4))) {
		enum ps_task_kind k = *p == 'F' ? PS_TASK_FORK : PS_TASK_EXIT;

		p += 4;
		if (parse_pair(&p, e, &t->pid, &t->tid) < 0 ||
		    p >= e || *p++ != ':' ||
		    parse_pair(&p, e, &t->ppid, &t->ptid) < 0)
			return;
		t->kind = k;
	} else if (e - p > 11 && !memcmp(p, "COMM exec: ", 11)) {
		for (c = e; c > p + 11 && c[-1] != ':'; c--)
			;
		if (c > p + 11 && !parse_pidtid(c, e, &t->pid, &t->tid))
			t->kind = PS_TASK_EXEC;
	}
}

/*
 * COMM PID/TID [TIME:] PERF_RECORD_...: a task record of
 * --show-task-events (a sample's event never starts with that).
 */
int perfscript_parse_task(const char *line, size_t len, struct ps_task *t)
{
	const char *e = line + len, *p = line, *ts, *te, *q;
	pid_t pid, tid;
	static const char rec[] = "PERF_RECORD_";

	while (e > line && (is_blank(e[-1]) || e[-1] == '\r'))
		e--;
	memset(t, 0, sizeof(*t));
	while (!next_token(&p, e, &ts, &te)) {
		if (!memchr(ts, '/', (size_t)(te - ts)) ||
		    parse_pidtid(ts, te, &pid, &tid) < 0)
			continue;
		q = te;
		if (next_token(&q, e, &ts, &te) < 0)
			return -1;
		if (te[-1] == ':' && memchr(ts, '.', (size_t)(te - ts)) &&
		    next_token(&q, e, &ts, &te) < 0)
			return -1;
		if ((size_t)(e - ts) <= sizeof(rec) - 1 ||
		    memcmp(ts, rec, sizeof(rec) - 1))
			continue;
		parse_task_record(ts + sizeof(rec) - 1, e, t);
		return 0;
	}
	return -1;
}

int perfscript_parse_header(const char *line, size_t len,
			    struct sample *s)
{
	struct sample_frame f;
	int has_inline;

	return parse_header(line, len, s, &f, &has_inline);
}

static int deliver(struct perfscript *ps)
{
	int ret = 0;

	if (ps->in_sample) {
		ps->cur.frames = ps->frames;
		ps->cur.nr_frames = ps->nr_frames;
		ps->samples++;
		ret = ps->cb ? ps->cb(ps->data, &ps->cur) : 0;
	}
	ps->in_sample = 0;
	ps->skip_sample = 0;
	ps->nr_frames = 0;
	return ret;
}

/*
 * Parse the complete lines in buf[0, len).  Returns the callback's
 * value; *consumed is where the unfinished sample (if any) starts.
 */
static int parse_lines(struct perfscript *ps, size_t len, size_t *consumed,
		       int at_eof)
{
	char *buf = ps->buf;
	size_t pos = 0, start = 0, n;
	/* the counts before the unfinished sample's header */
	uint64_t lines_at_start = ps->lines, bad_at_start = ps->bad_lines;
	char *nl;
	int ret, has_inline;
	struct sample_frame f;
	struct ps_task task;

	for (;;) {
		nl = memchr(buf + pos, '\n', len - pos);
		if (!nl) {
			if (!at_eof || pos == len)
				break;
			nl = buf + len;	/* last line without newline */
		}
		n = (size_t)(nl - (buf + pos));
		ps->lines++;
		if (n && buf[pos] == '\t') {
			if (!ps->in_sample)
				goto next;
			if (perfscript_parse_frame(buf + pos, n, &f) < 0) {
				ps->bad_lines++;
				goto next;
			}
			ALLOC_GROW(ps->frames, ps->nr_frames + 1,
				   ps->frames_alloc);
			ps->frames[ps->nr_frames++] = f;
		} else if (!n || (n == 1 && buf[pos] == '\r')) {
			ret = deliver(ps);
			start = nl - buf + (nl < buf + len);
			if (ret)
				goto stop;
		} else if (perfscript_parse_task(buf + pos, n, &task) == 0) {
			/* a task record ends any sample in progress */
			ret = deliver(ps);
			if (ret)
				goto stop;
			ps->tasks++;
			if (ps->task_cb && task.kind != PS_TASK_OTHER)
				ps->task_cb(ps->data, &task);
			start = nl - buf + (nl < buf + len);
		} else {
			/* a header ends any sample in progress */
			ret = deliver(ps);
			if (ret)
				goto stop;
			start = (size_t)pos;
			lines_at_start = ps->lines - 1;
			bad_at_start = ps->bad_lines;
			if (parse_header(buf + pos, n, &ps->cur, &f,
					 &has_inline) < 0) {
				ps->bad_lines++;
				ps->skip_sample = 1;
			} else {
				ps->in_sample = 1;
				if (has_inline) {
					ALLOC_GROW(ps->frames, 1,
						   ps->frames_alloc);
					ps->frames[ps->nr_frames++] = f;
				}
			}
		}
next:
		pos = (size_t)(nl - buf) + (nl < buf + len);
		if (nl == buf + len)
			break;
	}
	if (at_eof) {
		ret = deliver(ps);
		*consumed = len;
		return ret;
	}
	/* restart the unfinished sample from its header next time */
	if (!ps->in_sample && !ps->skip_sample)
		start = pos;
	*consumed = ps->in_sample || ps->skip_sample ? start : pos;
	if (ps->in_sample || ps->skip_sample) {
		/* its lines are parsed again: undo their counts */
		ps->lines = lines_at_start;
		ps->bad_lines = bad_at_start;
		ps->in_sample = 0;
		ps->skip_sample = 0;
		ps->nr_frames = 0;
	}
	return 0;
stop:
	*consumed = len;
	return ret;
}

int perfscript_feed(struct perfscript *ps, const char *data, size_t len)
{
	size_t consumed = 0;
	int ret;

	ps->bytes += len;
	if (ps->len + len + 1 > ps->alloc) {
		size_t want = ps->alloc ? ps->alloc : 65536;

		while (want < ps->len + len + 1)
			want *= 2;
		ps->buf = xrealloc(ps->buf, want);
		ps->alloc = want;
	}
	memcpy(ps->buf + ps->len, data, len);
	ps->len += len;
	ret = parse_lines(ps, ps->len, &consumed, 0);
	if (consumed) {
		memmove(ps->buf, ps->buf + consumed, ps->len - consumed);
		ps->len -= consumed;
	}
	return ret;
}

int perfscript_finish(struct perfscript *ps)
{
	size_t consumed = 0;
	int ret;

	if (!ps->buf)
		return 0;
	ret = parse_lines(ps, ps->len, &consumed, 1);
	ps->len = 0;
	return ret;
}
