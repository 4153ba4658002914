/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small ELF reader (see elfinfo.h): the ELF header, the section
 * headers and their names, the build-id note and the dynamic section.
 * Every offset and size is checked against the file before use.
 */
#include "compat.h"
#include "elfinfo.h"
#include "alloc.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define ELF_MAX_BYTES (1ULL << 31)

struct img {
	const unsigned char *b;
	size_t len;
};

static uint64_t rd(const struct img *m, uint64_t off, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = n; i-- > 0;)
		v = v << 8 | m->b[off + i];
	return v;
}

static int fits(const struct img *m, uint64_t off, uint64_t len)
{
	return off <= m->len && len <= m->len - off;
}

/* Read part of the file: [off, off + len). */
static int read_at(int fd, uint64_t off, size_t len, unsigned char *buf)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, buf + done, len - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

struct section {
	uint32_t name, type;
	uint64_t offset, size, link;
};

/* A section's bytes, or NULL when they are not in the file. */
static unsigned char *load(int fd, uint64_t fsize, uint64_t off,
			   uint64_t size, uint64_t max)
{
	unsigned char *b;

	if (!size || size > max || off > fsize || size > fsize - off)
		return NULL;
	b = xmalloc((size_t)size + 1);
	if (read_at(fd, off, (size_t)size, b)) {
		free(b);
		return NULL;
	}
	b[size] = '\0';
	return b;
}

static void parse_notes(const unsigned char *b, uint64_t size,
			struct elf_info *out)
{
	struct img m = { b, (size_t)size };
	uint64_t off = 0;

	while (fits(&m, off, 12)) {
		uint64_t namesz = rd(&m, off, 4), descsz = rd(&m, off + 4, 4);
		uint64_t type = rd(&m, off + 8, 4);
		uint64_t name = off + 12;
		uint64_t desc = name + ((namesz + 3) & ~3ULL);
		uint64_t i;

		if (!fits(&m, name, namesz) || !fits(&m, desc, descsz))
			return;
		if (type == 3 && namesz == 4 && !memcmp(b + name, "GNU", 4) &&
		    descsz && descsz * 2 < sizeof(out->build_id)) {
			for (i = 0; i < descsz; i++)
				snprintf(out->build_id + 2 * i, 3, "%02x",
					 b[desc + i]);
			return;
		}
		off = desc + ((descsz + 3) & ~3ULL);
	}
}

static void parse_dynamic(const unsigned char *dyn, uint64_t dsize,
			  const unsigned char *str, uint64_t ssize,
			  struct elf_info *out)
{
	struct img m = { dyn, (size_t)dsize };
	uint64_t off;

	for (off = 0; fits(&m, off, 16); off += 16) {
		uint64_t tag = rd(&m, off, 8), val = rd(&m, off + 8, 8);

		if (tag == 0)
			break;
		/* DT_NEEDED; the name must end inside the table */
		if (tag == 1 && val < ssize &&
		    memchr(str + val, '\0', (size_t)(ssize - val)))
			strvec_push(&out->needed, (const char *)str + val);
	}
}

/*
 * Open path, a regular file, and read its ELF header into eh, checked to
 * be a 64-bit little-endian ELF file: the descriptor (*fsize the file's
 * size), or -1 with err.
 */
static int elf_open(const char *path, unsigned char eh[64], uint64_t *fsize,
		    char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return set_err(err, errlen, "cannot open '%s': %s", path,
			       strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		set_err(err, errlen, "'%s' is not a regular file", path);
	} else if (read_at(fd, 0, 64, eh) || memcmp(eh, "\177ELF", 4)) {
		set_err(err, errlen, "'%s' is not an ELF file", path);
	} else if (eh[4] != 2 || eh[5] != 1) {
		set_err(err, errlen, "'%s' is not a 64-bit little-endian ELF "
			"file", path);
	} else {
		*fsize = (uint64_t)st.st_size;
		return fd;
	}
	close(fd);
	return -1;
}

int elf_info_read(const char *path, struct elf_info *out, char *err,
		  size_t errlen)
{
	unsigned char eh[64];
	unsigned char *sh = NULL, *names = NULL;
	struct img h = { eh, sizeof(eh) }, s;
	uint64_t shoff, shnum, shentsize, shstrndx, i, names_size = 0, fsize;
	int fd, ret = -1;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->needed);
	fd = elf_open(path, eh, &fsize, err, errlen);
	if (fd < 0)
		return -1;
	shoff = rd(&h, 0x28, 8);
	shentsize = rd(&h, 0x3a, 2);
	shnum = rd(&h, 0x3c, 2);
	shstrndx = rd(&h, 0x3e, 2);
	if (shentsize < 64 || !shnum || shstrndx >= shnum) {
		set_err(err, errlen, "'%s' has no usable section headers",
			path);
		goto out;
	}
	sh = load(fd, fsize, shoff, shnum * shentsize,
		  1 << 24);
	if (!sh) {
		set_err(err, errlen, "'%s' is damaged (section headers)",
			path);
		goto out;
	}
	s.b = sh;
	s.len = (size_t)(shnum * shentsize);
	{
		uint64_t o = shstrndx * shentsize;

		names_size = rd(&s, o + 0x20, 8);
		names = load(fd, fsize, rd(&s, o + 0x18, 8),
			     names_size, 1 << 24);
	}
	if (!names) {
		set_err(err, errlen, "'%s' is damaged (section names)", path);
		goto out;
	}
	for (i = 0; i < shnum; i++) {
		uint64_t o = i * shentsize;
		struct section c;
		const char *name;

		c.name = (uint32_t)rd(&s, o, 4);
		c.type = (uint32_t)rd(&s, o + 4, 4);
		c.offset = rd(&s, o + 0x18, 8);
		c.size = rd(&s, o + 0x20, 8);
		c.link = rd(&s, o + 0x28, 4);
		if (c.name >= names_size)
			continue;
		name = (const char *)names + c.name;
		if (c.type == 2)	/* SHT_SYMTAB */
			out->symtab = 1;
		if (!strcmp(name, ".gnu_debuglink"))
			out->debuglink = 1;
		if (!strcmp(name, ".debug_info") && c.type != 8)
			out->debug_info = 1;
		if (c.type == 7 && !out->build_id[0]) {	/* SHT_NOTE */
			unsigned char *n = load(fd, fsize,
						c.offset, c.size, 1 << 16);

			if (n)
				parse_notes(n, c.size, out);
			free(n);
		}
		if (c.type == 6 && c.link < shnum) {	/* SHT_DYNAMIC */
			uint64_t lo = c.link * shentsize;
			uint64_t ssize = rd(&s, lo + 0x20, 8);
			unsigned char *dyn = load(fd, fsize,
						  c.offset, c.size, 1 << 20);
			unsigned char *str = load(fd, fsize,
						  rd(&s, lo + 0x18, 8), ssize,
						  1 << 24);

			if (dyn && str)
				parse_dynamic(dyn, c.size, str, ssize, out);
			free(dyn);
			free(str);
		}
	}
	ret = 0;
out:
	free(sh);
	free(names);
	close(fd);
	if (ret)
		strvec_clear(&out->needed);
	return ret;
}

void elf_info_release(struct elf_info *e)
{
	strvec_clear(&e->needed);
	memset(e, 0, sizeof(*e));
}

char *elf_debug_file(const char *build_id)
{
	if (!build_id || strlen(build_id) < 4)
		return NULL;
	return xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
			 build_id + 2);
}

/* One symbol table (SHT_SYMTAB 2 or SHT_DYNSYM 11) against the wants. */
static void scan_symbols(const unsigned char *sym, uint64_t ssize,
			 const unsigned char *str, uint64_t strsize,
			 struct elf_want *want, size_t n)
{
	struct img m = { sym, (size_t)ssize };
	uint64_t off;
	size_t i;

	for (off = 0; fits(&m, off, 24); off += 24) {
		uint64_t name = rd(&m, off, 4);
		const char *s;

		if (!name || name >= strsize ||
		    !memchr(str + name, '\0', (size_t)(strsize - name)))
			continue;
		if (rd(&m, off + 6, 2) == 0)	/* SHN_UNDEF: an import */
			continue;
		s = (const char *)str + name;
		for (i = 0; i < n; i++) {
			if (want[i].found || strcmp(s, want[i].name))
				continue;
			want[i].value = rd(&m, off + 8, 8);
			want[i].size = rd(&m, off + 16, 8);
			want[i].found = 1;
		}
	}
}

int elf_find_symbols(const char *path, struct elf_want *want, size_t n,
		     int want_rodata, struct elf_syms *out, char *err,
		     size_t errlen)
{
	unsigned char eh[64];
	unsigned char *sh = NULL, *ph = NULL, *names = NULL;
	struct img h = { eh, sizeof(eh) }, s;
	uint64_t shoff, shnum, shentsize, shstrndx, phoff, phnum, phentsize;
	uint64_t names_size = 0, i, fsize;
	int fd, ret = -1, pass;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		want[i].found = 0;
	fd = elf_open(path, eh, &fsize, err, errlen);
	if (fd < 0)
		return -1;
	phoff = rd(&h, 0x20, 8);
	phentsize = rd(&h, 0x36, 2);
	phnum = rd(&h, 0x38, 2);
	shoff = rd(&h, 0x28, 8);
	shentsize = rd(&h, 0x3a, 2);
	shnum = rd(&h, 0x3c, 2);
	shstrndx = rd(&h, 0x3e, 2);
	if (phentsize >= 56 && phnum &&
	    (ph = load(fd, fsize, phoff, phnum * phentsize, 1 << 20))) {
		struct img p = { ph, (size_t)(phnum * phentsize) };

		for (i = 0; i < phnum; i++) {
			uint64_t o = i * phentsize;
			uint64_t poff = rd(&p, o + 8, 8);
			uint64_t pfsz = rd(&p, o + 0x20, 8);

			/* PT_LOAD holding offset 0 (the ELF header) */
			if (rd(&p, o, 4) == 1 && poff == 0 && pfsz) {
				out->load_vaddr = rd(&p, o + 0x10, 8);
				out->load_offset = poff;
				out->have_load = 1;
				break;
			}
		}
	}
	if (shentsize < 64 || !shnum || shstrndx >= shnum ||
	    !(sh = load(fd, fsize, shoff, shnum * shentsize, 1 << 24))) {
		set_err(err, errlen, "'%s' has no usable section headers",
			path);
		goto out;
	}
	s.b = sh;
	s.len = (size_t)(shnum * shentsize);
	names_size = rd(&s, shstrndx * shentsize + 0x20, 8);
	names = load(fd, fsize, rd(&s, shstrndx * shentsize + 0x18, 8),
		     names_size, 1 << 24);
	/* .symtab first (it has the local symbols too), then .dynsym */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < shnum; i++) {
			uint64_t o = i * shentsize, link, lo, strsize;
			uint32_t type = (uint32_t)rd(&s, o + 4, 4);
			unsigned char *sym, *str;

			if (type != (pass ? 11u : 2u))
				continue;
			link = rd(&s, o + 0x28, 4);
			if (link >= shnum)
				continue;
			lo = link * shentsize;
			strsize = rd(&s, lo + 0x20, 8);
			sym = load(fd, fsize, rd(&s, o + 0x18, 8),
				   rd(&s, o + 0x20, 8), 1u << 30);
			str = load(fd, fsize, rd(&s, lo + 0x18, 8), strsize,
				   1u << 30);
			if (sym && str)
				scan_symbols(sym, rd(&s, o + 0x20, 8), str,
					     strsize, want, n);
			free(sym);
			free(str);
		}
	}
	if (want_rodata && names) {
		for (i = 0; i < shnum; i++) {
			uint64_t o = i * shentsize;
			uint64_t nm = rd(&s, o, 4);

			if (nm >= names_size ||
			    strcmp((const char *)names + nm, ".rodata") ||
			    rd(&s, o + 4, 4) != 1)	/* SHT_PROGBITS */
				continue;
			out->rodata_len = (size_t)rd(&s, o + 0x20, 8);
			out->rodata_addr = rd(&s, o + 0x10, 8);
			out->rodata = load(fd, fsize, rd(&s, o + 0x18, 8),
					   out->rodata_len, 64u << 20);
			if (!out->rodata)
				out->rodata_len = 0;
			break;
		}
	}
	ret = 0;
out:
	free(sh);
	free(ph);
	free(names);
	close(fd);
	return ret;
}

void elf_syms_release(struct elf_syms *s)
{
	free(s->rodata);
	memset(s, 0, sizeof(*s));
}
