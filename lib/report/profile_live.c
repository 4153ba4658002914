/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A live profile (profile.h: profile_live_*), for `pyperf-run top`:
 * the report's pipeline (pipeline_priv.h) without a session.  The
 * samples come from top's ring buffers (lib/top/), one at a time; the
 * perf maps and context tables are read again on each refresh, as the
 * running program writes them.  No stack dump advice: there is no end
 * at which every stack top is known.
 */
#include "compat.h"
#include "alloc.h"
#include "report/pipeline_priv.h"

struct profile_live {
	struct loader l;
	struct profile_filter f;
	char *dirs[4];
	size_t nr_dirs;
};

int profile_live_new(struct profile_live **out, struct profile *p,
		     const struct profile_filter *f, const char *const *dirs,
		     int jit)
{
	struct profile_live *lv = xcalloc(1, sizeof(*lv));
	size_t i;

	lv->f = *f;
	loader_init(&lv->l, p, &lv->f);
	for (i = 0; dirs && dirs[i] && i < ARRAY_SIZE(lv->dirs); i++) {
		lv->dirs[i] = xstrdup(dirs[i]);
		lv->l.map_dirs[i] = lv->dirs[i];
	}
	lv->nr_dirs = lv->l.nr_map_dirs = i;
	lv->l.jit = !!jit;
	lv->l.live = 1;
	loader_frames(&lv->l);
	*out = lv;
	return 0;
}

unsigned profile_live_refresh(struct profile_live *lv)
{
	struct ctx_db *db = NULL, *one;
	unsigned damaged = 0, d;
	char err[PPR_ERR_LEN];
	size_t i;

	name_drop_maps(&lv->l);
	for (i = 0; i < lv->nr_dirs; i++) {
		if (ctx_db_load(&one, lv->dirs[i], &d, err, sizeof(err)) < 0)
			d = 1, one = NULL;
		damaged += d;
		if (one && !db)
			db = one;
		else
			ctx_db_free(one);	/* contexts live in one place */
	}
	ctx_db_free(lv->l.ctx);
	lv->l.ctx = db;
	return damaged;
}

void profile_live_sample(struct profile_live *lv, const struct sample *s)
{
	pipeline_sample(&lv->l, s);
}

void profile_live_free(struct profile_live *lv)
{
	size_t i;

	if (!lv)
		return;
	loader_release(&lv->l);
	for (i = 0; i < lv->nr_dirs; i++)
		free(lv->dirs[i]);
	free(lv);
}
