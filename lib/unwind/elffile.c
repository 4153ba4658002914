/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The file cache: an object's bytes (read whole), libelf on them, its
 * .eh_frame, where it is loaded in a mapping (the load bias), and its
 * separate debug file.  One per file, shared by every process, found
 * by its resolved path.  The bottom layer of lib/unwind/: it calls
 * nothing there but lib/hmap.c (see unwind_priv.h).
 */
#include "compat.h"
#include "alloc.h"
#include "byteorder.h"
#include "unwind/unwind_priv.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int file_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The cached file at path (resolved), made on first use. */
struct file *file_at(struct unwind *u, const char *path)
{
	struct smap_ent *e = smap_get(&u->files, path, strlen(path), NULL);

	if (!e->val) {
		struct file *f = xcalloc(1, sizeof(*f));

		f->path = xstrdup(path);
		e->val = f;
	}
	return e->val;
}

/*
 * Read f whole: small files (jitted-*.so are about 1 KiB, and there
 * are thousands) into the heap, others mapped.  Private and writable,
 * because libelf (elf_memory()) may write to its image.
 */
#define FILE_HEAP_MAX (256 * 1024)

int file_map(struct file *f)
{
	struct stat st;
	void *m;
	int fd;

	if (f->tried)
		return f->map ? 0 : -1;
	f->tried = 1;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !st.st_size) {
		close(fd);
		return -1;
	}
	if (st.st_size <= FILE_HEAP_MAX) {
		unsigned char *b = xcalloc(1, (size_t)st.st_size);
		ssize_t n = pread(fd, b, (size_t)st.st_size, 0);

		close(fd);
		if (n != st.st_size) {
			free(b);
			return -1;
		}
		f->map = b;
		f->heap = 1;
	} else {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return -1;
		f->map = m;
	}
	f->size = (size_t)st.st_size;
	return 0;
}

void file_free(void *p)
{
	struct file *f = p;

	if (f->eh)
		dwarf_cfi_end(f->eh);
	if (f->elf)
		elf_end(f->elf);
	umap_release(&f->rules);
	smap_release(&f->rule_set, free);
	if (f->map && f->heap)
		free((void *)f->map);
	else if (f->map)
		munmap((void *)f->map, f->size);
	free(f->syms);
	free(f->build_id);
	free(f->path);
	free(f);
}

/*
 * Where f's ELF image lies when mapped as m: the PT_LOAD segment whose
 * (page-rounded) file range holds pgoff is at m->start + (p_offset -
 * pgoff), so bias = start - pgoff + p_offset - p_vaddr; the module
 * spans [bias + first p_vaddr (aligned down), bias + highest end), as
 * libdwfl computes it.  -1 when f is not a 64-bit LE ELF file or no
 * segment holds pgoff.
 */
int elf_layout(const struct mapping *m, uint64_t *bias,
		      uint64_t *lo, uint64_t *hi)
{
	const unsigned char *e;
	uint64_t phoff, first = 0, end = 0;
	unsigned i, phnum, phentsize;
	int found = 0, seen = 0;

	if (file_map(m->f) < 0 || m->f->size < 64)
		return -1;
	e = m->f->map;
	if (memcmp(e, "\177ELF", 4) || e[4] != 2 /* 64-bit */ ||
	    e[5] != 1 /* LE */)
		return -1;
	phoff = get_le64(e + 32);
	phentsize = get_le16(e + 54);
	phnum = get_le16(e + 56);
	if (phentsize < 56 || phoff > m->f->size ||
	    (uint64_t)phnum * phentsize > m->f->size - phoff)
		return -1;
	for (i = 0; i < phnum; i++) {
		const unsigned char *ph = e + phoff + (uint64_t)i * phentsize;
		uint64_t off = get_le64(ph + 8), vaddr = get_le64(ph + 16);
		uint64_t filesz = get_le64(ph + 32);
		uint64_t memsz = get_le64(ph + 40), align = get_le64(ph + 48);

		if (get_le32(ph) != 1 /* PT_LOAD */)
			continue;
		if (!seen++)
			first = align > 1 ? vaddr & ~(align - 1) : vaddr;
		if (vaddr + memsz > end)
			end = vaddr + memsz;
		if (!found && m->pgoff >= (off & ~(uint64_t)4095) &&
		    m->pgoff < off + filesz) {
			*bias = m->start - m->pgoff + off - vaddr;
			found = 1;
		}
	}
	if (!found)
		return -1;
	*lo = *bias + first;
	*hi = *bias + end;
	return 0;
}

/* m's load bias, computed once; -1 when it has none (not ELF, ...). */
int map_bias(struct mapping *m)
{
	uint64_t lo, hi;

	if (!m->bias_state)
		m->bias_state = m->f && !elf_layout(m, &m->bias, &lo, &hi) ?
				1 : -1;
	return m->bias_state > 0 ? 0 : -1;
}

/* libelf on f's image (NULL when it is not ELF). */
Elf *file_elf(struct file *f)
{
	if (!f->elf_tried) {
		f->elf_tried = 1;
		if (!file_map(f))
			f->elf = elf_memory((char *)f->map, f->size);
		if (f->elf && elf_kind(f->elf) != ELF_K_ELF) {
			elf_end(f->elf);
			f->elf = NULL;
		}
		if (f->elf)
			f->eh = dwarf_getcfi_elf(f->elf);
	}
	return f->elf;
}

/* elf's GNU build-id in hex: 0, or -1 when it has none. */
static int elf_build_id(Elf *elf, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff, k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &noff,
						   &doff)) > 0) {
			const unsigned char *id;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz < 2 || nh.n_descsz > 64 ||
			    2 * (size_t)nh.n_descsz >= len)
				continue;
			id = (const unsigned char *)data->d_buf + doff;
			for (k = 0; k < nh.n_descsz; k++)
				snprintf(hex + 2 * k, 3, "%02x", id[k]);
			return 0;
		}
	}
	return -1;
}

const char *file_build_id(struct file *f)
{
	char hex[129];

	if (!f->id_read) {
		f->id_read = 1;
		if (file_elf(f) && !elf_build_id(f->elf, hex, sizeof(hex)))
			f->build_id = xstrdup(hex);
	}
	return f->build_id;
}

/*
 * The separate debug file of elf (read from path) by its build-id, or
 * NULL: /usr/lib/debug/.build-id/xx/rest.debug, else the same under
 * each directory above path, nearest first.  A program in another root
 * (chroot, a container's root seen from here) is named by its path here
 * (/proc/PID/maps as this process sees it: ROOT/usr/bin/python3.14) and
 * its debug files are in ROOT/usr/lib/debug; the build-id is what makes
 * a file found there the right one.
 */
struct file *debug_file(struct unwind *u, const char *path, Elf *elf)
{
	char hex[129], rel[200], buf[4096];
	size_t len;

	if (elf_build_id(elf, hex, sizeof(hex)) < 0)
		return NULL;
	snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 hex, hex + 2);
	if (file_exists(rel))
		return file_at(u, rel);
	if (!path || path[0] != '/')
		return NULL;
	len = strlen(path);
	while (len > 0) {
		/* the parent directory of path[0, len) */
		while (len > 0 && path[len - 1] != '/')
			len--;
		while (len > 0 && path[len - 1] == '/')
			len--;
		if (!len || len + strlen(rel) >= sizeof(buf))
			break;
		memcpy(buf, path, len);
		memcpy(buf + len, rel, strlen(rel) + 1);
		if (file_exists(buf))
			return file_at(u, buf);
	}
	return NULL;
}

