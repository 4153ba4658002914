/*
 * Owned by the report helper: the format table and helpers shared by
 * the writers (lib/fmt.h).
 */
#include "compat.h"
#include "fmt.h"

static const char *const names[FMT_NR] = {
	"text", "collapsed", "json", "html", "svg", "speedscope", "pprof"
};

static const fmt_write_fn writers[FMT_NR] = {
	fmt_text_write, fmt_collapsed_write, fmt_json_write, fmt_html_write,
	fmt_svg_write, fmt_speedscope_write, fmt_pprof_write
};

int fmt_parse(const char *name)
{
	int i;

	for (i = 0; i < FMT_NR; i++)
		if (!strcmp(name, names[i]))
			return i;
	if (!strcmp(name, "folded"))
		return FMT_COLLAPSED;
	return -1;
}

const char *fmt_name(enum fmt_format f)
{
	return (unsigned)f < FMT_NR ? names[f] : "?";
}

int fmt_is_binary(enum fmt_format f)
{
	return f == FMT_PPROF;
}

fmt_write_fn fmt_writer(enum fmt_format f)
{
	return (unsigned)f < FMT_NR ? writers[f] : NULL;
}

void fmt_collapsed_name(FILE *fp, const struct frame *f)
{
	fputs(f->name, fp);
	if (f->kind == FRAME_KERNEL)
		fputs("_[k]", fp);
}
