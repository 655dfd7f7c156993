// SPDX-License-Identifier: GPL-2.0
/*
 * xstate_pad.so - make this host look, to a ptrace tracer, like one whose
 * XSAVE area is PGF_XSTATE_SIZE bytes (default 11008, an AMX host), larger
 * than its own. Preloaded into UML (LD_PRELOAD) so that the suites can boot
 * it as on such a host, whatever CPU this one has.
 *
 * What it changes is what UML depends on, and only that: NT_X86_XSTATE
 * through PTRACE_GETREGSET and PTRACE_SETREGSET behaves as the x86 kernel's
 * xstateregs_get()/xstateregs_set() do with a regset of that size.
 *   GETREGSET: copies min(iov_len, size) bytes, the real area followed by
 *     zeros (the extra components in their initial state), and sets iov_len
 *     to what it copied.
 *   SETREGSET: fails with EFAULT unless iov_len is exactly the size, as
 *     xstateregs_set() does; else sets the real area from the first bytes.
 * Everything else goes to the C library's ptrace() untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

#define REAL_MAX (64 * 1024)

typedef long (*ptrace_fn)(int, pid_t, void *, void *);

static unsigned char real_area[REAL_MAX];

static size_t fake_size(void)
{
	static size_t size;
	const char *s;
	char *end;

	if (size)
		return size;
	s = getenv("PGF_XSTATE_SIZE");
	size = 11008;
	if (s && *s) {
		unsigned long v = strtoul(s, &end, 10);

		if (!*end && v >= 512 && v <= REAL_MAX && v % 8 == 0)
			size = v;
	}
	return size;
}

long ptrace(enum __ptrace_request req, ...)
{
	static ptrace_fn real;
	struct iovec *iov, tmp;
	void *addr, *data;
	size_t size = fake_size(), n;
	pid_t pid;
	va_list ap;
	long r;

	va_start(ap, req);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (ptrace_fn)dlsym(RTLD_NEXT, "ptrace");

	if ((req != PTRACE_GETREGSET && req != PTRACE_SETREGSET) ||
	    (unsigned long)addr != NT_X86_XSTATE)
		return real(req, pid, addr, data);

	iov = data;
	tmp.iov_base = real_area;
	tmp.iov_len = sizeof(real_area);
	r = real(PTRACE_GETREGSET, pid, addr, &tmp);
	if (r < 0)
		return r;
	if (tmp.iov_len > size) {	/* this host is larger still */
		errno = EIO;
		return -1;
	}

	if (req == PTRACE_GETREGSET) {
		n = iov->iov_len < size ? iov->iov_len : size;
		memset(iov->iov_base, 0, n);
		memcpy(iov->iov_base, real_area, n < tmp.iov_len ? n : tmp.iov_len);
		iov->iov_len = n;
		return 0;
	}

	if (iov->iov_len != size) {
		errno = EFAULT;
		return -1;
	}
	memcpy(real_area, iov->iov_base, tmp.iov_len);
	return real(PTRACE_SETREGSET, pid, addr, &tmp);
}
