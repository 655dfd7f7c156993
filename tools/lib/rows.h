/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rows - a report's rows as CSV or JSON (--format csv|json), for
 * programs: CSV with one plain header line and RFC 4180 quoting, JSON as
 * one array of objects, a key per column; numbers as numbers, a missing
 * value empty (CSV) or null (JSON).
 *
 *	static const char *const cols[] = { "start", "pages", "region" };
 *	struct table t;
 *
 *	table_begin(&t, stdout, TABLE_CSV, cols, 3);
 *	for each row: table_u64(&t, start); table_u64(&t, pages);
 *		      table_str(&t, name);	(the row ends with its last value)
 *	table_end(&t);
 */
#ifndef PGFT_ROWS_H
#define PGFT_ROWS_H

#include <stddef.h>
#include <stdio.h>

enum table_format { TABLE_TEXT, TABLE_CSV, TABLE_JSON };

struct table {
	FILE *f;
	enum table_format fmt;
	const char *const *cols;
	size_t ncols, col;
	unsigned long long rows;
};

void table_begin(struct table *t, FILE *f, enum table_format fmt,
		 const char *const *cols, size_t ncols);
void table_str(struct table *t, const char *s);		/* NULL: missing */
void table_u64(struct table *t, unsigned long long v);
void table_num(struct table *t, double v);		/* not finite: missing */
void table_bool(struct table *t, int v);		/* true, false */
void table_none(struct table *t);
void table_end(struct table *t);

#endif
