/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "json.h"
#include "utf8.h"

#include <math.h>

void json_init(struct json *j, FILE *fp, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->fp = fp;
	j->pretty = pretty;
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->fp);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->fp);
}

/* Called before every value or key. */
static void pre(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			fputc(',', j->fp);
		j->need_comma[j->depth] = 1;
		indent(j);
	}
}

static void open_(struct json *j, int c)
{
	pre(j);
	fputc(c, j->fp);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = 0;
}

static void close_(struct json *j, int c)
{
	int had = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->fp);
}

void json_begin_object(struct json *j)
{
	open_(j, '{');
}

void json_end_object(struct json *j)
{
	close_(j, '}');
}

void json_begin_array(struct json *j)
{
	open_(j, '[');
}

void json_end_array(struct json *j)
{
	close_(j, ']');
}

void json_escape(FILE *fp, const char *str, size_t n, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)str;
	int html = !!(flags & JSON_ESC_HTML);
	size_t i = 0, l;

	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fputc('\\', fp);
			fputc(c, fp);
		} else if (!html && c == '\n') {
			fputs("\\n", fp);
		} else if (!html && c == '\r') {
			fputs("\\r", fp);
		} else if (!html && c == '\t') {
			fputs("\\t", fp);
		} else if (c < 0x20 || (html && (c == '<' || c == '>' ||
						c == '&' || c == '\''))) {
			fprintf(fp, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, fp);
		} else if ((l = utf8_seq_len(s + i, n - i))) {
			fwrite(s + i, 1, l, fp);
			i += l;
			continue;
		} else {
			fputs("\\ufffd", fp);
		}
		i++;
	}
}

void json_key(struct json *j, const char *key)
{
	pre(j);
	fputc('"', j->fp);
	json_escape(j->fp, key, strlen(key), 0);
	fputs(j->pretty ? "\": " : "\":", j->fp);
	j->after_key = 1;
}

void json_string_len(struct json *j, const char *s, size_t len)
{
	pre(j);
	fputc('"', j->fp);
	json_escape(j->fp, s, len, 0);
	fputc('"', j->fp);
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_string_len(j, s, strlen(s));
}

void json_int(struct json *j, long long v)
{
	pre(j);
	fprintf(j->fp, "%lld", v);
}

void json_uint(struct json *j, unsigned long long v)
{
	pre(j);
	fprintf(j->fp, "%llu", v);
}

void json_double(struct json *j, double v)
{
	pre(j);
	if (isnan(v) || isinf(v))
		fputs("null", j->fp);
	else
		fprintf(j->fp, "%.6g", v);
}

void json_bool(struct json *j, int v)
{
	pre(j);
	fputs(v ? "true" : "false", j->fp);
}

void json_null(struct json *j)
{
	pre(j);
	fputs("null", j->fp);
}

int json_finish(struct json *j)
{
	fputc('\n', j->fp);
	return ferror(j->fp) ? -1 : 0;
}
