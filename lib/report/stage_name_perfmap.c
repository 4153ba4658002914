/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "alloc.h"
#include "numparse.h"
#include "report/stage_name_perfmap.h"
#include "strbuf.h"

void perfmap_init(struct perfmap *m)
{
	struct perfmap init = PERFMAP_INIT;

	*m = init;
}

void perfmap_release(struct perfmap *m)
{
	free(m->entries);
	free(m->strings);
	perfmap_init(m);
}

/* Parse a hex number at *pp up to a blank; 0 on success. */
static int parse_hex(char **pp, uint64_t *out)
{
	char *p = *pp;
	uint64_t v = 0;
	int n = 0, d;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	while ((d = hexval((unsigned char)*p)) >= 0) {
		if (++n > 16)
			return -1;
		v = (v << 4) | (uint64_t)d;
		p++;
	}
	if (!n || (*p != ' ' && *p != '\t'))
		return -1;
	*out = v;
	*pp = p;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct perfmap_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void parse_line(struct perfmap *m, char *line, uint32_t seq)
{
	uint64_t start, size;
	char *p = line, *name, *e;

	if (parse_hex(&p, &start) < 0)
		goto bad;
	while (*p == ' ' || *p == '\t')
		p++;
	if (parse_hex(&p, &size) < 0 || !size || start + size < start)
		goto bad;
	while (*p == ' ' || *p == '\t')
		p++;
	name = p;
	e = name + strlen(name);
	while (e > name && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	if (!*name)
		goto bad;
	ALLOC_GROW(m->entries, m->nr + 1, m->alloc);
	m->entries[m->nr].start = start;
	m->entries[m->nr].end = start + size;
	m->entries[m->nr].name = name;
	m->entries[m->nr].seq = seq;
	m->nr++;
	if (size > m->max_size)
		m->max_size = size;
	return;
bad:
	m->bad_lines++;
}

int perfmap_parse(struct perfmap *m, const char *text, size_t len)
{
	char *p, *end, *nl;
	uint32_t seq = 0;

	perfmap_release(m);
	m->strings = xmalloc(len + 1);
	memcpy(m->strings, text, len);
	m->strings[len] = '\0';
	p = m->strings;
	end = p + len;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			/* a partial last line: a killed writer */
			if (end - p)
				m->bad_lines++;
			break;
		}
		*nl = '\0';
		if (memchr(p, '\0', (size_t)(nl - p)))
			m->bad_lines++;
		else if (p < nl)
			parse_line(m, p, seq++);
		p = nl + 1;
	}
	if (m->nr > 1)
		qsort(m->entries, m->nr, sizeof(*m->entries), entry_cmp);
	return 0;
}

int perfmap_read(struct perfmap *m, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	perfmap_release(m);
	ret = strbuf_read_file(&sb, path, (size_t)1 << 30);
	if (ret < 0) {
		strbuf_release(&sb);
		return ret;
	}
	perfmap_parse(m, sb.buf, sb.len);
	strbuf_release(&sb);
	return 0;
}

const struct perfmap_entry *perfmap_lookup(const struct perfmap *m,
					   uint64_t addr)
{
	const struct perfmap_entry *best = NULL;
	size_t lo = 0, hi = m->nr;

	/* rightmost entry with start <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->entries[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk left over entries that may still cover addr */
	while (lo > 0) {
		const struct perfmap_entry *e = &m->entries[--lo];

		if (addr - e->start >= m->max_size)
			break;
		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	return best;
}
