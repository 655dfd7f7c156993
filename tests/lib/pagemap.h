/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagemap.h - what the kernel says of a page of the calling process, for
 * the in-guest tests of frames: its frame (/proc/self/pagemap), the
 * frame's flags (/proc/kpageflags), its node (move_pages(2), or for the
 * zero page the node of the zone that spans it in /proc/zoneinfo). Frame
 * numbers need CAP_SYS_ADMIN.
 */
#ifndef PGF_TEST_PAGEMAP_H
#define PGF_TEST_PAGEMAP_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PM_PRESENT		(1ULL << 63)
#define PM_SWAP			(1ULL << 62)
#define PM_PFN_MASK		((1ULL << 55) - 1)

#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_KSM			21
#define KPF_ZERO_PAGE		24

/* pagemap's entry for the page at @addr, 0 if it cannot be read. */
static inline uint64_t pgf_pagemap(unsigned long addr)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t e = 0;

	if (fd >= 0) {
		if (pread(fd, &e, 8, addr / 4096 * 8) != 8)
			e = 0;
		close(fd);
	}
	return e;
}

/* The frame the page at @addr is mapped to, 0 if none. */
static inline uint64_t pgf_pagemap_pfn(unsigned long addr)
{
	uint64_t e = pgf_pagemap(addr);

	return e & PM_PRESENT ? e & PM_PFN_MASK : 0;
}

/* /proc/kpageflags' flags of frame @pfn, 0 if they cannot be read. */
static inline uint64_t pgf_kpageflags(uint64_t pfn)
{
	int fd = open("/proc/kpageflags", O_RDONLY);
	uint64_t f = 0;

	if (fd >= 0) {
		if (pread(fd, &f, 8, pfn * 8) != 8)
			f = 0;
		close(fd);
	}
	return f;
}

/*
 * The node whose zone spans frame @pfn, from /proc/zoneinfo ("Node N,
 * zone Z", then its spanned pages and start_pfn); -1 if none does.
 */
static inline int pgf_zone_node(uint64_t pfn)
{
	unsigned long long spanned = 0, start;
	FILE *f = fopen("/proc/zoneinfo", "r");
	int node = -1, at = -1;
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d,", &at) == 1)
			spanned = 0;
		else if (sscanf(line, " spanned %llu", &spanned) == 1)
			continue;
		else if (sscanf(line, " start_pfn: %llu", &start) == 1 &&
			 pfn >= start && pfn < start + spanned)
			node = at;
	}
	if (f)
		fclose(f);
	return node;
}

/*
 * The node of the page at @addr: move_pages(2)'s, or for a frame it does
 * not place (the zero page) its zone's; -1 if not present.
 */
static inline int pgf_page_node(unsigned long addr)
{
	void *page = (void *)addr;
	int status = -1;
	uint64_t pfn;

	if (!syscall(SYS_move_pages, 0, 1UL, &page, NULL, &status, 0) &&
	    status >= 0)
		return status;
	pfn = pgf_pagemap_pfn(addr);
	return pfn ? pgf_zone_node(pfn) : -1;
}

/* Nodes of the guest: node0, node1, ... as sysfs lists them. */
static inline int pgf_nodes(void)
{
	char path[64];
	int nodes = 0;

	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", i);
		nodes += !access(path, F_OK);
	}
	return nodes;
}

#endif
