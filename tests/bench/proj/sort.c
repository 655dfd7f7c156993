// SPDX-License-Identifier: GPL-2.0
/* The words by falling count, ties in byte order. */
#include <stdlib.h>
#include <string.h>
#include "wordstat.h"

static int cmp(const void *a, const void *b)
{
	const struct word *x = *(struct word *const *)a;
	const struct word *y = *(struct word *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->text, y->text);
}

struct word **sort_by_count(const struct table *t)
{
	struct word **v = malloc((t->nwords + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < t->nslots; i++)
		for (struct word *w = t->slot[i]; w; w = w->next)
			v[n++] = w;
	qsort(v, n, sizeof(*v), cmp);
	return v;
}
