/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WORDSTAT_H
#define WORDSTAT_H

#include <stddef.h>

struct word {
	char *text;
	unsigned long count;
	struct word *next;
};

struct table {
	struct word **slot;
	size_t nslots, nwords;
};

int table_init(struct table *t, size_t nslots);
struct word *table_add(struct table *t, const char *text, size_t len);
void table_free(struct table *t);

/* Calls fn for each word of the text read from fd; nonzero on error. */
int words_read(int fd, int (*fn)(const char *w, size_t len, void *arg),
	       void *arg);

struct word **sort_by_count(const struct table *t);
void report(struct word **v, size_t n, size_t top);

#endif
