/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Code objects named from outside the process (pycode.h).
 *
 * A code object is read with process_vm_readv(2) at the offsets of its
 * interpreter's version (pytarget.h's struct pytarget_code): the name
 * (co_qualname on 3.11+; 3.8-3.10 have only co_name, so a method shows
 * without its class there and the entry says so: qualified = 0), the
 * file name, the first line and the line table.  Every size read from
 * the target is bounded before it is used, and every failed read gives
 * NULL, never a crash: the target runs on while it is read, so a code
 * object can be freed under us.
 *
 * Entries are keyed by (pid, address, tag): the tag mixes co_firstlineno,
 * co_filename's address and co_name's hash (walker_code_tag()), which
 * the walker read with the frame.  An address
 * freed and reused by another code object gives a different tag and a
 * new entry; the old one stays for the samples that named it.
 *
 * Line tables, by the table's format (the interpreter's minor version):
 *   3.8, 3.9   co_lnotab: pairs (byte offset increment, signed line
 *              increment); the line of an offset is the one in force
 *              at the last pair whose start is not past it
 *   3.10       co_linetable: pairs (byte length, signed line delta;
 *              -128: no line) covering consecutive ranges
 *   3.11+      the location table: entries of (code, length in 2-byte
 *              code units) headed by a byte with bit 7 set; the line
 *              delta is in the entry (see loc_line below).  Inline CACHE
 *              entries are covered by their instruction's entry, so the
 *              walker's byte offset (which may point at a CACHE, the
 *              unit before the next instruction) maps as CPython's own
 *              PyCode_Addr2Line maps it.
 *
 * The session file (pycode_save): text, one entry a line, versioned:
 *   pyperf-run pycode 1
 *   c PID ADDR TAG FIRSTLINE FORMAT QUALIFIED QUALNAME FILENAME TABLE
 *   t PID TID NAME
 * ADDR in hex; names %-escaped (bytes <= 0x20, '%', 0x7f); TABLE the
 * line table in hex ("-" when empty).  QUALIFIED: 1 when QUALNAME is
 * the qualified name (3.11+'s co_qualname, or found by pyqual.h on
 * 3.8-3.10), 0 when it is co_name alone.  A "t" line: the name Python
 * gave the thread TID of process PID (threading.Thread.name), read by
 * the recording from the target's threading module (pythreads.h); files
 * written before thread names were read have none, and read the same.
 */
#include "compat.h"
#include "walker/pycode.h"
#include "hmap.h"
#include "alloc.h"
#include "strbuf.h"
#include "fileio.h"
#include "numparse.h"

#include <inttypes.h>

#define NO WALKER_NO_FIELD
#define MAX_NAME_CHARS 4096		/* qualname, filename */
#define MAX_TABLE 1048576u		/* line table bytes */
#define PYCODE_FILE_HEADER "pyperf-run pycode 1\n"

/* pycode_line()'s memo slots in each entry */
#define LINE_MEMO 4

struct entry {
	struct pycode pub;
	pid_t pid;
	uint64_t addr;
	uint16_t tag;
	unsigned format;		/* 8 (lnotab), 10, 11 (locations) */
	unsigned char *table;
	size_t table_len;
	char *qualname, *filename;
	struct entry *next;		/* same address */
	/*
	 * pycode_line()'s last answers: (instr + 1, line), 0 unused.  A
	 * line is found by reading the table from its start, and a
	 * report asks it of every frame of every sample: a third of a
	 * report's time, before this memo.  The outer frames of repeated
	 * stacks stand at the same few offsets, so a few slots take most
	 * of the asks.
	 */
	uint32_t memo_instr[LINE_MEMO], memo_line[LINE_MEMO];
	unsigned memo_next;		/* the slot replaced next */
};

/* A Python thread's name (threading.Thread.name), by its OS thread. */
struct tname {
	pid_t pid, tid;
	char *name;
};

struct pycode_cache {
	struct umap by_addr;		/* addr -> struct entry * chain */
	struct entry **all;		/* in the order added (save) */
	size_t nr, alloc;
	struct umap by_tid;		/* pid << 32 | tid -> index + 1 */
	struct umap by_pid;		/* pid -> 1: it has code objects */
	struct tname *threads;
	size_t nr_threads, alloc_threads;
	/* pycode_spill()'s entries named without their qualified name */
	size_t spilled_unqualified;
	char *spilled_example;
	uint64_t reads;			/* code objects pycode_get() read */
};

struct pycode_cache *pycode_cache_new(void)
{
	return xcalloc(1, sizeof(struct pycode_cache));
}

static void entry_free(struct entry *e)
{
	free(e->table);
	free(e->qualname);
	free(e->filename);
	free(e);
}

void pycode_cache_free(struct pycode_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		entry_free(c->all[i]);
	free(c->all);
	free(c->spilled_example);
	umap_release(&c->by_addr);
	for (i = 0; i < c->nr_threads; i++)
		free(c->threads[i].name);
	free(c->threads);
	umap_release(&c->by_tid);
	umap_release(&c->by_pid);
	free(c);
}

static struct entry *lookup(const struct pycode_cache *c, pid_t pid,
			    uint64_t addr, uint16_t tag)
{
	const struct umap_ent *u = umap_find(&c->by_addr, addr);
	struct entry *e;

	for (e = u ? u->val : NULL; e; e = e->next)
		if (e->pid == pid && e->tag == tag)
			return e;
	return NULL;
}

static void add(struct pycode_cache *c, struct entry *e)
{
	struct umap_ent *u = umap_get(&c->by_addr, e->addr, NULL);

	e->next = u->val;
	u->val = e;
	ALLOC_GROW(c->all, c->nr + 1, c->alloc);
	c->all[c->nr++] = e;
	umap_get(&c->by_pid, (uint32_t)e->pid, NULL)->val = c;
	e->pub.qualname = e->qualname;
	e->pub.filename = e->filename;
}

static int rd_u64(pid_t pid, uint64_t addr, uint64_t *v)
{
	return pytarget_read(pid, addr, v, sizeof(*v));
}

/* Append code point cp to sb as UTF-8 (surrogates and > 0x10ffff: '?'). */
static void put_utf8(struct strbuf *sb, uint32_t cp)
{
	char b[4];

	if (cp >= 0xd800 && cp <= 0xdfff)
		cp = '?';
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(sb, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(sb, b, 3);
	} else if (cp <= 0x10ffff) {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(sb, b, 4);
	} else {
		strbuf_addch(sb, '?');
	}
}

/*
 * A str object at addr as UTF-8 (caller frees), or NULL: not compact (a
 * legacy string, never a code object's name), a kind that is not 1, 2
 * or 4, longer than MAX_NAME_CHARS, or unreadable.
 */
char *pycode_read_str(pid_t pid, const struct pytarget_code *k,
		      uint64_t addr)
{
	unsigned char hdr[128];
	uint32_t state, kind;
	int64_t len;
	uint64_t data;
	unsigned char *raw;
	struct strbuf sb;
	size_t i, n;

	if (!addr || k->str_state == NO || k->str_length == NO ||
	    k->str_ascii_size == NO || k->str_state + 4 > sizeof(hdr) ||
	    k->str_length + 8 > sizeof(hdr))
		return NULL;
	n = k->str_state > k->str_length ? k->str_state + 4 :
		k->str_length + 8;
	if (pytarget_read(pid, addr, hdr, n))
		return NULL;
	memcpy(&state, hdr + k->str_state, 4);
	memcpy(&len, hdr + k->str_length, 8);
	kind = state >> k->str_kind_bit & 7;
	if (!(state >> k->str_compact_bit & 1) || len < 0 ||
	    len > MAX_NAME_CHARS)
		return NULL;
	if (state >> k->str_ascii_bit & 1) {
		if (kind != 1)
			return NULL;
		data = addr + k->str_ascii_size;
	} else {
		if (kind != 1 && kind != 2 && kind != 4)
			return NULL;
		if (k->str_compact_size == NO)
			return NULL;
		data = addr + k->str_compact_size;
	}
	n = (size_t)len * kind;
	raw = xmalloc(n + 1);
	if (n && pytarget_read(pid, data, raw, n)) {
		free(raw);
		return NULL;
	}
	strbuf_init(&sb, n + 1);
	for (i = 0; i < (size_t)len; i++) {
		uint32_t cp;

		if (kind == 1)
			cp = raw[i];
		else if (kind == 2)
			cp = (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8;
		else
			cp = (uint32_t)raw[4 * i] |
				(uint32_t)raw[4 * i + 1] << 8 |
				(uint32_t)raw[4 * i + 2] << 16 |
				(uint32_t)raw[4 * i + 3] << 24;
		if (!cp)
			cp = '?';	/* a NUL would cut the name */
		put_utf8(&sb, cp);
	}
	free(raw);
	return strbuf_detach(&sb, NULL);
}

/* A bytes object's contents (at most MAX_TABLE), or -1. */
static int read_bytes(pid_t pid, const struct pytarget_code *k,
		      uint64_t addr, unsigned char **out, size_t *len)
{
	int64_t n;

	*out = NULL;
	*len = 0;
	if (!addr || k->bytes_size == NO || k->bytes_sval == NO)
		return -1;
	if (pytarget_read(pid, addr + k->bytes_size, &n, 8) || n < 0 ||
	    (uint64_t)n > MAX_TABLE)
		return -1;
	*out = xmalloc((size_t)n + 1);
	if (n && pytarget_read(pid, addr + k->bytes_sval, *out, (size_t)n)) {
		free(*out);
		*out = NULL;
		return -1;
	}
	*len = (size_t)n;
	return 0;
}

static unsigned table_format(unsigned minor)
{
	return minor <= 9 ? 8 : minor == 10 ? 10 : 11;
}

/*
 * The name part of the walker's tag of the code object at addr, read
 * as the walker reads it (walker_code_tag(), walker.bpf.c): co_name's
 * hash, else its address, or 0 when the layout reads no name.
 */
static uint64_t tag_name(const struct pytarget *t, uint64_t addr)
{
	const struct walker_layout *l = &t->layout;
	uint64_t name = 0;
	int64_t hash;

	if (!l->code_name || l->code_name == NO ||
	    rd_u64(t->pid, addr + l->code_name, &name))
		return 0;
	if (name && l->str_hash && l->str_hash != NO &&
	    !pytarget_read(t->pid, name + l->str_hash, &hash, sizeof(hash)) &&
	    hash != -1)
		return (uint64_t)hash;
	return name;
}

/*
 * The walker's tag of the code object at addr from its first line and
 * its co_filename pointer, read already: the file name counts only
 * where the layout has the walker read it.
 */
static uint16_t tag_of(const struct pytarget *t, uint64_t addr,
		       uint32_t first, uint64_t file_p)
{
	if (!t->layout.code_filename || t->layout.code_filename == NO)
		file_p = 0;
	return walker_code_tag(first, file_p, tag_name(t, addr));
}

int pycode_tag(const struct pytarget *t, uint64_t addr, uint16_t *tag)
{
	const struct pytarget_code *k = &t->code;
	uint64_t file_p = 0;
	uint32_t first = 0;

	if (k->co_firstlineno == NO ||
	    pytarget_read(t->pid, addr + k->co_firstlineno, &first, 4) ||
	    (t->layout.code_filename && t->layout.code_filename != NO &&
	     rd_u64(t->pid, addr + t->layout.code_filename, &file_p)))
		return -1;
	*tag = tag_of(t, addr, first, file_p);
	return 0;
}

const struct pycode *pycode_get(struct pycode_cache *c,
				const struct pytarget *t, uint64_t addr,
				uint16_t tag)
{
	const struct pytarget_code *k = &t->code;
	struct entry *e = lookup(c, t->pid, addr, tag);
	uint64_t name_p, file_p, table_p;
	int32_t first;
	unsigned minor = t->hexversion >> 16 & 0xff;

	if (e)
		return &e->pub;
	if (!addr || addr % 8 || k->co_firstlineno == NO ||
	    k->co_filename == NO || k->co_linetable == NO)
		return NULL;
	if (pytarget_read(t->pid, addr + k->co_firstlineno, &first, 4) ||
	    rd_u64(t->pid, addr + k->co_filename, &file_p))
		return NULL;
	/* a freed address reused by another code object: not ours */
	if (first < 0 || tag_of(t, addr, (uint32_t)first, file_p) != tag)
		return NULL;
	if (rd_u64(t->pid, addr + (k->co_qualname != NO ? k->co_qualname :
				   k->co_name), &name_p) ||
	    rd_u64(t->pid, addr + k->co_linetable, &table_p))
		return NULL;
	e = xcalloc(1, sizeof(*e));
	e->pid = t->pid;
	e->addr = addr;
	e->tag = tag;
	e->format = table_format(minor);
	e->qualname = pycode_read_str(t->pid, k, name_p);
	e->filename = pycode_read_str(t->pid, k, file_p);
	if (!e->qualname || !e->filename ||
	    read_bytes(t->pid, k, table_p, &e->table, &e->table_len)) {
		free(e->qualname);
		free(e->filename);
		free(e->table);
		free(e);
		return NULL;
	}
	e->pub.firstlineno = (uint32_t)first;
	e->pub.named = 1;
	/* a module's code is "<module>" whatever the version */
	e->pub.qualified = k->co_qualname != NO ||
		!strcmp(e->qualname, "<module>");
	add(c, e);
	c->reads++;
	return &e->pub;
}

int pycode_qualify(struct pycode_cache *c, pid_t pid, uint64_t addr,
		   uint16_t tag, const char *qualname)
{
	struct entry *e = lookup(c, pid, addr, tag);
	char *dup;

	if (!e || strlen(qualname) > MAX_NAME_CHARS)
		return -1;
	/* qualname may be the entry's own (a name that is already whole) */
	dup = xstrdup(qualname);
	free(e->qualname);
	e->qualname = dup;
	e->pub.qualname = e->qualname;
	e->pub.qualified = 1;
	return 0;
}

size_t pycode_unqualified(const struct pycode_cache *c, const char **example)
{
	size_t i, n = 0;

	*example = c->spilled_example;
	for (i = 0; i < c->nr; i++)
		if (!c->all[i]->pub.qualified) {
			if (!n++ && !*example)
				*example = c->all[i]->qualname;
		}
	return n + c->spilled_unqualified;
}

static uint64_t tid_key(pid_t pid, pid_t tid)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
}

int pycode_thread_set(struct pycode_cache *c, pid_t pid, pid_t tid,
		      const char *name)
{
	struct umap_ent *u;
	struct tname *t;

	if (pid <= 0 || tid <= 0 || strlen(name) > MAX_NAME_CHARS)
		return -1;
	u = umap_get(&c->by_tid, tid_key(pid, tid), NULL);
	if (u->val) {
		t = &c->threads[(uintptr_t)u->val - 1];
		if (strcmp(t->name, name)) {
			free(t->name);
			t->name = xstrdup(name);
		}
		return 0;
	}
	ALLOC_GROW(c->threads, c->nr_threads + 1, c->alloc_threads);
	t = &c->threads[c->nr_threads++];
	t->pid = pid;
	t->tid = tid;
	t->name = xstrdup(name);
	u->val = (void *)(uintptr_t)c->nr_threads;
	return 0;
}

const char *pycode_thread_name(const struct pycode_cache *c, pid_t pid,
			       pid_t tid)
{
	const struct umap_ent *u = umap_find(&c->by_tid, tid_key(pid, tid));

	return u && u->val ? c->threads[(uintptr_t)u->val - 1].name : NULL;
}

size_t pycode_threads(const struct pycode_cache *c)
{
	return c->nr_threads;
}

int pycode_has_pid(const struct pycode_cache *c, pid_t pid)
{
	return umap_find(&c->by_pid, (uint32_t)pid) != NULL;
}

const struct pycode *pycode_find(const struct pycode_cache *c, pid_t pid,
				 uint64_t addr, uint16_t tag)
{
	struct entry *e = lookup(c, pid, addr, tag);

	return e ? &e->pub : NULL;
}

/* 3.11+: a 6-bit-chunk varint of the location table. */
static int loc_varint(const unsigned char *b, size_t len, size_t *i,
		      uint32_t *out)
{
	uint32_t v = 0;
	unsigned shift = 0;

	for (;;) {
		if (*i >= len || shift > 30)
			return -1;
		v |= (uint32_t)(b[*i] & 63) << shift;
		shift += 6;
		if (!(b[(*i)++] & 64))
			break;
	}
	*out = v;
	return 0;
}

static int loc_svarint(const unsigned char *b, size_t len, size_t *i,
		       int32_t *out)
{
	uint32_t u;

	if (loc_varint(b, len, i, &u))
		return -1;
	*out = u & 1 ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
	return 0;
}

/*
 * The location table: each entry starts with a byte 1CCCCLLL (code C,
 * L+1 code units).  C 15: no location; 14: long form (svarint line
 * delta, then end line, column, end column varints); 13: no column
 * (svarint line delta); 10-12: one line, delta C-10, two column bytes;
 * 0-9: short form, same line, one column byte.
 */
static int64_t loc_line(const unsigned char *b, size_t len, int64_t line,
			uint32_t off)
{
	size_t i = 0;
	uint64_t start = 0;

	while (i < len) {
		unsigned head = b[i++], code, units;
		int32_t delta = 0;
		uint32_t skip;
		int64_t this_line;
		int none = 0;

		if (!(head & 0x80))
			return -1;
		code = head >> 3 & 15;
		units = (head & 7) + 1;
		if (code == 15) {
			none = 1;
		} else if (code == 14) {
			if (loc_svarint(b, len, &i, &delta) ||
			    loc_varint(b, len, &i, &skip) ||
			    loc_varint(b, len, &i, &skip) ||
			    loc_varint(b, len, &i, &skip))
				return -1;
		} else if (code == 13) {
			if (loc_svarint(b, len, &i, &delta))
				return -1;
		} else if (code >= 10) {
			delta = (int32_t)code - 10;
			i += 2;
		} else {
			i += 1;
		}
		if (i > len)
			return -1;
		line += delta;
		this_line = none ? -1 : line;
		if (off < start + units * 2u)
			return this_line;
		start += units * 2u;
	}
	return -1;
}

/* 3.10: (length in bytes, signed line delta; -128 no line) ranges. */
static int64_t linetable310(const unsigned char *b, size_t len, int64_t line,
			    uint32_t off)
{
	uint64_t start = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		int delta = (signed char)b[i + 1];
		uint64_t end = start + b[i];

		if (delta != -128)
			line += delta;
		if (off >= start && off < end)
			return delta == -128 ? -1 : line;
		start = end;
	}
	return -1;
}

/* 3.8, 3.9: co_lnotab. */
static int64_t lnotab(const unsigned char *b, size_t len, int64_t line,
		      uint32_t off)
{
	uint64_t addr = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		addr += b[i];
		if (addr > off)
			break;
		line += (signed char)b[i + 1];
	}
	return line;
}

uint32_t pycode_line(struct pycode_cache *c, const struct pycode *code,
		     uint32_t instr)
{
	/* every code is an entry, allocated writable: the memo is its own */
	struct entry *e = (struct entry *)(uintptr_t)code;
	int64_t line;
	uint32_t found;
	unsigned i;

	(void)c;
	if (!code || !code->named)
		return 0;
	/* not started (0xffffffff), or 3.11/3.12's prev_instr one unit
	   before the code (-2): the function's first line */
	if (instr >= 0xfffffff0u)
		return code->firstlineno;
	for (i = 0; i < LINE_MEMO; i++)
		if (e->memo_instr[i] == instr + 1)
			return e->memo_line[i];
	if (e->format == 8)
		line = lnotab(e->table, e->table_len, code->firstlineno, instr);
	else if (e->format == 10)
		line = linetable310(e->table, e->table_len, code->firstlineno,
				    instr);
	else
		line = loc_line(e->table, e->table_len, code->firstlineno,
				instr);
	found = line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
	e->memo_instr[e->memo_next] = instr + 1;
	e->memo_line[e->memo_next] = found;
	e->memo_next = (e->memo_next + 1) % LINE_MEMO;
	return found;
}

/* --- the session file ----------------------------------------------- */

/*
 * A string as one field: bytes up to space, '%' and DEL as %XX; the
 * empty string (a code object without a file name, exec'd code) as a
 * lone "%", which no escaped string is.
 */
static void put_escaped(struct strbuf *sb, const char *s)
{
	if (!*s)
		strbuf_addch(sb, '%');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch <= 0x20 || ch == '%' || ch == 0x7f)
			strbuf_addf(sb, "%%%02x", ch);
		else
			strbuf_addch(sb, ch);
	}
}

/* The "c" line of a code object. */
static void put_entry(struct strbuf *sb, const struct entry *e)
{
	strbuf_addf(sb, "c %d %" PRIx64 " %u %u %u %u ", (int)e->pid,
		    e->addr, (unsigned)e->tag, e->pub.firstlineno,
		    e->format, (unsigned)e->pub.qualified);
	put_escaped(sb, e->qualname);
	strbuf_addch(sb, ' ');
	put_escaped(sb, e->filename);
	strbuf_addch(sb, ' ');
	if (!e->table_len)
		strbuf_addch(sb, '-');
	/* a code object's line table: most of the file (10 ms of record's
	   end on docutils as a printf per byte) */
	strbuf_addhex(sb, e->table, e->table_len);
	strbuf_addch(sb, '\n');
}

/* The "t" line of a thread's name. */
static void put_thread(struct strbuf *sb, const struct tname *t)
{
	strbuf_addf(sb, "t %d %d ", (int)t->pid, (int)t->tid);
	put_escaped(sb, t->name);
	strbuf_addch(sb, '\n');
}

void pycode_header(struct strbuf *out)
{
	strbuf_addstr(out, PYCODE_FILE_HEADER);
}

void pycode_lines(const struct pycode_cache *c, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		put_entry(out, c->all[i]);
	for (i = 0; i < c->nr_threads; i++)
		put_thread(out, &c->threads[i]);
}

/* e out of its address's chain (and the chain's entry when empty). */
static void unlink_entry(struct pycode_cache *c, struct entry *e)
{
	struct umap_ent *u = umap_find(&c->by_addr, e->addr);
	struct entry *prev = NULL, *x;

	for (x = u ? u->val : NULL; x && x != e; x = x->next)
		prev = x;
	if (!x)
		return;
	if (prev)
		prev->next = e->next;
	else
		u->val = e->next;
	if (!u->val)
		umap_del(&c->by_addr, e->addr);
}

void pycode_spill(struct pycode_cache *c, pid_t pid, struct strbuf *out)
{
	size_t i, n;

	for (i = n = 0; i < c->nr; i++) {
		struct entry *e = c->all[i];

		if (e->pid != pid) {
			c->all[n++] = e;
			continue;
		}
		put_entry(out, e);
		if (!e->pub.qualified && !c->spilled_unqualified++)
			c->spilled_example = xstrdup(e->qualname);
		unlink_entry(c, e);
		entry_free(e);
	}
	c->nr = n;
	for (i = n = 0; i < c->nr_threads; i++) {
		struct tname t = c->threads[i];

		if (t.pid != pid) {
			/* moved down: its index in by_tid too */
			c->threads[n++] = t;
			umap_find(&c->by_tid, tid_key(t.pid, t.tid))->val =
				(void *)(uintptr_t)n;
			continue;
		}
		put_thread(out, &t);
		free(t.name);
		umap_del(&c->by_tid, tid_key(t.pid, t.tid));
	}
	c->nr_threads = n;
}

int pycode_save(const struct pycode_cache *c, const char *path, char *err,
		size_t errlen)
{
	struct strbuf sb;
	int r;

	strbuf_init(&sb, 4096);
	pycode_header(&sb);
	pycode_lines(c, &sb);
	r = write_file(path, sb.buf, sb.len, 0600, 0);
	strbuf_release(&sb);
	if (r)
		return set_err(err, errlen, "cannot write '%s': %s", path,
			       strerror(-r));
	return 0;
}

/* Undo put_escaped on [s, s+n): a new string, or NULL if malformed. */
static char *unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i, o = 0;

	if (n == 1 && *s == '%') {
		*out = '\0';
		return out;
	}
	for (i = 0; i < n; i++) {
		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		if (i + 2 >= n || hexval(s[i + 1]) < 0 ||
		    hexval(s[i + 2]) < 0 ||
		    !(hexval(s[i + 1]) << 4 | hexval(s[i + 2]))) {
			free(out);
			return NULL;
		}
		out[o++] = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
		i += 2;
	}
	out[o] = '\0';
	return out;
}

/* The next space-separated field of the line [*p, end). */
static int field(const char **p, const char *end, const char **f,
		 size_t *n)
{
	const char *s = *p;

	if (s >= end)
		return -1;
	*f = s;
	while (s < end && *s != ' ')
		s++;
	*n = (size_t)(s - *f);
	if (!*n)
		return -1;
	*p = s < end ? s + 1 : s;
	return 0;
}

static int num(const char *f, size_t n, int base, uint64_t max,
	       uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		int d = base == 16 ? hexval(f[i]) :
			(f[i] >= '0' && f[i] <= '9' ? f[i] - '0' : -1);

		if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* "t PID TID NAME": a Python thread's name. */
static int parse_thread(struct pycode_cache *c, const char *s, size_t n)
{
	const char *p = s, *end = s + n, *f;
	size_t fl;
	uint64_t pid, tid;
	char *name;
	int r;

	if (field(&p, end, &f, &fl) || fl != 1 || *f != 't' ||
	    field(&p, end, &f, &fl) || num(f, fl, 10, INT32_MAX, &pid) ||
	    !pid || field(&p, end, &f, &fl) ||
	    num(f, fl, 10, INT32_MAX, &tid) || !tid ||
	    field(&p, end, &f, &fl) || p != end ||
	    !(name = unescape(f, fl)))
		return -1;
	r = pycode_thread_name(c, (pid_t)pid, (pid_t)tid) ? -1 :
		pycode_thread_set(c, (pid_t)pid, (pid_t)tid, name);
	free(name);
	return r;
}

static int parse_line(struct pycode_cache *c, const char *s, size_t n)
{
	const char *p = s, *end = s + n, *f;
	size_t fl, j;
	uint64_t pid, addr, tag, first, format, qual;
	struct entry *e;

	if (field(&p, end, &f, &fl) || fl != 1 || *f != 'c' ||
	    field(&p, end, &f, &fl) || num(f, fl, 10, INT32_MAX, &pid) ||
	    !pid || field(&p, end, &f, &fl) ||
	    num(f, fl, 16, UINT64_MAX, &addr) ||
	    field(&p, end, &f, &fl) || num(f, fl, 10, 0xffff, &tag) ||
	    field(&p, end, &f, &fl) || num(f, fl, 10, INT32_MAX, &first) ||
	    field(&p, end, &f, &fl) || num(f, fl, 10, 11, &format) ||
	    (format != 8 && format != 10 && format != 11) ||
	    field(&p, end, &f, &fl) || num(f, fl, 10, 1, &qual))
		return -1;
	/* the tag is walker_code_tag()'s (before: first's low 16 bits) */
	if (lookup(c, (pid_t)pid, addr, (uint16_t)tag))
		return -1;
	e = xcalloc(1, sizeof(*e));
	e->pid = (pid_t)pid;
	e->addr = addr;
	e->tag = (uint16_t)tag;
	e->format = (unsigned)format;
	e->pub.firstlineno = (uint32_t)first;
	e->pub.qualified = qual != 0;
	e->pub.named = 1;
	if (field(&p, end, &f, &fl) || !(e->qualname = unescape(f, fl)) ||
	    field(&p, end, &f, &fl) || !(e->filename = unescape(f, fl)) ||
	    field(&p, end, &f, &fl) || p != end)
		goto bad;
	if (!(fl == 1 && *f == '-')) {
		if (fl % 2 || fl / 2 > MAX_TABLE)
			goto bad;
		e->table_len = fl / 2;
		e->table = xmalloc(e->table_len + 1);
		for (j = 0; j < e->table_len; j++) {
			int hi = hexval(f[2 * j]), lo = hexval(f[2 * j + 1]);

			if (hi < 0 || lo < 0)
				goto bad;
			e->table[j] = (unsigned char)(hi << 4 | lo);
		}
	}
	add(c, e);
	return 0;
bad:
	free(e->qualname);
	free(e->filename);
	free(e->table);
	free(e);
	return -1;
}

int pycode_load_buf(struct pycode_cache *c, const char *buf, size_t len,
		    char *err, size_t errlen)
{
	size_t hl = strlen(PYCODE_FILE_HEADER), off, lineno = 1;

	if (len < hl || memcmp(buf, PYCODE_FILE_HEADER, hl)) {
		if (len >= 18 && !memcmp(buf, "pyperf-run pycode ", 18))
			return set_err(err, errlen, "a code-object file of "
				       "another version (this reader knows "
				       "version 1)");
		return set_err(err, errlen, "not a code-object file (no "
			       "\"pyperf-run pycode 1\" header)");
	}
	for (off = hl; off < len;) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n;

		lineno++;
		if (!nl)
			return set_err(err, errlen, "line %zu: cut short (no "
				       "newline)", lineno);
		n = (size_t)(nl - (buf + off));
		if (memchr(buf + off, '\0', n) ||
		    (n && buf[off] == 't' ? parse_thread(c, buf + off, n) :
		     parse_line(c, buf + off, n)))
			return set_err(err, errlen, "line %zu: not a valid "
				       "code-object entry", lineno);
		off += n + 1;
	}
	return 0;
}

int pycode_load(struct pycode_cache *c, const char *path, char *err,
		size_t errlen)
{
	struct strbuf sb;
	char e2[PPR_ERR_LEN];
	int r;

	strbuf_init(&sb, 4096);
	r = strbuf_read_file(&sb, path, 1u << 30);
	if (r < 0) {
		strbuf_release(&sb);
		return set_err(err, errlen, "cannot read '%s': %s", path,
			       strerror(-r));
	}
	r = pycode_load_buf(c, sb.buf, sb.len, e2, sizeof(e2));
	strbuf_release(&sb);
	if (r)
		return set_err(err, errlen, "%s: %s", path, e2);
	return 0;
}

uint64_t pycode_reads(const struct pycode_cache *c)
{
	return c->reads;
}
