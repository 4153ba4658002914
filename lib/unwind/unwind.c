/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unwinder's setup and teardown: unwind_new() (the session's
 * build-id table, libdwfl's callbacks), unwind_free() (every process,
 * file and name table), unwind_stats().
 *
 * The top layer of lib/unwind/ (see unwind_priv.h): it calls into every
 * other file, and nothing calls into it.
 */
#include "compat.h"
#include "alloc.h"
#include "unwind/unwind_priv.h"

static int take_buildid(void *arg, const struct pd_buildid *b)
{
	struct unwind *u = arg;
	struct smap_ent *e = smap_get(&u->buildids, b->filename,
				      strlen(b->filename), NULL);
	char hex[41];
	size_t i;

	for (i = 0; i < b->id_len && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", b->id[i]);
	hex[2 * i] = '\0';
	free(e->val);
	e->val = xstrdup(hex);
	return 0;
}

int unwind_new(struct unwind **out, const struct unwind_opts *o,
	       const struct perfdata *d, char *err, size_t errlen)
{
	struct unwind *u;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return set_err(err, errlen, "libelf is out of date: %s",
			       elf_errmsg(-1));
	u = xcalloc(1, sizeof(*u));
	if (o && o->session_dir)
		u->dir = xstrdup(o->session_dir);
	u->flags = o ? o->flags : 0;
	dwfl_setup(u);
	/* a damaged table only loses the build-id lookups after it */
	if (d)
		perfdata_each_buildid(d, take_buildid, u);
	*out = u;
	return 0;
}

void unwind_free(struct unwind *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->procs.cap; i++)
		if (u->procs.ents[i].used)
			proc_free(u->procs.ents[i].val);
	umap_release(&u->procs);
	smap_release(&u->files, file_free);
	syms_free(u);
	smap_release(&u->buildids, free);
	ksyms_free(u);
	smap_release(&u->names, NULL);
	free(u->dir);
	free(u);
}

const struct unwind_stats *unwind_stats(const struct unwind *u)
{
	return &u->st;
}
