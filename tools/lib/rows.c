// SPDX-License-Identifier: GPL-2.0
/*
 * rows - a report's rows as CSV or JSON (rows.h).
 */
#include <math.h>
#include <string.h>
#include "rows.h"

void table_begin(struct table *t, FILE *f, enum table_format fmt,
		 const char *const *cols, size_t ncols)
{
	*t = (struct table){ .f = f, .fmt = fmt, .cols = cols, .ncols = ncols };
	if (fmt == TABLE_CSV)
		for (size_t i = 0; i < ncols; i++)
			fprintf(f, "%s%s", cols[i], i + 1 < ncols ? "," : "\n");
	else
		fputc('[', f);
}

/* Before a value: the row's opening and the column's key. */
static void cell(struct table *t)
{
	if (t->fmt == TABLE_CSV) {
		if (t->col)
			fputc(',', t->f);
		return;
	}
	if (!t->col)
		fputs(t->rows ? ",\n{" : "\n{", t->f);
	else
		fputc(',', t->f);
	fprintf(t->f, "\"%s\":", t->cols[t->col]);
}

/* After a value: the row ends with its last column. */
static void next(struct table *t)
{
	if (++t->col < t->ncols)
		return;
	fputs(t->fmt == TABLE_CSV ? "\n" : "}", t->f);
	t->col = 0;
	t->rows++;
}

void table_str(struct table *t, const char *s)
{
	cell(t);
	if (!s) {
		if (t->fmt == TABLE_JSON)
			fputs("null", t->f);
	} else if (t->fmt == TABLE_CSV) {
		if (strpbrk(s, ",\"\r\n")) {
			fputc('"', t->f);
			for (; *s; s++) {
				if (*s == '"')
					fputc('"', t->f);
				fputc(*s, t->f);
			}
			fputc('"', t->f);
		} else {
			fputs(s, t->f);
		}
	} else {
		fputc('"', t->f);
		for (; *s; s++) {
			unsigned char c = *s;

			if (c == '"' || c == '\\')
				fprintf(t->f, "\\%c", c);
			else if (c < 0x20)
				fprintf(t->f, "\\u%04x", c);
			else
				fputc(c, t->f);
		}
		fputc('"', t->f);
	}
	next(t);
}

void table_u64(struct table *t, unsigned long long v)
{
	cell(t);
	fprintf(t->f, "%llu", v);
	next(t);
}

void table_num(struct table *t, double v)
{
	cell(t);
	if (isfinite(v))
		fprintf(t->f, "%.10g", v);
	else if (t->fmt == TABLE_JSON)
		fputs("null", t->f);
	next(t);
}

void table_bool(struct table *t, int v)
{
	cell(t);
	fputs(v ? "true" : "false", t->f);
	next(t);
}

void table_none(struct table *t)
{
	table_str(t, NULL);
}

void table_end(struct table *t)
{
	if (t->fmt == TABLE_JSON)
		fputs(t->rows ? "\n]\n" : "]\n", t->f);
}
