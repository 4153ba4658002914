/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PROFILE_PRIV_H
#define PPR_PROFILE_PRIV_H
/*
 * Internals shared by profile.c and the report's pipeline (its
 * stages: pipeline_priv.h); not for writers.
 */
#include "compat.h"
#include "report/profile.h"

/* An open-addressing table of ids (the keys live with the caller). */
#define HTAB_NONE UINT32_MAX

struct htab_slot {
	uint64_t hash;
	uint32_t id;		/* id + 1; 0 = empty */
};

struct htab {
	struct htab_slot *slots;
	size_t size;		/* power of two */
	size_t nr;
};

void htab_init(struct htab *h);
void htab_release(struct htab *h);
uint32_t htab_find(const struct htab *h, uint64_t hash,
		   int (*eq)(const void *ctx, uint32_t id), const void *ctx);
void htab_insert(struct htab *h, uint64_t hash, uint32_t id);


struct profile_priv {
	struct htab frame_tab;
	struct htab stack_tab;
	struct htab task_tab;
	struct htab thread_tab;
	uint32_t *pool;		/* frame ids of all stacks */
	size_t pool_nr, pool_alloc;
	size_t *stack_off;	/* stack i's frames start at pool[off] */
	size_t stack_off_alloc;
	size_t frames_alloc, stacks_alloc, tasks_alloc, threads_alloc;
	int pool_moved;
};

/* The display name of a frame (see struct frame); caller frees. */
char *profile_display_name(enum frame_kind kind, const char *func,
			   const char *file, const char *dso);

uint32_t prof_thread_intern(struct profile *p, pid_t pid, pid_t tid,
			    const char *comm, size_t comm_len);
uint32_t prof_task_intern_len(struct profile *p, pid_t pid, pid_t tid,
			      const char *comm, size_t comm_len);

#endif
