/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * walker/pycode.h.  Without arguments: the unit tests (line tables of
 * each format from hand-made session files, the session file's round
 * trip, malformed files refused).  With "check PID" it is t3501's tool:
 * it reads tests/fixtures/walker-lines.py's output on stdin (Python's
 * own names and lines for its code objects), reads the same code
 * objects from the live process PID, and compares each; then saves the
 * cache, loads it into a new one and compares again without the process.
 */
#include "compat.h"
#include "walker/pycode.h"
#include "strbuf.h"
#include "tap.h"

#include <unistd.h>

struct want_line {
	uint32_t off, line;
};

struct want_code {
	uint64_t addr;
	uint32_t first;
	uint16_t tag;		/* walker_code_tag(), read in the live pass */
	char *name, *file;
	struct want_line *lines;
	size_t nr, alloc;
};

static int compare(struct pycode_cache *c, pid_t pid,
		   const struct pytarget *t, struct want_code *w, size_t nw,
		   const char *pass)
{
	size_t i, j, lines = 0;
	int bad = 0;

	for (i = 0; i < nw; i++) {
		const struct pycode *pc;
		int ok;

		/* the frame's tag, as the walker takes it (the live pass) */
		if (t)
			pycode_tag(t, w[i].addr, &w[i].tag);
		pc = t ? pycode_get(c, t, w[i].addr, w[i].tag) :
			 pycode_find(c, pid, w[i].addr, w[i].tag);

		ok = pc && pc->named && !strcmp(pc->qualname, w[i].name) &&
		     !strcmp(pc->filename, w[i].file) &&
		     pc->firstlineno == w[i].first;
		TAP_OK(ok, "%s: code %s (%s:%u)", pass, w[i].name, w[i].file,
		       w[i].first);
		if (!ok) {
			if (pc)
				printf("#   got %s (%s:%u)\n", pc->qualname,
				       pc->filename, pc->firstlineno);
			bad++;
			continue;
		}
		for (j = 0; j < w[i].nr; j++) {
			uint32_t got = pycode_line(c, pc, w[i].lines[j].off);

			lines++;
			if (got != w[i].lines[j].line) {
				printf("# %s: %s offset %u: line %u, python "
				       "says %u\n", pass, w[i].name,
				       w[i].lines[j].off, got,
				       w[i].lines[j].line);
				bad++;
			}
		}
		/* not started: the first line, as CPython says */
		if (pycode_line(c, pc, 0xffffffffu) != w[i].first)
			bad++;
	}
	TAP_OK(!bad, "%s: %zu code objects, %zu offsets agree with python",
	       pass, nw, lines);
	return bad;
}

static int check(pid_t pid)
{
	struct pytarget t;
	struct pycode_cache *c, *c2;
	struct want_code *w = NULL;
	size_t nw = 0, aw = 0, i;
	struct strbuf sb;
	char *line, *save = NULL, err[PPR_ERR_LEN], path[64];
	enum pytarget_status st;

	strbuf_init(&sb, 1 << 16);
	if (strbuf_read_fd(&sb, 0, 64 << 20) < 0)
		return 2;
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		unsigned f, o, l;
		int pos = 0;

		if (sscanf(line, "code %llu %u %n", &a, &f, &pos) == 2 && pos) {
			char *sp = strchr(line + pos, ' ');

			if (!sp)
				return 2;
			if (nw == aw) {
				aw = aw ? 2 * aw : 16;
				w = realloc(w, aw * sizeof(*w));
			}
			memset(&w[nw], 0, sizeof(*w));
			w[nw].addr = a;
			w[nw].first = f;
			w[nw].name = strndup(line + pos,
					     (size_t)(sp - (line + pos)));
			w[nw].file = strdup(sp + 1);
			nw++;
		} else if (sscanf(line, "line %u %u", &o, &l) == 2 && nw) {
			struct want_code *x = &w[nw - 1];

			if (x->nr == x->alloc) {
				x->alloc = x->alloc ? 2 * x->alloc : 64;
				x->lines = realloc(x->lines,
						   x->alloc * sizeof(*x->lines));
			}
			x->lines[x->nr].off = o;
			x->lines[x->nr++].line = l;
		}
	}
	strbuf_release(&sb);
	st = pytarget_inspect(pid, &t);
	TAP_INT(st, PYTARGET_OK, "inspect %d: %s", (int)pid,
		st ? t.why : t.version);
	if (st != PYTARGET_OK)
		return tap_done();
	c = pycode_cache_new();
	compare(c, pid, &t, w, nw, "live");
	/* a second lookup is served by the cache */
	TAP_OK(nw && pycode_get(c, &t, w[0].addr, (uint16_t)w[0].first) ==
	       pycode_find(c, pid, w[0].addr, (uint16_t)w[0].first),
	       "the cache serves a second lookup");
	TAP_OK(nw && !pycode_get(c, &t, w[0].addr,
				 (uint16_t)(w[0].first + 1)),
	       "a wrong tag (a reused address) is not named");
	snprintf(path, sizeof(path), "pycode.%d", (int)getpid());
	TAP_INT(pycode_save(c, path, err, sizeof(err)), 0, "save: %s", err);
	c2 = pycode_cache_new();
	TAP_INT(pycode_load(c2, path, err, sizeof(err)), 0, "load: %s", err);
	compare(c2, pid, NULL, w, nw, "session file");
	unlink(path);
	pycode_cache_free(c);
	pycode_cache_free(c2);
	for (i = 0; i < nw; i++) {
		free(w[i].name);
		free(w[i].file);
		free(w[i].lines);
	}
	free(w);
	return tap_done();
}

static struct pycode_cache *load_str(const char *s, int *r)
{
	struct pycode_cache *c = pycode_cache_new();
	char err[PPR_ERR_LEN];

	*r = pycode_load_buf(c, s, strlen(s), err, sizeof(err));
	return c;
}

/*
 * Code objects built in this process's own memory at 3.11's offsets,
 * read back through process_vm_readv: a good one, then damaged ones
 * (bad pointers, absurd sizes, a non-compact str) that must give NULL.
 */
static void put64(unsigned char *b, unsigned off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static void fake_str(unsigned char *b, const struct pytarget_code *k,
		     const char *s, int ascii)
{
	uint32_t state = 1u << k->str_kind_bit | 1u << k->str_compact_bit |
		(ascii ? 1u << k->str_ascii_bit : 0);

	memset(b, 0, 128);
	put64(b, k->str_length, strlen(s));
	memcpy(b + k->str_state, &state, 4);
	memcpy(b + (ascii ? k->str_ascii_size : k->str_compact_size), s,
	       strlen(s));
}

static void fake_objects(void)
{
	static _Alignas(8) unsigned char code[256], name[128], file[128],
		table[64], bad[128];
	const struct pytarget_code *k = pytarget_table_code(3, 11);
	struct pytarget t;
	struct pycode_cache *c = pycode_cache_new();
	const struct pycode *p;
	int32_t first = 7;
	uint32_t bad_state;
	uint16_t tag;

	memset(&t, 0, sizeof(t));
	t.pid = getpid();
	t.hexversion = 0x030b07f0;
	t.code = *k;
	/* the walker's tag: the first line and the file name (no name) */
	t.layout.code_filename = k->co_filename;
	memcpy(code + k->co_firstlineno, &first, 4);
	fake_str(name, k, "Fake.run", 1);
	fake_str(file, k, "caf\xe9.py", 0);	/* kind 1, not ASCII */
	put64(table, k->bytes_size, 2);
	table[k->bytes_sval] = 0x80 | 13 << 3;	/* 1 unit, no column */
	table[k->bytes_sval + 1] = 2;		/* line +1 */
	put64(code, k->co_qualname, (uintptr_t)name);
	put64(code, k->co_filename, (uintptr_t)file);
	put64(code, k->co_linetable, (uintptr_t)table);
	tag = walker_code_tag(7, (uintptr_t)file, 0);
	p = pycode_get(c, &t, (uintptr_t)code, tag);
	TAP_OK(p && p->named && !strcmp(p->qualname, "Fake.run") &&
	       !strcmp(p->filename, "caf\xc3\xa9.py") && p->firstlineno == 7,
	       "a code object built in memory is read (latin-1 to UTF-8)");
	TAP_INT(pycode_line(c, p, 0), 8, "its line table is read");
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code, walker_code_tag(8,
			   (uintptr_t)file, 0)),
	       "a tag of another first line: NULL");
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code, walker_code_tag(7,
			   (uintptr_t)name, 0)),
	       "a tag of another file name (a module body at the address "
	       "of one freed): NULL");
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code + 4, tag),
	       "a misaligned address: NULL");
	TAP_OK(!pycode_get(c, &t, 8, tag), "an unmapped address: NULL");
	/* damaged: the name points nowhere */
	put64(code, k->co_qualname, 16);
	TAP_OK(pycode_get(c, &t, (uintptr_t)code, tag) == p &&
	       !strcmp(p->qualname, "Fake.run"),
	       "the cache answers without reading the object again");
	pycode_cache_free(c);
	c = pycode_cache_new();
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code, tag),
	       "a name pointer to unmapped memory: NULL");
	/* a str with an absurd length */
	fake_str(bad, k, "x", 1);
	put64(bad, k->str_length, (uint64_t)1 << 40);
	put64(code, k->co_qualname, (uintptr_t)bad);
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code, tag),
	       "a str of 2^40 characters: NULL");
	/* a str that is not compact */
	fake_str(bad, k, "x", 1);
	bad_state = 1u << k->str_kind_bit;
	memcpy(bad + k->str_state, &bad_state, 4);
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code, tag),
	       "a str that is not compact: NULL");
	/* a line table of absurd size */
	put64(code, k->co_qualname, (uintptr_t)name);
	put64(table, k->bytes_size, (uint64_t)1 << 33);
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code, tag),
	       "a line table of 8 GiB: NULL");
	put64(table, k->bytes_size, 2);
	TAP_OK(pycode_get(c, &t, (uintptr_t)code, tag) != NULL,
	       "repaired, it reads again");
	pycode_cache_free(c);
	/*
	 * With co_name in the tag (walker_code_tag()): its hash, or its
	 * address while the hash is -1 (not computed)
	 */
	c = pycode_cache_new();
	t.layout.code_filename = k->co_filename;
	t.layout.code_name = k->co_name;
	t.layout.str_hash = k->str_length + 8;
	put64(code, k->co_name, (uintptr_t)name);
	put64(name, k->str_length + 8, 0x123456789abcdef0ull);
	TAP_OK(!pycode_tag(&t, (uintptr_t)code, &tag) &&
	       tag == walker_code_tag(7, (uintptr_t)file,
				      0x123456789abcdef0ull),
	       "the tag has the name's hash");
	TAP_OK(pycode_get(c, &t, (uintptr_t)code, tag) != NULL,
	       "  and names the code object");
	TAP_OK(!pycode_get(c, &t, (uintptr_t)code, walker_code_tag(7,
			   (uintptr_t)file, 0x123456789abcdef1ull)),
	       "a tag of another name's hash (a function made by exec() "
	       "where the last one was freed): NULL");
	put64(name, k->str_length + 8, (uint64_t)-1);
	TAP_OK(!pycode_tag(&t, (uintptr_t)code, &tag) &&
	       tag == walker_code_tag(7, (uintptr_t)file, (uintptr_t)name),
	       "a hash not computed: the name's address");
	pycode_cache_free(c);
}

int main(int argc, char **argv)
{
	struct pycode_cache *c;
	const struct pycode *p;
	int r;

	if (argc == 3 && !strcmp(argv[1], "check"))
		return check((pid_t)atoi(argv[2]));
	fake_objects();

	/* 3.8 lnotab: +6 bytes +1 line, +4 bytes +2 lines, +250 +200 */
	c = load_str("pyperf-run pycode 1\n"
		     "c 7 1000 10 10 8 0 f a%20b.py 060104020a7f\n", &r);
	TAP_INT(r, 0, "an lnotab entry loads");
	p = pycode_find(c, 7, 0x1000, 10);
	TAP_OK(p && !strcmp(p->filename, "a b.py") && !p->qualified,
	       "escaped file name, not qualified");
	TAP_INT(pycode_line(c, p, 0), 10, "lnotab: offset 0");
	TAP_INT(pycode_line(c, p, 5), 10, "lnotab: offset 5");
	TAP_INT(pycode_line(c, p, 6), 11, "lnotab: offset 6");
	TAP_INT(pycode_line(c, p, 10), 13, "lnotab: offset 10");
	TAP_INT(pycode_line(c, p, 19), 13, "lnotab: offset 19");
	TAP_INT(pycode_line(c, p, 20), 140, "lnotab: offset 20 (+127)");
	TAP_INT(pycode_line(c, p, 0xffffffffu), 10, "not started: first line");
	pycode_cache_free(c);

	/*
	 * pycode_spill(): an exited process's lines out, the others kept
	 * (the same address in both, one chain), and the spilled lines,
	 * the header and the rest load back to the whole.
	 */
	{
		static const char two[] = "pyperf-run pycode 1\n"
			"c 7 1000 1 1 11 0 f a.py -\n"
			"c 8 1000 1 1 11 1 F.g b.py -\n"
			"c 7 3000 2 2 11 1 h a.py -\n"
			"t 7 70 worker\n"
			"t 8 80 main\n"
			"t 7 71 other\n";
		struct strbuf out = STRBUF_INIT, all = STRBUF_INIT;
		const char *ex;

		c = load_str(two, &r);
		TAP_INT(r, 0, "two processes' code objects and threads load");
		pycode_spill(c, 7, &out);
		TAP_STR(out.buf, "c 7 1000 1 1 11 0 f a.py -\n"
			"c 7 3000 2 2 11 1 h a.py -\n"
			"t 7 70 worker\nt 7 71 other\n",
			"spill: process 7's lines");
		TAP_OK(!pycode_find(c, 7, 0x1000, 1) &&
		       !pycode_find(c, 7, 0x3000, 2) &&
		       !pycode_thread_name(c, 7, 70) &&
		       !pycode_thread_name(c, 7, 71), "  and gone from the cache");
		TAP_OK(pycode_find(c, 8, 0x1000, 1) &&
		       !strcmp(pycode_thread_name(c, 8, 80), "main"),
		       "  process 8's kept, the shared address too");
		TAP_INT(pycode_unqualified(c, &ex), 1, "  the spilled "
			"unqualified name still counted");
		TAP_STR(ex, "f", "  and its example kept");
		pycode_header(&all);
		strbuf_addstr(&all, out.buf);
		pycode_lines(c, &all);
		pycode_cache_free(c);
		c = load_str(all.buf, &r);
		TAP_OK(!r && pycode_find(c, 7, 0x1000, 1) &&
		       pycode_find(c, 8, 0x1000, 1) &&
		       pycode_find(c, 7, 0x3000, 2) &&
		       !strcmp(pycode_thread_name(c, 7, 71), "other") &&
		       !strcmp(pycode_thread_name(c, 8, 80), "main"),
		       "header, spill and the rest load back to the whole");
		pycode_cache_free(c);
		strbuf_release(&out);
		strbuf_release(&all);
	}

	/* exec'd code has no file name: a lone "%" is the empty string */
	c = load_str("pyperf-run pycode 1\n"
		     "c 7 1000 1 1 11 1 %3cmodule%3e % -\n", &r);
	TAP_INT(r, 0, "an entry without a file name loads");
	p = pycode_find(c, 7, 0x1000, 1);
	TAP_OK(p && !strcmp(p->filename, "") &&
	       !strcmp(p->qualname, "<module>"), "  with an empty file name");
	pycode_cache_free(c);

	/* 3.10: 4 bytes +1, 2 bytes no line (-128 = 0x80), 4 bytes -1 */
	c = load_str("pyperf-run pycode 1\n"
		     "c 7 2000 20 20 10 0 g g.py 04010280" "04ff\n", &r);
	TAP_INT(r, 0, "a 3.10 line table loads");
	p = pycode_find(c, 7, 0x2000, 20);
	TAP_INT(pycode_line(c, p, 2), 21, "3.10: offset 2");
	TAP_INT(pycode_line(c, p, 4), 0, "3.10: offset 4 has no line");
	TAP_INT(pycode_line(c, p, 6), 20, "3.10: offset 6");
	TAP_INT(pycode_line(c, p, 10), 0, "3.10: past the end");
	pycode_cache_free(c);

	/*
	 * 3.11+: 0x80|13<<3|0 = 0xe8, svarint +1 (2): 1 unit, line 31;
	 * 0xf9 (15, 2 units): no location; 0xd8|1 = 0xd9 (11: +1, 2 units,
	 * two column bytes): line 32; 0xf0 (14, 1 unit) long form with
	 * svarint -2 (5), end line, cols: line 30; 0x80 (short, 1 unit,
	 * one column byte): line 30.
	 */
	c = load_str("pyperf-run pycode 1\n"
		     "c 9 3000 30 30 11 1 K.m%c3%a9 m.py "
		     "e802f9d90102f00500010280 01\n", &r);
	TAP_INT(r, -1, "a space inside the table is refused");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\n"
		     "c 9 3000 30 30 11 1 K.m%c3%a9 m.py "
		     "e802f9d90102f0050001028001\n", &r);
	TAP_INT(r, 0, "a location table loads");
	p = pycode_find(c, 9, 0x3000, 30);
	TAP_OK(p && !strcmp(p->qualname, "K.m\xc3\xa9") && p->qualified,
	       "non-ASCII qualname");
	TAP_INT(pycode_line(c, p, 0), 31, "3.11: offset 0");
	TAP_INT(pycode_line(c, p, 2), 0, "3.11: offset 2 has no location");
	TAP_INT(pycode_line(c, p, 4), 0, "3.11: offset 4 has no location");
	TAP_INT(pycode_line(c, p, 6), 32, "3.11: offset 6");
	TAP_INT(pycode_line(c, p, 8), 32, "3.11: offset 8 (a CACHE unit)");
	TAP_INT(pycode_line(c, p, 10), 30, "3.11: offset 10, long form");
	TAP_INT(pycode_line(c, p, 12), 30, "3.11: offset 12, short form");
	TAP_INT(pycode_line(c, p, 14), 0, "3.11: past the end");
	TAP_INT(pycode_line(c, p, 0xfffffffeu), 30,
		"3.11: prev_instr before the code: the first line");
	pycode_cache_free(c);

	c = load_str("pyperf-run pycode 2\n", &r);
	TAP_INT(r, -1, "another version is refused");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nc 1 10 5 5 8 0 a b -", &r);
	TAP_INT(r, -1, "a cut line is refused");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nc 1 10 5 6 8 0 a b -\n", &r);
	TAP_OK(!r && pycode_find(c, 1, 0x10, 5) &&
	       pycode_find(c, 1, 0x10, 5)->firstlineno == 6,
	       "a tag that is not the first line's loads (it mixes in the "
	       "file name's address)");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nc 1 10 5 5 8 0 a%00 b -\n", &r);
	TAP_INT(r, -1, "an escaped NUL is refused");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nc 1 10 5 5 8 0 a b -\n"
		     "c 1 10 5 5 8 0 a b -\n", &r);
	TAP_INT(r, -1, "a duplicate entry is refused");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nc 1 10 5 5 9 0 a b -\n", &r);
	TAP_INT(r, -1, "an unknown table format is refused");
	pycode_cache_free(c);

	/* Python's thread names: "t PID TID NAME", and a 3.8 name qualified */
	c = load_str("pyperf-run pycode 1\n"
		     "c 7 1000 10 10 8 0 method a.py -\n"
		     "t 7 7 MainThread\n"
		     "t 7 9 worker%20%ce%b1\n", &r);
	TAP_INT(r, 0, "thread names load");
	TAP_OK(pycode_thread_name(c, 7, 7) &&
	       !strcmp(pycode_thread_name(c, 7, 7), "MainThread") &&
	       !strcmp(pycode_thread_name(c, 7, 9), "worker \xce\xb1") &&
	       !pycode_thread_name(c, 7, 8) && !pycode_thread_name(c, 8, 7),
	       "a thread's name by (pid, tid), escaped");
	TAP_INT(pycode_thread_set(c, 7, 9, "renamed"), 0, "a rename");
	TAP_INT((long)pycode_threads(c), 2, "two threads");
	TAP_INT(pycode_qualify(c, 7, 0x1000, 10, "Delta.method"), 0,
		"a 3.8 name qualified");
	TAP_INT(pycode_qualify(c, 7, 0x1000, 11, "X.y"), -1,
		"no entry of that tag: refused");
	p = pycode_find(c, 7, 0x1000, 10);
	TAP_OK(p && p->qualified && !strcmp(p->qualname, "Delta.method"),
	       "the entry has the qualified name");
	{
		const char *ex;
		char path[64], err[PPR_ERR_LEN];
		struct pycode_cache *c2 = pycode_cache_new();

		TAP_INT((long)pycode_unqualified(c, &ex), 0,
			"no entry is left unqualified");
		snprintf(path, sizeof(path), "pycode-t.%d", (int)getpid());
		TAP_INT(pycode_save(c, path, err, sizeof(err)), 0, "save: %s",
			err);
		TAP_INT(pycode_load(c2, path, err, sizeof(err)), 0, "load: %s",
			err);
		unlink(path);
		p = pycode_find(c2, 7, 0x1000, 10);
		TAP_OK(p && p->qualified && !strcmp(p->qualname,
						    "Delta.method") &&
		       !strcmp(pycode_thread_name(c2, 7, 9), "renamed") &&
		       !strcmp(pycode_thread_name(c2, 7, 7), "MainThread"),
		       "names and thread names saved and read back");
		pycode_cache_free(c2);
	}
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nt 7 7 a\nt 7 7 b\n", &r);
	TAP_INT(r, -1, "a thread named twice is refused");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nt 7 0 a\n", &r);
	TAP_INT(r, -1, "tid 0 is refused");
	pycode_cache_free(c);
	c = load_str("pyperf-run pycode 1\nt 7 7\n", &r);
	TAP_INT(r, -1, "a thread without a name is refused");
	pycode_cache_free(c);
	return tap_done();
}
