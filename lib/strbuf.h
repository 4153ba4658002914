/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_STRBUF_H
#define PPR_STRBUF_H
#include "compat.h"

/*
 * A growable NUL-terminated byte string.  Initialise with STRBUF_INIT or
 * strbuf_init(); release its storage with strbuf_release().  buf is never
 * NULL after initialisation.
 */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* The caller owns the returned string; sb is re-initialised. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
/* len bytes as 2 * len lowercase hex digits */
void strbuf_addhex(struct strbuf *sb, const void *data, size_t len);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PPR_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_setlen(struct strbuf *sb, size_t len);
/* Remove trailing white space. */
void strbuf_rtrim(struct strbuf *sb);
/*
 * The last line of the text [s, s + n) into buf (at most len - 1 bytes),
 * trailing white space and empty lines left out; "" if none: a
 * program's last word on its stderr, for a one-line reason.
 */
void str_last_line(const char *s, size_t n, char *buf, size_t len);
/*
 * Read the whole of fd into sb (appending).  Returns the number of bytes
 * read or -errno.  Stops after max bytes when max > 0 (returns -EFBIG).
 */
ssize_t strbuf_read_fd(struct strbuf *sb, int fd, size_t max);
/* Read a whole file; returns 0 or -errno. */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max);

/*
 * A NULL-terminated vector of owned strings, for argv and envp.
 */
struct strvec {
	const char **v;
	size_t nr;
	size_t alloc;
};

#define STRVEC_INIT { NULL, 0, 0 }
void strvec_init(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) PPR_PRINTF(2, 3);
void strvec_pushv(struct strvec *sv, const char *const *v);
void strvec_clear(struct strvec *sv);

#endif
