// SPDX-License-Identifier: GPL-2.0
/* Print the top words with their counts and share of all words. */
#include <stdio.h>
#include "wordstat.h"

void report(struct word **v, size_t n, size_t top)
{
	unsigned long total = 0;

	for (size_t i = 0; i < n; i++)
		total += v[i]->count;
	for (size_t i = 0; i < n && i < top; i++)
		printf("%s %lu %.1f%%\n", v[i]->text, v[i]->count,
		       total ? 100.0 * v[i]->count / total : 0.0);
}
