/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table - memory for the analyses' large per-page tables.
 *
 * A lookup in a table of millions of pages lands anywhere in it: with
 * 4 KiB pages nearly every one misses the TLB too, and the walk costs as
 * much as the cache miss. table_calloc() maps the table on its own, 2 MiB
 * aligned, and asks for transparent huge pages (madvise(MADV_HUGEPAGE):
 * honoured where THP is "always" or "madvise", the default of most
 * distributions), so that one TLB entry covers 2 MiB of it. The memory
 * is fresh from the kernel, so it is zero without being written: a
 * table costs nothing until it is used (calloc() would clear memory it
 * had reused).
 *
 *	struct slot *v = table_calloc(cap, sizeof(*v));
 *	...
 *	table_free(v, cap, sizeof(*v));
 */
#ifndef PGFT_TABLE_H
#define PGFT_TABLE_H

#include <stddef.h>

/* Zeroed room for @n items of @size bytes; NULL with errno set. */
void *table_calloc(size_t n, size_t size);

/* Free what table_calloc(@n, @size) gave (NULL: nothing). */
void table_free(void *p, size_t n, size_t size);

/*
 * @p (from table_calloc(@old_n, @size), or NULL) grown to @new_n items,
 * the new ones zeroed; NULL with errno set, @p untouched.
 */
void *table_grow(void *p, size_t old_n, size_t new_n, size_t size);

#endif
