/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PERFDATA_H
#define PPR_PERFDATA_H
/*
 * A small reader of perf.data files (the PERFILE2 format perf record
 * writes): the header, the event attributes, the feature sections
 * (build-ids), PERF_RECORD_SAMPLE records decoded as far as their user
 * stack dump (call chain and user registers included), and the MMAP,
 * MMAP2, COMM, FORK and EXIT records (perfdata_next_record() and the
 * decoders).  Every length and offset is checked against the file:
 * hostile input gives an error or skipped records, never a read out of
 * bounds.
 *
 * Streaming use:
 *
 *	struct perfdata d;
 *	struct pd_sample s;
 *	if (perfdata_open(&d, path, err, sizeof(err)) < 0) ...
 *	while ((r = perfdata_next(&d, &s)) > 0)
 *		use s;
 *	perfdata_close(&d);
 *
 * The file is mapped read-only; samples point into the mapping and are
 * valid until perfdata_close() (with release_behind, until the next
 * record: see below).
 */
#include "compat.h"

/*
 * The largest user-stack dump perf can take per sample (bytes): the
 * dump's size is a u16 and a multiple of 8.  --call-graph dwarf,N and
 * PERF_SAMPLE_STACK_USER accept at most this.
 */
#define PERF_STACK_DUMP_MAX 65528u

#define PD_MAX_ATTRS 64

struct pd_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;		/* PERF_SAMPLE_* bits */
	uint64_t read_format;
	uint64_t flags;			/* the attr bit field word */
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;	/* bytes dumped per sample */
	uint16_t sample_max_stack;	/* callchain cap asked for; 0 = the
					   kernel's perf_event_max_stack */
	int sp_index;			/* index of the stack pointer in the
					   dumped user registers, -1 none */
	const uint64_t *ids;		/* sample ids of this attr */
	size_t nr_ids;
	/*
	 * The event's name as perf wrote it in HEADER_EVENT_DESC
	 * ("cpu-clock", "offcpu-time", "sched:sched_switch"): points into
	 * the file; NULL when the file has no name for it.
	 */
	const char *name;
};

/* What a sample holds, as far as it was decoded. */
struct pd_sample {
	const struct pd_attr *attr;
	uint64_t ip;
	pid_t pid, tid;			/* have_tid */
	uint64_t time;			/* have_time: perf clock, ns */
	uint64_t period;
	uint64_t nr_callchain;		/* entries in the kernel's chain */
	uint64_t user_sp;		/* have_sp */
	uint64_t stack_size;		/* bytes asked for (0: no dump) */
	uint64_t dyn_size;		/* bytes the kernel could copy */
	const unsigned char *stack;	/* stack_size bytes */
	unsigned have_tid : 1, have_time : 1, have_sp : 1, have_stack : 1;
	/*
	 * The kernel's callchain (nr_callchain LE u64s, PERF_CONTEXT_*
	 * markers included) and the user registers (nr_regs LE u64s in
	 * the order of the attr's sample_regs_user bits; regs_abi 0 =
	 * none), unaligned: read them with get_le64().
	 */
	const unsigned char *callchain;
	const unsigned char *regs;
	uint64_t regs_abi;
	int nr_regs;
	/* PERF_SAMPLE_RAW: raw_size bytes (after the u32 size), or NULL */
	const unsigned char *raw;
	uint32_t raw_size;
	int32_t cpu;			/* PERF_SAMPLE_CPU; -1 unknown */
};

/* Record types and misc bits (linux/perf_event.h, perf's own types). */
#define PD_RECORD_MMAP		1
#define PD_RECORD_LOST		2
#define PD_RECORD_COMM		3
#define PD_RECORD_EXIT		4
#define PD_RECORD_FORK		7
#define PD_RECORD_SAMPLE	9
#define PD_RECORD_MMAP2		10
#define PD_RECORD_SWITCH	14
#define PD_RECORD_SWITCH_CPU_WIDE 15
#define PD_RECORD_FINISHED_ROUND 68
/*
 * perf record -z: the records perf read from its ring buffers, one zstd
 * stream through the whole file, flushed at the end of each of these
 * (so a record can begin in one and end in the next).  COMPRESSED2
 * (perf 6.13 on) has a u64 data size first and is padded to 8 bytes.
 */
#define PD_RECORD_COMPRESSED	81
#define PD_RECORD_COMPRESSED2	83
#define PD_MISC_CPUMODE_MASK	7
#define PD_MISC_KERNEL		1
#define PD_MISC_USER		2
#define PD_MISC_COMM_EXEC	(1u << 13)
#define PD_MISC_MMAP_DATA	(1u << 13)
#define PD_MISC_MMAP_BUILD_ID	(1u << 14)
#define PD_MISC_SWITCH_OUT	(1u << 13)
#define PD_MISC_SWITCH_PREEMPT	(1u << 14)	/* out, still runnable */

/* Any record: its header fields and body (after the 8-byte header). */
struct pd_record {
	uint32_t type;
	uint16_t misc;
	const unsigned char *body;
	size_t len;
	uint64_t offset;		/* of its header in the file */
};

/* A PERF_RECORD_MMAP or MMAP2. */
struct pd_mmap {
	pid_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;		/* MMAP2 only; MMAP: prot = 0 */
	const char *filename;		/* NUL-terminated inside the record */
	const unsigned char *build_id;	/* MMAP2 with PD_MISC_MMAP_BUILD_ID */
	size_t build_id_len;
	unsigned exec : 1;		/* not a data mapping */
};

/* PERF_RECORD_FORK / EXIT. */
struct pd_task {
	pid_t pid, ppid, tid, ptid;
	uint64_t time;
};

/*
 * PERF_RECORD_SWITCH / SWITCH_CPU_WIDE (--switch-events): a task left
 * a CPU (out) or came back to one.  pid, tid and time are the task's,
 * from the record's sample_id trailer (have_tid, have_time).  preempt:
 * it went out still runnable (the kernel's SWITCH_OUT_PREEMPT bit).
 */
struct pd_switch {
	pid_t pid, tid;
	uint64_t time;
	unsigned out : 1, preempt : 1, have_tid : 1, have_time : 1;
};

/* PERF_RECORD_COMM. */
struct pd_comm {
	pid_t pid, tid;
	const char *comm;		/* NUL-terminated inside the record */
	unsigned exec : 1;		/* the program was exec'ed */
};

/* One entry of the HEADER_BUILD_ID feature section. */
struct pd_buildid {
	pid_t pid;
	uint16_t misc;
	const unsigned char *id;
	size_t id_len;			/* 20 unless the entry says less */
	const char *filename;
};

struct perfdata {
	const unsigned char *map;
	size_t size;
	int mapped;			/* perfdata_open() mapped it */
	uint64_t data_off, data_end;	/* the data section */
	uint64_t pos;			/* next record */
	struct pd_attr attrs[PD_MAX_ATTRS];
	size_t nr_attrs;
	/* statistics */
	uint64_t records;		/* records walked */
	uint64_t samples;		/* samples decoded */
	uint64_t bad_samples;		/* samples that did not fit */
	/*
	 * Samples perf lost (its ring buffer was full): the kernel's
	 * PERF_RECORD_LOST counts and perf's PERF_RECORD_LOST_SAMPLES
	 * counts, which perf writes for the same losses: take the larger.
	 */
	uint64_t lost, lost_samples;
	/*
	 * Of them, the part written after the last sample walked so far.
	 * perf writes its LOST_SAMPLES totals at the end; after perf
	 * record --max-size stopped reading, the kernel drops every
	 * sample of the program that runs on, and those totals count
	 * them: not losses within the recording (perfdata_lost()).
	 */
	uint64_t lost_tail, lost_samples_tail;
	/*
	 * With release_behind set, perfdata_next_record() drops the
	 * mapping's pages behind the cursor every 32 MiB (madvise
	 * MADV_DONTNEED), so that streaming a big file keeps its resident
	 * size bounded: records already returned must not be used after
	 * the next call then (copy what you keep).  Callers that keep
	 * records longer (sorting a round) leave it unset and call
	 * perfdata_release_before() themselves.
	 */
	int release_behind;
	uint64_t released;		/* pages before this are dropped */
	/*
	 * PERF_RECORD_COMPRESSED: the records in them are decompressed
	 * (with libzstd, PPR_HAVE_ZSTD) into a buffer of the reader's and
	 * returned from there, each with the file offset of the compressed
	 * record it ended in: they are valid until the next call of
	 * perfdata_next_record() only (perfdata_record_in_file() tells).
	 * Without zstd, the first one ends the walk and sets need_zstd.
	 */
	struct pd_zstream *z;
	uint64_t compressed;		/* compressed records walked */
	int need_zstd;			/* met one, cannot read it */
	int zstd_failed;		/* a stream that did not decompress:
					   the walk ended there */
};

/* Can this pyperf-run read perf record -z's files (libzstd)? */
int perfdata_have_zstd(void);
/* Why not: perfdata_open()'s error, and the reader's at a compressed record. */
#define PERFDATA_NO_ZSTD "compressed with zstd (perf record -z), and this " \
	"pyperf-run was built without zstd support (libzstd; Debian/Ubuntu: " \
	"apt-get install libzstd-dev, then ./configure && make)"

/*
 * Map and check path.  Returns 0, or -1 with err filled ("'x' is not a
 * perf.data file", "... attributes out of bounds", ...).  Pipe-mode
 * files (written to stdout) are refused.
 */
int perfdata_open(struct perfdata *d, const char *path, char *err,
		  size_t errlen);
/*
 * The same on a buffer the caller keeps alive (for tests, fuzzing);
 * perfdata_close() then leaves the buffer alone.
 */
int perfdata_open_mem(struct perfdata *d, const void *buf, size_t len,
		      char *err, size_t errlen);
void perfdata_close(struct perfdata *d);

/*
 * The next PERF_RECORD_SAMPLE: returns 1 with s filled, 0 at the end
 * of the data (or at a record whose size breaks the framing: the rest
 * cannot be trusted, and is skipped).  Samples that do not decode are
 * counted in bad_samples and skipped; lost-sample records walked are
 * added to lost and lost_samples.
 */
int perfdata_next(struct perfdata *d, struct pd_sample *s);

/*
 * The next record of any type: 1 with r filled, 0 at the end (or where
 * the framing breaks).  Counts lost records as perfdata_next() does.
 */
int perfdata_next_record(struct perfdata *d, struct pd_record *r);

/*
 * Is r in the file's mapping (valid until perfdata_close()), or
 * decompressed (valid until the next record)?
 */
int perfdata_record_in_file(const struct perfdata *d,
			    const struct pd_record *r);

/* Drop the pages of the mapping before file offset off (every 32 MiB). */
void perfdata_release_before(struct perfdata *d, uint64_t off);

/*
 * The perf-clock time of a record: a sample's, or another record's
 * from its sample_id trailer (attr.sample_id_all).  0, or -1 when the
 * record carries none (perf's own records, no PERF_SAMPLE_TIME).
 */
int perfdata_record_time(const struct perfdata *d, const struct pd_record *r,
			 uint64_t *time);

/* Decoders of one record body; 0, or -1 when it does not fit. */
int perfdata_decode_mmap(const struct pd_record *r, struct pd_mmap *m);
int perfdata_decode_task(const struct pd_record *r, struct pd_task *t);
int perfdata_decode_comm(const struct pd_record *r, struct pd_comm *c);
/* A switch record, its trailer read by the file's attributes. */
int perfdata_decode_switch(const struct perfdata *d,
			   const struct pd_record *r, struct pd_switch *sw);

/* Feature numbers of the header's feature bitmap (perf's HEADER_*). */
#define PD_FEAT_BUILD_ID	2
#define PD_FEAT_CMDLINE		11
#define PD_FEAT_EVENT_DESC	12
#define PD_FEAT_COMPRESSED	27	/* perf record -z: type, level, ... */

/*
 * The bytes of feature section feat: 1 with *p and *len set, 0 when
 * the file does not have it, -1 when its table entry is out of bounds.
 */
int perfdata_feature(const struct perfdata *d, unsigned feat,
		     const unsigned char **p, size_t *len);

/*
 * Call fn for each entry of the build-id section, until it returns
 * non-zero (returned).  0 at the end, -1 at an entry that does not fit.
 */
int perfdata_each_buildid(const struct perfdata *d,
			  int (*fn)(void *arg, const struct pd_buildid *b),
			  void *arg);

/* Decode one sample record body (after its 8-byte header). */
int perfdata_decode_sample(const struct perfdata *d, const unsigned char *p,
			   size_t len, struct pd_sample *s);

/*
 * Is path a finished perf.data file of file_size bytes?  0, or -1 with
 * err telling why not: not perf.data, truncated, or left unfinished by
 * a perf record that was killed (its header's data size is 0).
 */
/*
 * The samples perf lost in what d walked: the larger of its two counts
 * (above); with stopped (the recording stopped at --max-size), only
 * the losses written before the last sample, within the recording.
 */
uint64_t perfdata_lost(const struct perfdata *d, int stopped);

int perfdata_check_header(const char *path, uint64_t file_size, char *err,
			  size_t errlen);

/*
 * In-place fixes of perf.data (the file format of perf 4.x-6.x: a
 * 104-byte "PERFILE2" header whose data section {offset, size} sits at
 * byte 40, then the records, each starting with {u32 type, u16 misc,
 * u16 size}).
 */

/* The pids of a recording and its sample count. */
struct perfdata_scan {
	pid_t *pids;		/* distinct pids seen, in order */
	size_t nr_pids, alloc_pids;
	unsigned long samples;	/* every sample */
};

void perfdata_scan_init(struct perfdata_scan *s);
void perfdata_scan_release(struct perfdata_scan *s);
void perfdata_scan_add_pid(struct perfdata_scan *s, pid_t pid);

/*
 * Mark, in place, the PERF_RECORD_FORK of every process that later
 * execs (PERF_RECORD_COMM with the exec flag) as PERF_RECORD_MISC_
 * FORK_EXEC, so that perf does not give the new program its parent's
 * maps.  perf 6.1 keeps a forked child's copy of the parent's maps
 * across exec, and its libunwind code takes the lowest address any
 * map of a DSO has as that DSO's load address: when the parent mapped
 * the same library (libpython) lower, every DWARF unwind in the child
 * fails at the first frame.  In compressed data (perf record -z), with
 * in_compressed, the file is written again with the flags set (see
 * fix_compressed_forks(): about 20 ms a thousand jit-mode samples); the
 * frame walker's sessions, which perf reads only through their export,
 * need not.  *fixed (may be NULL) gets the count.
 * When scan is not NULL, the same pass counts the samples into it and
 * adds the pids of the task and map records (the pids of the run, in
 * either mode: perf inject keeps those records).  Returns 0 (also for a
 * file that is not perf.data) or -errno.
 */
int perfdata_fix_exec_forks(const char *path, struct perfdata_scan *scan,
			    int in_compressed, unsigned *fixed);

/*
 * Make perf.data readable after perf record was killed before it
 * finished the file: when the header's data size is 0 but records
 * follow, set it to the whole records present, cut a partial last
 * record and clear the feature bits (their sections were never
 * written).  Returns the bytes of records kept (0: nothing to do or
 * nothing recorded), -EINVAL when the file is not perf.data, or -errno.
 */
long long perfdata_recover(const char *path);

/*
 * Give perf.data a build-id table (HEADER_BUILD_ID) of one user-space
 * object, name with the build-id id_hex, when it has none: perf record
 * -z skips its build-id pass, and --buildid-mmap puts a build-id into
 * the MMAP2 record of each file but not of [vdso], which the kernel
 * maps from no file.  With the entry perf reads the session's copy of
 * the vDSO (buildid/[vdso]/ID/vdso, record_save_vdso()) for its symbols
 * and unwinding tables; without it, a copy of the vDSO of whatever
 * machine and kernel perf runs on.  The entry is as perf writes it
 * (pid -1, the host; id size in its byte 20; the name padded to 64).  A
 * file that has a table is left alone.  The feature sections after the
 * data move by the new table entry; space is reserved before anything
 * is written.  Returns 1 added, 0 left alone, or -errno (-EINVAL: not
 * perf.data).
 */
int perfdata_add_buildid(const char *path, const char *name,
			 const char *id_hex);

/*
 * A program run by chroot(1) names its files by their path in the root
 * (the kernel's MMAP records are relative to the process's root): put
 * root before the file name of each MMAP and MMAP2 record of the
 * processes that chroot execs (the pid whose program was chroot, from
 * its next exec on) and of their children, so that perf inject (its
 * jitdump: ROOT/tmp/jit-PID.dump), perf and the report find the files
 * from here, as the frame walker's recordings name them.  The file is
 * rewritten (the data grow; the feature sections move).  *rebased gets
 * the records changed.  Returns 0, -ENOTSUP for compressed data, or
 * -errno.
 */
int perfdata_root_paths(const char *path, const char *root,
			unsigned *rebased);

#endif
