/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for pcs, as perf names them: interned strings; per file a
 * sorted table of function symbols (.symtab, else the separate debug
 * file's, else .dynsym; PLT entries as "name@plt"); kernel symbols
 * from the session's kallsyms, else /proc/kallsyms.  Anonymous code
 * keeps perf's object name "/tmp/perf-PID.map" and no symbol: the
 * report names it from the session's own perf maps.  Calls into
 * maps.c and elffile.c only (see unwind_priv.h).
 */
#include "compat.h"
#include "alloc.h"
#include "kallsyms.h"
#include "unwind/unwind_priv.h"

#include <dlfcn.h>
#include <gelf.h>
#include <zlib.h>

#define UNKNOWN "[unknown]"

/*
 * C++ names as perf shows them: demangled, without the parameter list.
 * The demangler is libstdc++'s __cxa_demangle, looked up at run time
 * (every C++ program has libstdc++; a C-only machine keeps the mangled
 * names).  Returns a malloc()ed string, or NULL to keep name.
 */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static char *demangle(const char *name)
{
	static demangle_fn fn;
	static int tried;
	char *out, *close_at;
	int status = -1, depth = 0;
	size_t n;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = 1;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	if (!fn || !(out = fn(name, NULL, NULL, &status)) || status) {
		if (status == 0)
			free(out);
		return NULL;
	}
	/* the last ')', followed by nothing but qualifiers */
	close_at = strrchr(out, ')');
	if (!close_at || (close_at[1] && strcmp(close_at + 1, " const") &&
			  strcmp(close_at + 1, " volatile") &&
			  strcmp(close_at + 1, " &") &&
			  strcmp(close_at + 1, " &&") &&
			  strcmp(close_at + 1, " noexcept")))
		return out;
	for (n = (size_t)(close_at - out) + 1; n-- > 0;) {
		if (out[n] == ')')
			depth++;
		else if (out[n] == '(' && !--depth) {
			if (n)
				out[n] = '\0';
			break;
		}
	}
	return out;
}

static const struct sym *sym_of(struct unwind *u, const char *name,
				const char *dso, int jit, int nosym)
{
	size_t ln = strlen(name), ld = strlen(dso);
	char *key = xmalloc(ln + ld + 3);
	struct smap_ent *e;
	struct sym *s;

	memcpy(key, name, ln + 1);
	memcpy(key + ln + 1, dso, ld + 1);
	key[ln + ld + 2] = (char)('0' + !!jit + 2 * !!nosym);
	e = smap_get(&u->syms, key, ln + ld + 3, NULL);
	free(key);
	if (!e->val) {
		char *dm = nosym ? NULL : demangle(name);

		s = xcalloc(1, sizeof(*s));
		s->sym = dm ? intern(u, dm, strlen(dm)) : intern(u, name, ln);
		free(dm);
		s->dso = intern(u, dso, ld);
		s->jit = !!jit;
		s->nosym = !!nosym;
		e->val = s;
	}
	return e->val;
}

void syms_free(struct unwind *u)
{
	smap_release(&u->syms, free);
}

/* --- kernel --------------------------------------------------------------- */

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The session's kallsyms.gz (record saves it; an older session's plain
 * kallsyms too), else /proc/kallsyms, read
 * whole; the names stay in u->kbuf.  Lines: "ADDR TYPE NAME[\t[MOD]]";
 * function symbols only (t, T, w, W), as perf keeps.
 */
static void ksyms_load(struct unwind *u)
{
	char path[4096], *buf = NULL;
	const char *p, *next;
	size_t alloc = 0, len = 0, kalloc = 0;
	gzFile fp = NULL;
	int sorted = 1;		/* the lines came in address order */

	u->ksyms_loaded = 1;
	/* gzread() reads plain files as they are */
	if (u->dir) {
		snprintf(path, sizeof(path), "%s/kallsyms.gz", u->dir);
		fp = gzopen(path, "rbe");
		if (!fp) {
			snprintf(path, sizeof(path), "%s/kallsyms", u->dir);
			fp = gzopen(path, "rbe");
		}
	}
	if (!fp)
		fp = gzopen("/proc/kallsyms", "rbe");
	if (!fp)
		return;
	for (;;) {
		int got;

		if (alloc - len < 65536) {
			alloc = alloc ? 2 * alloc : 1 << 22;
			buf = xrealloc(buf, alloc);
		}
		got = gzread(fp, buf + len, (unsigned)(alloc - len - 1));
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	gzclose(fp);
	buf[len] = '\0';
	u->kbuf = buf;
	for (p = buf; p < buf + len; p = next) {
		struct kallsyms_line l;

		if (kallsyms_parse(p, buf + len, &l, &next) || !l.addr ||
		    !kallsyms_is_text(l.type))
			continue;
		/* the name and module NUL-terminated in place */
		((char *)l.name)[l.name_len] = '\0';
		if (l.mod)
			((char *)l.mod)[l.mod_len] = '\0';
		ALLOC_GROW(u->ksyms, u->nr_ksyms + 1, kalloc);
		if (u->nr_ksyms && l.addr < u->ksyms[u->nr_ksyms - 1].addr)
			sorted = 0;
		u->ksyms[u->nr_ksyms].addr = l.addr;
		u->ksyms[u->nr_ksyms].name = l.name;
		u->ksyms[u->nr_ksyms].dso = l.mod && *l.mod == '[' ? l.mod :
			"[kernel.kallsyms]";
		u->nr_ksyms++;
	}
	/*
	 * /proc/kallsyms lists the kernel's symbols in address order (its
	 * modules' after them, each module's in order): a check of the
	 * order costs nothing beside the parse, where glibc's qsort of
	 * 120k sorted entries still merges them all (a tenth of a small
	 * report's time here)
	 */
	if (u->nr_ksyms && !sorted)
		qsort(u->ksyms, u->nr_ksyms, sizeof(*u->ksyms), ksym_cmp);
}

const struct sym *ksymbolize(struct unwind *u, uint64_t pc)
{
	struct umap_ent *e = umap_find(&u->kcache, pc);
	const struct sym *s;
	size_t lo = 0, hi;

	if (e)
		return e->val;
	if (!u->ksyms_loaded)
		ksyms_load(u);
	hi = u->nr_ksyms;
	if (!hi || pc < u->ksyms[0].addr) {
		s = sym_of(u, UNKNOWN, "[kernel.kallsyms]", 0, 1);
	} else {
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (u->ksyms[mid].addr <= pc)
				lo = mid;
			else
				hi = mid;
		}
		s = sym_of(u, u->ksyms[lo].name, u->ksyms[lo].dso, 0, 0);
	}
	umap_get(&u->kcache, pc, NULL)->val = (void *)s;
	return s;
}

void ksyms_free(struct unwind *u)
{
	free(u->ksyms);
	free(u->kbuf);
	umap_release(&u->kcache);
}

/* --- ELF files ------------------------------------------------------------ */

static void fsym_add(struct unwind *u, struct file *f, size_t *alloc,
		     uint64_t off, uint64_t size, const char *name, int rank)
{
	ALLOC_GROW(f->syms, f->nr_syms + 1, *alloc);
	f->syms[f->nr_syms].off = off;
	f->syms[f->nr_syms].size = size;
	f->syms[f->nr_syms].name = intern(u, name, strlen(name));
	f->syms[f->nr_syms].rank = rank;
	f->nr_syms++;
}

/*
 * By address, the alias to keep first: typed over untyped, non-weak
 * over weak, global over local, fewer leading underscores, then the
 * longer name (the order perf's own choice follows, so names agree:
 * "clone3", not "__clone3").
 */
static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->rank != y->rank)
		return y->rank - x->rank;
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Add the function symbols of elf's sections of type type to f. */
static size_t fsyms_add(struct unwind *u, struct file *f, Elf *elf,
			Elf64_Word type, size_t *alloc)
{
	Elf_Scn *scn = NULL;
	size_t before = f->nr_syms;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n && i < INT32_MAX; i++) {
			GElf_Sym sym;
			const char *name;
			int t, bind;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			t = GELF_ST_TYPE(sym.st_info);
			if (sym.st_shndx == SHN_UNDEF || !sym.st_value ||
			    (t != STT_FUNC && t != STT_NOTYPE &&
			     t != STT_GNU_IFUNC))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			bind = GELF_ST_BIND(sym.st_info);
			/* untyped labels only where nothing else is */
			fsym_add(u, f, alloc, sym.st_value, sym.st_size, name,
				 t == STT_NOTYPE ? 0 : bind == STB_WEAK ? 1 :
				 bind == STB_GLOBAL ? 3 : 2);
		}
	}
	return f->nr_syms - before;
}

static Elf_Scn *scn_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, want))
			return scn;
	}
	return NULL;
}

/*
 * PLT entries have no symbols; perf names them "name@plt" from the
 * jump-slot relocations, in order: 16-byte entries of .plt.sec when
 * there is one (IBT), else of .plt after its 16-byte header.
 */
static void plt_add(struct unwind *u, struct file *f, Elf *elf,
		    size_t *alloc)
{
	GElf_Shdr rsh, plt, dsh;
	Elf_Scn *rscn, *dscn, *pscn;
	Elf_Data *rdata, *ddata;
	uint64_t base;
	size_t i, n;
	char name[1024];

	rscn = scn_named(elf, ".rela.plt", &rsh);
	if (!rscn || rsh.sh_type != SHT_RELA || !rsh.sh_entsize)
		return;
	pscn = scn_named(elf, ".plt.sec", &plt);
	if (pscn) {
		base = plt.sh_addr;
	} else {
		pscn = scn_named(elf, ".plt", &plt);
		if (!pscn)
			return;
		base = plt.sh_addr + 16;
	}
	dscn = elf_getscn(elf, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh) ||
	    !(rdata = elf_getdata(rscn, NULL)) ||
	    !(ddata = elf_getdata(dscn, NULL)))
		return;
	n = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < n && i < INT32_MAX; i++) {
		GElf_Rela rela;
		GElf_Sym sym;
		const char *sn;
		uint64_t at = base + 16 * (uint64_t)i;

		if (at + 16 > plt.sh_addr + plt.sh_size)
			break;
		/*
		 * Every slot in order, as perf counts them; one without a
		 * symbol (an IRELATIVE slot) is "@plt", as perf names it.
		 */
		if (!gelf_getrela(rdata, (int)i, &rela))
			continue;
		sn = NULL;
		if (GELF_R_SYM(rela.r_info) <= INT32_MAX &&
		    gelf_getsym(ddata, (int)GELF_R_SYM(rela.r_info), &sym))
			sn = elf_strptr(elf, dsh.sh_link, sym.st_name);
		if (!sn)
			sn = "";
		snprintf(name, sizeof(name), "%s@plt", sn);
		fsym_add(u, f, alloc, at, 16, name, 3);
	}
}

/*
 * f's function symbols by ELF address: .symtab, else the debug file's
 * (/usr/lib/debug/.build-id, or the same in the root f lies in: see
 * debug_file), else .dynsym; then the PLT entries.
 */
static void fsyms_load(struct unwind *u, struct file *f)
{
	size_t alloc = 0, n = 0, k;
	struct file *df;
	Elf *elf = file_elf(f);

	f->syms_loaded = 1;
	if (!elf)
		return;
	if (!fsyms_add(u, f, elf, SHT_SYMTAB, &alloc)) {
		df = debug_file(u, f->path, elf);
		if (!df || !file_elf(df) ||
		    !fsyms_add(u, f, df->elf, SHT_SYMTAB, &alloc))
			fsyms_add(u, f, elf, SHT_DYNSYM, &alloc);
	}
	plt_add(u, f, elf, &alloc);
	if (!f->nr_syms)
		return;
	qsort(f->syms, f->nr_syms, sizeof(*f->syms), fsym_cmp);
	/* one symbol per address: the best-ranked alias */
	for (k = 0; k < f->nr_syms; k++)
		if (!n || f->syms[n - 1].off != f->syms[k].off)
			f->syms[n++] = f->syms[k];
	f->nr_syms = n;
}

/*
 * The function holding ELF address addr of f, or NULL.  A sized symbol
 * holds [off, off + size); an unsized one (hand-written assembly)
 * reaches to the next symbol.
 */
static const char *fsym_name(struct unwind *u, struct file *f, uint64_t addr)
{
	size_t a = 0, b;

	if (!f->syms_loaded)
		fsyms_load(u, f);
	b = f->nr_syms;
	if (!b || addr < f->syms[0].off)
		return NULL;
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2;

		if (f->syms[mid].off <= addr)
			a = mid;
		else
			b = mid;
	}
	if (f->syms[a].size && addr - f->syms[a].off >= f->syms[a].size)
		return NULL;
	return f->syms[a].name;
}


/* The symbol of pc in p, as perf names it. */
const struct sym *symbolize(struct proc *p, uint64_t pc)
{
	struct unwind *u = p->u;
	struct umap_ent *e = umap_find(&p->syms, pc);
	const struct sym *s;
	struct mapping *m;
	const char *name = NULL;

	if (e) {
		u->st.sym_hits++;
		return e->val;
	}
	u->st.sym_misses++;
	m = map_find(p, pc);
	if (!m) {
		s = sym_of(u, UNKNOWN, UNKNOWN, 0, 1);
	} else {
		if (m->f && !map_bias(m) && file_elf(m->f))
			name = fsym_name(u, m->f, pc - m->bias);
		s = sym_of(u, name ? name : UNKNOWN, m->name, m->jit, !name);
	}
	umap_get(&p->syms, pc, NULL)->val = (void *)s;
	return s;
}
