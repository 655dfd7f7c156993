// SPDX-License-Identifier: GPL-2.0
/*
 * gentrace - write a synthetic pgfault_history trace of N fault records
 * over a few regions, with region changes every so often, for measuring
 * the tools: gentrace N [PAGES] > big.trace. With PAGES, each region's
 * addresses fold into its first PAGES pages: a footprint that fits the
 * caches, where without it every page lookup of an analysis misses them.
 * gentrace N PAGES files: N file references instead (a trace of
 * tracepgfault -c, format 7), "cache" records of 1 to 16 pages over 64
 * files of up to PAGES pages (0: 65,536), hit, miss or readahead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "genaddr.h"

static const char *const hows[] = { "hit", "hit", "hit", "miss", "readahead" };

/* N cache records over 64 files of @pages pages each. */
static int files(unsigned long long n, unsigned long long pages)
{
	unsigned long long t = 1000000, x = GENADDR_SEED;
	static char buf[1 << 20];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	printf("pgfault_history 7 pid 1 page_size 4096\nstart %llu first files\n", t);
	for (int f = 0; f < 64; f++)
		printf("file %llu %d 08:01 %d /data/file%02d.db\n", t, f, 1000 + f, f);
	for (unsigned long long i = 0; i < n; i++) {
		genaddr_next(&x);
		t += 50 + (x & 255);
		printf("cache %llu %d %llu %llu %llu %c %s\n", t, 1 + (int)(x >> 60),
		       (x >> 8) & 63, (x >> 14) % pages, 1 + ((x >> 40) & 15),
		       (x & 4) ? 'w' : 'r', hows[(x >> 32) % 5]);
	}
	printf("exit %llu 0 0 0 0 cache %llu 0\n", t + 1, n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long n = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
	unsigned long long fold = argc > 2 ? strtoull(argv[2], NULL, 10) * 4096 : 0;
	unsigned long long t = 1000000;
	unsigned long long x = GENADDR_SEED;
	static char buf[1 << 20];

	if (!n) {
		fprintf(stderr, "usage: gentrace NUMBER_OF_FAULTS [PAGES_PER_REGION [files]]\n");
		return 2;
	}
	if (argc > 3 && !strcmp(argv[3], "files"))
		return files(n, fold ? fold / 4096 : 65536);
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	printf("pgfault_history 1 pid 1 page_size 4096\nstart %llu\nlayout %llu 4\n", t, t);
	printf("map %llu 1 400000 480000 r-xp 0 08:01 1234 /usr/bin/bench\n", t);
	printf("map %llu 2 10000000 50000000 rw-p 0 00:00 0 [heap]\n", t);
	printf("map %llu 3 7f0000000000 7f0040000000 rw-p 0 00:00 0\n", t);
	printf("map %llu 4 7ffff0000000 7ffff0100000 rw-p 0 00:00 0 [stack]\n", t);
	for (unsigned long long i = 0; i < n; i++) {
		unsigned long long addr = genaddr_next(&x);

		if (fold) {
			unsigned long long base = addr >= 0x7ffff0000000ULL ? 0x7ffff0000000ULL :
				addr >= 0x7f0000000000ULL ? 0x7f0000000000ULL :
				addr >= 0x10000000 ? 0x10000000 : 0x400000;

			addr = base + (addr - base) % fold;
		}

		t += 50 + (x & 255);
		printf("fault %llu %d %llx %c user %s %llx\n", t, 1 + (int)(x >> 60),
		       addr, (x & 4) ? 'w' : 'r', (x & 0xff0) ? "minor" : "major",
		       0x400000 + ((x >> 20) & 0x7ffff));
		if (i % 100000 == 99999)
			printf("change %llu 3 7f0000000000 7f0040000000 rw-p 0 00:00 0\n", t);
	}
	printf("exit %llu 0 %llu 0 4\n", t + 1, n);
	return 0;
}
