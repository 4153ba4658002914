#include "compat.h"
#include "json.h"

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

/* Length of a valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void json_escape(FILE *fp, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t l;

		switch (c) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			if (c < 0x20) {
				fprintf(fp, "\\u%04x", c);
				break;
			}
			l = utf8_len(s + i, n - i);
			if (!l) {
				fputs("\\ufffd", fp);
				break;
			}
			fwrite(s + i, 1, l, fp);
			i += l;
			continue;
		}
		i++;
	}
}

void json_key(struct json *j, const char *key)
{
	pre(j);
	fputc('"', j->fp);
	json_escape(j->fp, key, strlen(key));
	fputs(j->pretty ? "\": " : "\":", j->fp);
	j->after_key = 1;
}

void json_string_len(struct json *j, const char *s, size_t len)
{
	pre(j);
	fputc('"', j->fp);
	json_escape(j->fp, s, len);
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
