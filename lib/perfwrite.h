/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PERFWRITE_H
#define PPR_PERFWRITE_H
/*
 * A small writer of perf.data files (the PERFILE2 format perf 6.x and
 * lib/perfdata.h read), for records that do not come from perf record:
 * the frame walker's (walker/wrecord.h).
 *
 *	struct perfwrite *w;
 *	uint64_t id;
 *	perfwrite_open(&w, "dir/perf.data", err, sizeof(err));
 *	perfwrite_add_attr(w, &attr, "cpu-clock", &id);   (each event)
 *	perfwrite_comm(w, ...); perfwrite_sample(w, ...); ...
 *	perfwrite_finished_round(w);                     (each batch)
 *	perfwrite_close(w, err, sizeof(err));   or perfwrite_abort(w)
 *
 * The file is written under a temporary name next to path (created
 * O_EXCL and O_NOFOLLOW, mode 0600) and renamed to path by
 * perfwrite_close(), once its header and feature sections are written:
 * a reader never sees a partial file at path.  Layout, as perf writes
 * it: the 104-byte header, each attr's sample ids, the attrs, the data
 * section (records, buffered), then the feature sections' table and
 * the features: HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, TOTAL_MEM,
 * CMDLINE (when set), EVENT_DESC (each event's name and ids), and
 * SAMPLE_TIME (the first and last sample times given).
 *
 * Events are told apart by PERF_SAMPLE_IDENTIFIER, which every attr
 * must have when there are several; all attrs share one sample_id
 * layout (the fields of sample_type that records other than samples
 * carry with sample_id_all), as perf requires.  Sample fields the
 * writer lays out: IDENTIFIER, IP, TID, TIME, ID, CPU, PERIOD,
 * CALLCHAIN, RAW, REGS_USER, STACK_USER; attrs asking for others are
 * refused.
 *
 * Silent: errors through err; a write error is kept and returned by
 * the next call and by perfwrite_close().
 */
#include "compat.h"

#include <linux/perf_event.h>

struct perfwrite;

/* perf's own record type: the end of a round of time-sorted records */
#define PW_RECORD_FINISHED_ROUND 68
/* the largest record perf's u16 size field holds, 8-byte aligned */
#define PW_RECORD_MAX 65528u

int perfwrite_open(struct perfwrite **out, const char *path, char *err,
		   size_t errlen);

/*
 * Stream mode (top): no file, each record handed to fn as it is made
 * (rec: the whole record, header included; a negative return stops
 * the writer: the call that made the record fails).  The features are
 * not made; perfwrite_image() gives what a reader needs to decode the
 * records, perfwrite_close() only frees w.
 */
typedef int (*perfwrite_record_fn)(void *data, const void *rec, size_t len);
int perfwrite_open_stream(struct perfwrite **out, perfwrite_record_fn fn,
			  void *data);

/*
 * Add an event (before the first record).  attr->size may be 0 (taken
 * as sizeof(*attr)).  *id gets the event's sample id (unique in the
 * file) for PERF_SAMPLE_IDENTIFIER / ID.  0, or -1 with err.
 */
int perfwrite_add_attr(struct perfwrite *w, const struct perf_event_attr *a,
		       const char *name, uint64_t *id, char *err,
		       size_t errlen);

/* HEADER_CMDLINE: the command that made the file (copied). */
void perfwrite_set_cmdline(struct perfwrite *w, const char *const *argv);

/*
 * Compress the data records with zstd at level (1-19), as perf record
 * -z writes them: PERF_RECORD_COMPRESSED records holding one zstd
 * stream through the file, flushed at each round (the rounds written
 * between them, as perf does) and at PERFWRITE_ZSTD_CHUNK bytes of
 * records, and the HEADER_COMPRESSED feature.  A file only, before the
 * first record.  0, or -1: built without libzstd (nothing changes).
 * perfwrite_data_bytes() counts the compressed bytes.
 */
#define PERFWRITE_ZSTD_CHUNK (256u << 10)
int perfwrite_compress(struct perfwrite *w, int level);

/*
 * Where a record comes from, for the sample_id trailer of records
 * other than samples (the first attr's id is written).
 */
struct pw_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
};

/* A sample's fields; those the attr's sample_type asks for are written. */
struct pw_sample {
	uint64_t id;			/* from perfwrite_add_attr() */
	uint16_t misc;			/* PERF_RECORD_MISC_* cpumode */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *callchain;	/* nr_callchain entries */
	uint64_t nr_callchain;
	const void *raw;		/* raw_len bytes, padded by the writer
					   so the record stays 8-byte aligned */
	uint32_t raw_len;
	uint64_t regs_abi;		/* PERF_SAMPLE_REGS_ABI_*; 0: none */
	const uint64_t *regs;		/* one per bit of sample_regs_user */
	/*
	 * The user stack dump: stack_size bytes of room (a multiple of 8;
	 * 0: no dump), of which the first dyn_size were copied from the
	 * stack (stack holds them; the rest is written as zeros).
	 * dyn_size < stack_size says the stack ended inside the dump.
	 */
	const void *stack;
	uint64_t stack_size, dyn_size;
};

/*
 * Append one sample.  0, or -1 with err (unknown id, a record larger
 * than PW_RECORD_MAX, a write error).
 */
int perfwrite_sample(struct perfwrite *w, const struct pw_sample *s,
		     char *err, size_t errlen);

/* PERF_RECORD_MMAP2 of a file mapping (inode form, not build-id). */
struct pw_mmap2 {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	const char *filename;
	uint16_t misc;			/* PERF_RECORD_MISC_USER, ... */
};
int perfwrite_mmap2(struct perfwrite *w, const struct pw_mmap2 *m,
		    const struct pw_id *id, char *err, size_t errlen);
/*
 * The kernel's map, as perf record synthesizes it (PERF_RECORD_MMAP of
 * pid -1, "[kernel.kallsyms]_text" from the address of _text to the
 * end of the address space): without it perf cannot relocate kernel
 * symbols and says the kernel's address maps were restricted.
 */
int perfwrite_kernel_mmap(struct perfwrite *w, uint64_t text,
			  const struct pw_id *id, char *err, size_t errlen);
/*
 * The address of _text in a kallsyms file (/proc/kallsyms): 0, or
 * -ENOENT when it is not there or hidden (kptr_restrict shows zeros),
 * -errno when the file cannot be read.
 */
int perfwrite_kernel_text(const char *kallsyms, uint64_t *text);
/* PERF_RECORD_COMM (exec: PERF_RECORD_MISC_COMM_EXEC). */
int perfwrite_comm(struct perfwrite *w, uint32_t pid, uint32_t tid,
		   const char *comm, int exec, const struct pw_id *id,
		   char *err, size_t errlen);
/* PERF_RECORD_FORK or PERF_RECORD_EXIT (type). */
int perfwrite_task(struct perfwrite *w, uint32_t type, uint32_t pid,
		   uint32_t ppid, uint32_t tid, uint32_t ptid,
		   const struct pw_id *id, char *err, size_t errlen);
/* PERF_RECORD_LOST: lost records of the event with sample id ev_id. */
int perfwrite_lost(struct perfwrite *w, uint64_t ev_id, uint64_t lost,
		   const struct pw_id *id, char *err, size_t errlen);
/*
 * Any other record of the kernel's (type < 64): body is its contents
 * without a sample_id trailer (len bytes, padded by the writer); the
 * trailer is added from id, as for the records above.  For records
 * carried over from another perf.data (report/fmt_perfdata.h).
 */
int perfwrite_record(struct perfwrite *w, uint32_t type, uint16_t misc,
		     const void *body, size_t len, const struct pw_id *id,
		     char *err, size_t errlen);
/* PERF_RECORD_FINISHED_ROUND: readers may sort what came before. */
int perfwrite_finished_round(struct perfwrite *w, char *err, size_t errlen);

/*
 * A perf.data image of the header and the events, without records and
 * features: for perfdata_open_mem(), to decode records written
 * elsewhere (stream mode).  *buf is the caller's (free(3)).
 */
int perfwrite_image(const struct perfwrite *w, unsigned char **buf,
		    size_t *len, char *err, size_t errlen);

/* Bytes of records so far (the data section). */
uint64_t perfwrite_data_bytes(const struct perfwrite *w);

/*
 * Write the header and features, and rename the file into place.
 * Frees w.  0, or -1 with err (the temporary file is removed then).
 */
int perfwrite_close(struct perfwrite *w, char *err, size_t errlen);
/* Drop w and its temporary file. */
void perfwrite_abort(struct perfwrite *w);

#endif
