/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format pprof: a gzipped profile.proto (lib/report/pprof.proto, encoded by
 * protobuf-c, compressed by zlib) as `go tool pprof`, Pyroscope, Parca
 * and Grafana read it:
 *   sample types   the weights, named after the profile's unit
 *                  (samples/count for samples, time/nanoseconds), and,
 *                  for time events (cpu-clock, task-clock),
 *                  cpu/nanoseconds, else EVENT/events (the summed
 *                  sample periods); the weights are the default
 *   functions      one per frame: Python frames are named by their
 *                  qualname with the source file as file name; native
 *                  and kernel frames by symbol, with the object file
 *   locations      one per frame (one line each)
 *   mappings       one per object file of native and kernel frames
 *   labels         pid, tid and thread_name when the profile is grouped
 *   period         1e9 / frequency nanoseconds of cpu (time events)
 */
#include "compat.h"
#include "report/fmt.h"
#include "strtab.h"
#include "alloc.h"
#include "numparse.h"
#include "report/pprof.pb-c.h"
#include <zlib.h>

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* The string table index of s (borrowed: s must outlive the table). */
static int64_t str_id(struct strtab *st, const char *s)
{
	return (int64_t)strtab_id(st, s);
}

static int is_time_event(const char *ev)
{
	return !ev || !strcmp(ev, "cpu-clock") || !strcmp(ev, "task-clock")
		|| !strncmp(ev, "cpu-clock:", 10) ||
		!strncmp(ev, "task-clock:", 11);
}

/* gzip buf onto fp; 0 or -1 with err filled. */
static int gzip_write(const uint8_t *buf, size_t len, FILE *fp, char *err,
		      size_t errlen)
{
	z_stream zs;
	unsigned char out[65536];
	int zret;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return set_err(err, errlen, "cannot compress the pprof "
			       "report: zlib initialisation failed");
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;	/* profiles stay far below 4 GiB */
	do {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		zret = deflate(&zs, Z_FINISH);
		if (zret == Z_STREAM_ERROR) {
			deflateEnd(&zs);
			return set_err(err, errlen, "cannot compress the "
				       "pprof report");
		}
		if (fwrite(out, 1, sizeof(out) - zs.avail_out, fp) !=
		    sizeof(out) - zs.avail_out) {
			deflateEnd(&zs);
			return set_err(err, errlen, "cannot write the pprof "
				       "report: %s", strerror(errno));
		}
	} while (zret != Z_STREAM_END);
	deflateEnd(&zs);
	return 0;
}

/* "1700000000.25" (UNIX seconds) as nanoseconds; 0 when not that. */
static int64_t unix_nanos(const char *s)
{
	unsigned long secs, frac = 0;
	const char *end;
	int64_t ns, scale = 1000000000;

	if (!s || parse_uint_prefix(s, &secs, &end))
		return 0;
	ns = (int64_t)secs * scale;
	if (*end == '.') {
		for (end++; *end >= '0' && *end <= '9' && scale > 1; end++) {
			scale /= 10;
			frac += (unsigned long)(*end - '0') *
				(unsigned long)scale;
		}
		ns += (int64_t)frac;
	}
	return ns;
}

int fmt_pprof_write(const struct profile *p, const struct fmt_opts *o,
		    FILE *fp, char *err, size_t errlen)
{
	pb_profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	pb_value_type vt[2], period_type;
	pb_value_type *vtp[2] = { &vt[0], &vt[1] };
	struct strtab st;
	size_t nf = p->nr_frames, ns = p->nr_stacks, i, d, nm = 0;
	pb_function *fn = xcalloc(nf + 1, sizeof(*fn));
	pb_function **fnp = xcalloc(nf + 1, sizeof(*fnp));
	pb_location *loc = xcalloc(nf + 1, sizeof(*loc));
	pb_location **locp = xcalloc(nf + 1, sizeof(*locp));
	pb_line *line = xcalloc(nf + 1, sizeof(*line));
	pb_line **linep = xcalloc(nf + 1, sizeof(*linep));
	pb_mapping *map = xcalloc(nf + 1, sizeof(*map));
	pb_mapping **mapp = xcalloc(nf + 1, sizeof(*mapp));
	pb_sample *smp = xcalloc(ns + 1, sizeof(*smp));
	pb_sample **smpp = xcalloc(ns + 1, sizeof(*smpp));
	int grouped = p->group != PROFILE_MERGED && p->nr_tasks;
	pb_label *labels = NULL;
	pb_label **labelp = NULL;
	uint64_t *locids = NULL;
	int64_t *values = xcalloc(2 * (ns + 1), sizeof(*values));
	int64_t *comments;
	char **warn, **wtext, **notes;
	size_t nw, nn;
	size_t total_depth = 0, off = 0;
	const char *start;
	uint8_t *buf = NULL;
	size_t len;
	int ret = -1, time_ev = is_time_event(p->event);
	char *version = xstrdup("pyperf-run " PPR_VERSION);
	size_t *map_of = NULL, map_alloc = 0;
	char *cmd = NULL;

	(void)o;
	strtab_init(&st);

	perftools__profiles__value_type__init(&vt[0]);
	perftools__profiles__value_type__init(&vt[1]);
	perftools__profiles__value_type__init(&period_type);
	vt[0].type = str_id(&st, weight_unit_info(p->unit)->pprof_type);
	vt[0].unit = str_id(&st, weight_unit_info(p->unit)->pprof_unit);
	if (time_ev) {
		vt[1].type = str_id(&st, "cpu");
		vt[1].unit = str_id(&st, "nanoseconds");
	} else {
		vt[1].type = str_id(&st, p->event);
		vt[1].unit = str_id(&st, "events");
	}
	period_type = vt[1];
	prof.n_sample_type = 2;
	prof.sample_type = vtp;
	prof.period_type = &period_type;
	if (time_ev && p->frequency)
		prof.period = (int64_t)(1000000000ULL / p->frequency);
	prof.default_sample_type = vt[0].type;

	/*
	 * mappings: one per object file, in order of appearance, except
	 * that the interpreter (or else libpython) comes first: pprof
	 * takes the first mapping for the main binary
	 */
	{
		size_t main_i = nf;

		for (i = 0; i < nf; i++) {
			const struct frame *f = &p->frames[i];

			if (f->kind == FRAME_PYTHON || !f->dso)
				continue;
			if (p->python && !strcmp(f->dso, p->python)) {
				main_i = i;
				break;
			}
			if (main_i == nf && f->native == NATIVE_LIBPYTHON)
				main_i = i;
		}
		if (main_i < nf) {
			int64_t fid = str_id(&st, p->frames[main_i].dso);

			map_alloc = 2 * (size_t)fid + 64;
			map_of = xcalloc(map_alloc, sizeof(*map_of));
			map_of[fid] = 1;
			perftools__profiles__mapping__init(&map[0]);
			map[0].id = 1;
			map[0].filename = fid;
			map[0].has_functions = 1;
			mapp[0] = &map[0];
			nm = 1;
		}
	}
	for (i = 0; i < nf; i++) {
		const struct frame *f = &p->frames[i];
		uint64_t mid = 0;
		size_t k;

		if (f->kind != FRAME_PYTHON && f->dso) {
			int64_t fid = str_id(&st, f->dso);

			/* mapping of each file name string, 0: none yet */
			if ((size_t)fid >= map_alloc) {
				size_t n = map_alloc;

				map_alloc = 2 * (size_t)fid + 64;
				map_of = xrealloc(map_of, map_alloc *
						  sizeof(*map_of));
				memset(map_of + n, 0, (map_alloc - n) *
				       sizeof(*map_of));
			}
			k = map_of[fid] ? map_of[fid] - 1 : nm;
			if (k == nm) {
				map_of[fid] = nm + 1;
				perftools__profiles__mapping__init(&map[nm]);
				map[nm].id = nm + 1;
				map[nm].filename = fid;
				map[nm].has_functions = 1;
				mapp[nm] = &map[nm];
				nm++;
			}
			mid = k + 1;
		}
		perftools__profiles__function__init(&fn[i]);
		fn[i].id = i + 1;
		fn[i].name = str_id(&st, f->kind == FRAME_PYTHON && f->func ?
				    f->func : f->name ? f->name : "?");
		fn[i].system_name = str_id(&st, f->name);
		fn[i].filename = str_id(&st, f->kind == FRAME_PYTHON ?
					f->file : f->dso);
		fnp[i] = &fn[i];
		perftools__profiles__line__init(&line[i]);
		line[i].function_id = i + 1;
		/* the walker's Python frames know their line (0: none) */
		line[i].line = (int64_t)f->line;
		linep[i] = &line[i];
		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		loc[i].mapping_id = mid;
		loc[i].n_line = 1;
		loc[i].line = &linep[i];
		locp[i] = &loc[i];
	}
	prof.n_function = nf;
	prof.function = fnp;
	prof.n_location = nf;
	prof.location = locp;
	prof.n_mapping = nm;
	prof.mapping = mapp;

	for (i = 0; i < ns; i++)
		total_depth += p->stacks[i].depth;
	locids = xcalloc(total_depth + 1, sizeof(*locids));
	if (grouped) {
		labels = xcalloc(3 * (ns + 1), sizeof(*labels));
		labelp = xcalloc(3 * (ns + 1), sizeof(*labelp));
	}
	for (i = 0; i < ns; i++) {
		const struct stack *s = &p->stacks[i];

		perftools__profiles__sample__init(&smp[i]);
		/* pprof wants the leaf first */
		for (d = 0; d < s->depth; d++)
			locids[off + d] = (uint64_t)s->frames[s->depth - 1 - d]
				+ 1;
		smp[i].n_location_id = s->depth;
		smp[i].location_id = locids + off;
		off += s->depth;
		values[2 * i] = (int64_t)s->weight;
		values[2 * i + 1] = (int64_t)s->period;
		smp[i].n_value = 2;
		smp[i].value = values + 2 * i;
		if (grouped && s->task < p->nr_tasks) {
			const struct task *tk = &p->tasks[s->task];
			pb_label *l = labels + 3 * i;
			size_t nl = 0;

			perftools__profiles__label__init(&l[nl]);
			l[nl].key = str_id(&st, "pid");
			l[nl++].num = tk->pid;
			if (p->group == PROFILE_BY_THREAD) {
				perftools__profiles__label__init(&l[nl]);
				l[nl].key = str_id(&st, "tid");
				l[nl++].num = tk->tid;
			}
			if (tk->comm) {
				perftools__profiles__label__init(&l[nl]);
				l[nl].key = str_id(&st, "thread_name");
				l[nl++].str = str_id(&st, tk->comm);
			}
			for (d = 0; d < nl; d++)
				labelp[3 * i + d] = &l[d];
			smp[i].n_label = nl;
			smp[i].label = labelp + 3 * i;
		}
		smpp[i] = &smp[i];
	}
	prof.n_sample = ns;
	prof.sample = smpp;

	start = NULL;
	for (i = 0; i < p->nr_meta; i++)
		if (p->meta[i].key && !strcmp(p->meta[i].key, "start_time"))
			start = p->meta[i].value;
	prof.time_nanos = unix_nanos(start);
	if (p->duration > 0)
		prof.duration_nanos = (int64_t)(p->duration * 1e9);
	/* `go tool pprof -comments` lists these, one a line */
	nw = fmt_warnings(p, &warn);
	nn = fmt_notes(p, &notes);
	wtext = xcalloc(nw + nn + 1, sizeof(*wtext));
	comments = xcalloc(nw + nn + 2, sizeof(*comments));
	comments[prof.n_comment++] = str_id(&st, version);
	if (p->command) {
		cmd = xasprintf("command: %s", p->command);
		comments[prof.n_comment++] = str_id(&st, cmd);
	}
	for (i = 0; i < nw + nn; i++) {
		wtext[i] = i < nw ? xasprintf("warning: %s", warn[i]) :
			   xasprintf("note: %s", notes[i - nw]);
		comments[prof.n_comment++] = str_id(&st, wtext[i]);
	}
	prof.comment = comments;

	prof.n_string_table = st.nr;
	prof.string_table = (char **)st.v;
	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&prof, buf);
	ret = gzip_write(buf, len, fp, err, errlen);
	if (!ret && ferror(fp))
		ret = set_err(err, errlen, "cannot write the pprof report: %s",
			      strerror(errno));

	free(buf);
	free(fn);
	free(fnp);
	free(loc);
	free(locp);
	free(line);
	free(linep);
	free(map);
	free(mapp);
	free(smp);
	free(smpp);
	free(labels);
	free(labelp);
	free(locids);
	free(values);
	strtab_release(&st);
	free(version);
	free(cmd);
	free(map_of);
	free(comments);
	for (i = 0; i < nw + nn; i++)
		free(wtext[i]);
	free(wtext);
	fmt_warnings_free(warn, nw);
	fmt_warnings_free(notes, nn);
	return ret;
}
