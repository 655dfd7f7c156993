/* SPDX-License-Identifier: GPL-2.0 */
/* util.h - helpers shared by the in-guest tests. */
#ifndef PGF_TEST_UTIL_H
#define PGF_TEST_UTIL_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

/* CLOCK_MONOTONIC in nanoseconds, and in seconds: waits bounded by it. */
static inline unsigned long long pgf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline double pgf_now_s(void)
{
	return pgf_now_ns() / 1e9;
}

/*
 * CAP_SYS_ADMIN in or out of the effective set, the permitted set left as
 * it is, so that it can come back: a file opened between reads without
 * it (pagemap's frame numbers, pgfault_history's frames). 0, or -1.
 */
static inline int pgf_sys_admin(bool on)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	if (on)
		d[0].effective |= 1U << CAP_SYS_ADMIN;
	else
		d[0].effective &= ~(1U << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

/* The guest's second, unprivileged user (uml-rootfs/etc/passwd). */
#define PGF_TEST_UID 1000

struct pgf_stat {
	int pid;
	char state;
	unsigned int flags;	/* the task's PF_* */
	unsigned long minflt, majflt;
};

/* Parse /proc/<pid>/stat; the comm field may hold spaces and parentheses. */
static inline int pgf_read_stat(pid_t pid, struct pgf_stat *st)
{
	char path[64], buf[1024], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (sscanf(buf, "%d", &st->pid) != 1)
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt */
	if (sscanf(p + 2, "%c %*d %*d %*d %*d %*d %u %lu %*u %lu",
		   &st->state, &st->flags, &st->minflt, &st->majflt) != 4)
		return -1;
	return 0;
}

/* minflt + majflt of /proc/<pid>/stat; 0 if it cannot be read. */
static inline unsigned long pgf_faults_of(pid_t pid)
{
	struct pgf_stat st;

	if (pgf_read_stat(pid, &st))
		return 0;
	return st.minflt + st.majflt;
}

/*
 * Where user addresses end: x86_64's 47 bits (no 5-level paging in the
 * test kernels); arm64's 48 (VA_BITS=48, kernel-config/arm64.config).
 */
#if defined(__aarch64__)
#define USER_ADDR_END	(1UL << 48)
#else
#define USER_ADDR_END	0x800000000000UL
#endif

/* Is this User Mode Linux? (its uname -m is the host's.) */
static inline int is_uml(void)
{
	char line[256];
	int uml = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !uml && fgets(line, sizeof(line), f))
		uml = strstr(line, "User Mode Linux") != NULL;
	if (f)
		fclose(f);
	return uml;
}

/*
 * Does software keep the accessed bit here (UML; arm64 without
 * FEAT_HAFDBS, where the kernel takes access flag faults itself)? Then a
 * page whose accessed bit is cleared faults at its next access; where the
 * hardware sets the bit, it does not. Measured once: 64 pages touched,
 * marked idle through /sys/kernel/mm/page_idle/bitmap (which clears their
 * accessed bits; a page still in a CPU's LRU batch is not, hence 64),
 * the TLB flushed (page_idle does not: an mprotect() there and back),
 * read again, and this thread's minor faults counted (getrusage(): no
 * memory of its own). Needs root; without the bitmap, UML's answer. On
 * UML, which always keeps it in software, not measured: there every
 * protection carries _PAGE_ACCESSED, so the mprotect() makes the PTEs
 * young again.
 */
static inline int sw_accessed_bit(void)
{
	static int known = -1;
	const size_t np = 64;
	volatile char *p;
	struct rusage a, b;
	int pm, bm, marked = 0;

	if (known >= 0)
		return known;
	known = is_uml();
	if (known)
		return known;
	p = mmap(NULL, np * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return known;
	pm = open("/proc/self/pagemap", O_RDONLY);
	bm = open("/sys/kernel/mm/page_idle/bitmap", O_WRONLY);
	for (size_t i = 0; i < np; i++)
		p[i * 4096] = 1;
	for (size_t i = 0; pm >= 0 && bm >= 0 && i < np; i++) {
		uint64_t e, pfn, word;

		if (pread(pm, &e, 8, ((unsigned long)p / 4096 + i) * 8) != 8 ||
		    !(e >> 63))
			continue;
		pfn = e & ((1ULL << 55) - 1);
		word = 1ULL << (pfn % 64);
		if (pfn && pwrite(bm, &word, 8, pfn / 64 * 8) == 8)
			marked++;
	}
	if (marked &&
	    !mprotect((void *)p, np * 4096, PROT_READ) &&
	    !mprotect((void *)p, np * 4096, PROT_READ | PROT_WRITE)) {
		getrusage(RUSAGE_THREAD, &a);
		for (size_t i = 0; i < np; i++)
			(void)p[i * 4096];
		getrusage(RUSAGE_THREAD, &b);
		known = b.ru_minflt > a.ru_minflt;
	}
	if (pm >= 0)
		close(pm);
	if (bm >= 0)
		close(bm);
	munmap((void *)p, np * 4096);
	return known;
}

/*
 * @pages read-write pages, anonymous and private, between two PROT_NONE
 * guard pages: a VMA of their own, in which nothing else faults; no
 * transparent huge page (madvise() fails without THP, as on UML: as
 * good). NULL on failure.
 */
static inline char *map_guarded(size_t pages)
{
	char *g = mmap(NULL, (pages + 2) * 4096UL, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (g == MAP_FAILED)
		return NULL;
	if (mprotect(g + 4096UL, pages * 4096UL, PROT_READ | PROT_WRITE))
		return NULL;
	madvise(g + 4096UL, pages * 4096UL, MADV_NOHUGEPAGE);
	return g + 4096UL;
}

/* Transparent huge pages on ("always" or "madvise"), in this kernel. */
static inline bool pgf_thp_on(void)
{
	char mode[64] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	bool on = f && fgets(mode, sizeof(mode), f) && !strstr(mode, "[never]");

	if (f)
		fclose(f);
	return on;
}

/* The number a file (a sysctl, a sysfs knob) holds; -1 if none. */
static inline long pgf_read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* Write a string to a file (a cgroup's knob): 0 or -1. */
static inline int pgf_write_str(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(v, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* Write a number to a file (a sysctl, a sysfs knob): 0 or -1. */
static inline int pgf_write_long(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%ld\n", v) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* Is the memory controller built in (listed in /proc/cgroups)? */
static inline int has_memcg(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/cgroups", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "memory\t", 7);
	if (f)
		fclose(f);
	return found;
}

#endif
