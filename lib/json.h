/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_JSON_H
#define PPR_JSON_H
#include "compat.h"

/*
 * A streaming JSON writer onto a FILE * the caller owns.  Commas and
 * nesting are tracked for you; strings are escaped (invalid UTF-8 bytes
 * become U+FFFD).  Keys are written with json_key() inside objects.
 *
 *   struct json j;
 *   json_init(&j, stdout, 1);       // 1: pretty (2-space indent)
 *   json_begin_object(&j);
 *   json_key(&j, "ok"); json_bool(&j, 1);
 *   json_end_object(&j);
 *   json_finish(&j);                // newline; returns -1 on I/O error
 */
#define JSON_MAX_DEPTH 64

struct json {
	FILE *fp;
	int pretty;
	int depth;
	int need_comma[JSON_MAX_DEPTH];
	int after_key;
};

void json_init(struct json *j, FILE *fp, int pretty);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);	/* NULL -> null */
void json_string_len(struct json *j, const char *s, size_t len);
void json_int(struct json *j, long long v);
void json_uint(struct json *j, unsigned long long v);
void json_double(struct json *j, double v);		/* %.6g; NaN -> null */
void json_bool(struct json *j, int v);
void json_null(struct json *j);
/*
 * Write s escaped as the body of a JSON string, without quotes, to fp
 * (json_string() does; writers that embed JSON call it directly).
 * Invalid UTF-8 becomes U+FFFD.  flags: 0, or JSON_ESC_HTML: the text
 * is also safe inside an HTML <script> element and in XML ('<', '>',
 * '&', '\'' and every control character as \uXXXX).
 */
#define JSON_ESC_HTML 1u
void json_escape(FILE *fp, const char *s, size_t len, unsigned flags);
/* End the document with a newline; returns 0 or -1 on a write error. */
int json_finish(struct json *j);

#endif
