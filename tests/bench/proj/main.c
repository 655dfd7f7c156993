// SPDX-License-Identifier: GPL-2.0
/* wordstat [TOP]: the TOP most frequent words of stdin. */
#include <stdio.h>
#include <stdlib.h>
#include "wordstat.h"

static int add(const char *w, size_t len, void *arg)
{
	return table_add(arg, w, len) ? 0 : -1;
}

int main(int argc, char **argv)
{
	size_t top = argc > 1 ? strtoul(argv[1], NULL, 10) : 10;
	struct table t;
	struct word **v;

	if (table_init(&t, 1024) || words_read(0, add, &t)) {
		perror("wordstat");
		return 1;
	}
	v = sort_by_count(&t);
	if (!v) {
		perror("wordstat");
		return 1;
	}
	report(v, t.nwords, top);
	free(v);
	table_free(&t);
	return 0;
}
