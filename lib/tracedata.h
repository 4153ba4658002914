/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_TRACEDATA_H
#define PPR_TRACEDATA_H
/*
 * Tracepoint payloads, decoded with libtraceevent from the event formats
 * perf stores in perf.data's HEADER_TRACING_DATA feature section (the
 * same bytes perf writes after a PERF_RECORD_HEADER_TRACING_DATA in pipe
 * mode): the "\027\010\104tracing" tag, a version string, the file's
 * endianness, long size and page size, the ring buffer's header page,
 * the ftrace and per-system event format files, then kallsyms, printk
 * formats and (version 0.6 on) saved cmdlines, which are skipped.
 *
 * The section comes from a user-supplied file: every count, length and
 * offset is checked against the bytes given, and a payload field is read
 * only when it lies wholly inside the payload.  Hostile input gives an
 * error or a failed read, never a read out of bounds.
 *
 *	struct tracedata *td = tracedata_new(buf, len, err, sizeof(err));
 *	const struct tracedata_event *ev = tracedata_event(td, attr->config);
 *	const struct tracedata_field *f = tracedata_field(ev, "prev_pid");
 *	uint64_t pid;
 *	if (tracedata_read_num(td, f, raw, raw_len, &pid) == 0) ...
 *	tracedata_free(td);
 *
 * raw / raw_len are a sample's PERF_SAMPLE_RAW bytes (after its u32
 * size; the kernel pads them to 8 bytes, which is harmless).  Events and
 * fields are owned by the tracedata and valid until tracedata_free().
 */
#include <stddef.h>
#include <stdint.h>

struct tracedata;
struct tracedata_event;
struct tracedata_field;

/*
 * Parse a tracing-data section of len bytes (not kept: it may be freed
 * afterwards).  NULL on error, with the reason in err.  An event whose
 * format text is not in the kernel's grammar (checked here: only a
 * canonical rewrite of the name, id and field lines reaches
 * libtraceevent, without the print format) or that libtraceevent
 * rejects is left out (tracedata_event() does not find it) rather than
 * failing the whole section.  So events parsed here cannot be printed
 * with libtraceevent's print format; their fields can be read.
 */
struct tracedata *tracedata_new(const void *buf, size_t len, char *err,
				size_t errlen);
void tracedata_free(struct tracedata *td);

/*
 * The number of events parsed, of format files left out (not in the
 * kernel's format grammar, or refused by libtraceevent), and the
 * section's version ("0.6").
 */
int tracedata_nr_events(const struct tracedata *td);
int tracedata_nr_rejected(const struct tracedata *td);
const char *tracedata_version(const struct tracedata *td);

/*
 * The event whose tracepoint id is id (a PERF_TYPE_TRACEPOINT attr's
 * config), or NULL when the section has no such event.
 */
const struct tracedata_event *tracedata_event(const struct tracedata *td,
					      uint64_t id);
/* The event called system:name, or NULL. */
const struct tracedata_event *tracedata_event_by_name(const struct tracedata *td,
						      const char *system,
						      const char *name);
const char *tracedata_event_name(const struct tracedata_event *ev);
const char *tracedata_event_system(const struct tracedata_event *ev);
int tracedata_event_id(const struct tracedata_event *ev);

/*
 * Iteration: the index-th event (0 <= index < tracedata_nr_events()),
 * the index-th field of ev (the common_* fields first), NULL past the
 * end; and a field's name.
 */
const struct tracedata_event *tracedata_event_at(const struct tracedata *td,
						 int index);
const struct tracedata_field *tracedata_field_at(const struct tracedata_event *ev,
						 int index);
const char *tracedata_field_name(const struct tracedata_field *f);

/* A field of ev by name (common_* fields included), or NULL. */
const struct tracedata_field *tracedata_field(const struct tracedata_event *ev,
					      const char *name);

/*
 * Read a number field (1, 2, 4 or 8 bytes, not an array) from a raw
 * payload, in the file's byte order.  Signed fields are sign-extended:
 * cast *val to int64_t.  0 on success; -1 when f is NULL, not a plain
 * number, or lies outside the payload.
 */
int tracedata_read_num(const struct tracedata *td,
		       const struct tracedata_field *f, const void *raw,
		       size_t raw_len, uint64_t *val);

/*
 * Read a string field: a char array (char comm[16]) or a dynamic string
 * (__data_loc char[] / __rel_loc).  *s points into raw and is not
 * NUL-terminated: *len is its length up to the first NUL inside the
 * field.  0 on success; -1 when f is NULL, not a string or array, or
 * its bytes lie outside the payload.
 */
int tracedata_read_str(const struct tracedata *td,
		       const struct tracedata_field *f, const void *raw,
		       size_t raw_len, const char **s, size_t *len);

/*
 * The same, by field name: tracedata_field(ev, name) then the read.
 * -1 also when ev is NULL or has no such field.
 */
int tracedata_get_num(const struct tracedata *td,
		      const struct tracedata_event *ev, const char *name,
		      const void *raw, size_t raw_len, uint64_t *val);
int tracedata_get_str(const struct tracedata *td,
		      const struct tracedata_event *ev, const char *name,
		      const void *raw, size_t raw_len, const char **s,
		      size_t *len);

#endif
