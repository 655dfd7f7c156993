// SPDX-License-Identifier: GPL-2.0
/*
 * failmalloc.so - make the allocations of a program fail from the Nth on,
 * to check that it says "out of memory" and exits with its status for
 * that, rather than crashing or aborting. Preloaded (LD_PRELOAD) by
 * tests/host/test_nomem.py:
 *
 *	PGF_FAIL_AFTER=N	malloc(), calloc(), realloc(), posix_memalign()
 *				and aligned_alloc() succeed N times, then fail
 *				(NULL, errno ENOMEM); unset: none fails
 *	PGF_FAIL_COUNT=FILE	at exit, write the number of allocations
 *				asked for into FILE
 *
 * The C library's own allocations go through these too (glibc calls its
 * malloc through the symbols a preloaded object replaces), so stdio and
 * strdup() fail as well. free() is the C library's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static long long after = -1;	/* -1: never fail */
static unsigned long long calls;

__attribute__((constructor)) static void init(void)
{
	const char *s = getenv("PGF_FAIL_AFTER");

	if (s && *s)
		after = atoll(s);
}

/* Whether this allocation fails. */
static int fails(void)
{
	calls++;
	if (after >= 0 && calls > (unsigned long long)after) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t n)
{
	return fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (!n || !p)
		return p ? __libc_realloc(p, n) : malloc(n);
	return fails() ? NULL : __libc_realloc(p, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
	if (fails())
		return ENOMEM;
	*p = __libc_memalign(align, n);
	return *p ? 0 : ENOMEM;
}

void *aligned_alloc(size_t align, size_t n)
{
	return fails() ? NULL : __libc_memalign(align, n);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("PGF_FAIL_COUNT");
	char buf[32];
	int fd, len;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%llu\n", calls);
	if (write(fd, buf, len) != len)
		len = -1;
	close(fd);
}
