// SPDX-License-Identifier: GPL-2.0
/*
 * table - memory for large per-page tables: mapped on their own, zero
 * without being cleared, on huge pages where the kernel gives them. See
 * table.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "table.h"

#define TABLE_HUGE (2UL << 20)

/* The bytes mapped for @n items of @size: whole pages, or huge pages. */
static size_t table_bytes(size_t n, size_t size)
{
	size_t b = n * size, to = b >= TABLE_HUGE ? TABLE_HUGE : 4096;

	return (b + to - 1) & ~(to - 1);
}

void *table_calloc(size_t n, size_t size)
{
	size_t bytes, extra;
	char *p, *at;

	if (!n || !size || n > (SIZE_MAX - 2 * TABLE_HUGE) / size) {
		errno = n && size ? ENOMEM : EINVAL;
		return NULL;
	}
	bytes = table_bytes(n, size);
	extra = bytes >= TABLE_HUGE ? TABLE_HUGE : 0;
	p = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (!extra)
		return p;
	/* Trim to a 2 MiB boundary: only aligned huge pages can back it. */
	at = (char *)(((uintptr_t)p + TABLE_HUGE - 1) & ~(TABLE_HUGE - 1));
	if (at > p)
		munmap(p, at - p);
	if (at + bytes < p + bytes + extra)
		munmap(at + bytes, p + bytes + extra - (at + bytes));
	madvise(at, bytes, MADV_HUGEPAGE);
	return at;
}

void table_free(void *p, size_t n, size_t size)
{
	if (p)
		munmap(p, table_bytes(n, size));
}

void *table_grow(void *p, size_t old_n, size_t new_n, size_t size)
{
	void *n = table_calloc(new_n, size);

	if (!n)
		return NULL;
	if (p) {
		memcpy(n, p, (old_n < new_n ? old_n : new_n) * size);
		table_free(p, old_n, size);
	}
	return n;
}
