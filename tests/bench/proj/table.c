// SPDX-License-Identifier: GPL-2.0
/* A chained hash table of words that grows at load factor 1. */
#include <stdlib.h>
#include <string.h>
#include "wordstat.h"

static unsigned long hash(const char *s, size_t len)
{
	unsigned long h = 1469598103934665603UL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211UL;
	return h;
}

int table_init(struct table *t, size_t nslots)
{
	t->slot = calloc(nslots, sizeof(*t->slot));
	t->nslots = nslots;
	t->nwords = 0;
	return t->slot ? 0 : -1;
}

static int grow(struct table *t)
{
	struct table n;

	if (table_init(&n, t->nslots * 2))
		return -1;
	for (size_t i = 0; i < t->nslots; i++) {
		struct word *w = t->slot[i], *next;

		for (; w; w = next) {
			size_t j = hash(w->text, strlen(w->text)) % n.nslots;

			next = w->next;
			w->next = n.slot[j];
			n.slot[j] = w;
		}
	}
	free(t->slot);
	t->slot = n.slot;
	t->nslots = n.nslots;
	return 0;
}

struct word *table_add(struct table *t, const char *text, size_t len)
{
	size_t i = hash(text, len) % t->nslots;
	struct word *w;

	for (w = t->slot[i]; w; w = w->next)
		if (!strncmp(w->text, text, len) && !w->text[len]) {
			w->count++;
			return w;
		}
	if (t->nwords >= t->nslots && grow(t))
		return NULL;
	i = hash(text, len) % t->nslots;
	w = malloc(sizeof(*w));
	if (!w)
		return NULL;
	w->text = strndup(text, len);
	if (!w->text) {
		free(w);
		return NULL;
	}
	w->count = 1;
	w->next = t->slot[i];
	t->slot[i] = w;
	t->nwords++;
	return w;
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nslots; i++) {
		struct word *w = t->slot[i], *next;

		for (; w; w = next) {
			next = w->next;
			free(w->text);
			free(w);
		}
	}
	free(t->slot);
}
