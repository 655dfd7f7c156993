/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mapscmp.h - compare an address space replayed from a trace's region
 * records (tools/lib/pgftrace.c) with a /proc/<pid>/maps text, field by
 * field: the oracle of the region tests.
 */
#ifndef PGF_TEST_MAPSCMP_H
#define PGF_TEST_MAPSCMP_H

#include <stdio.h>
#include <string.h>
#include "ktap.h"
#include "../../tools/lib/pgftrace.h"

struct maps_line {
	unsigned long long start, end, offset, inode;
	unsigned int major, minor;
	char perms[5];
	char name[512];
};

static inline int parse_maps_line(const char *l, struct maps_line *m)
{
	int pos = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(l, "%llx-%llx %4s %llx %x:%x %llu%n", &m->start, &m->end,
		   m->perms, &m->offset, &m->major, &m->minor, &m->inode,
		   &pos) != 7)
		return -1;
	l += pos;
	while (*l == ' ')
		l++;
	snprintf(m->name, sizeof(m->name), "%.*s", (int)strcspn(l, "\n"), l);
	return 0;
}

/* Compare the replayed space with a maps text; 0 if equal. */
static inline int maps_compare(struct pgft_space *s, const char *maps, size_t len, int cp)
{
	const char *l = maps, *end = maps + len;
	struct maps_line m;
	size_t i = 0;

	pgft_sort(s);
	for (; l < end; l = strchr(l, '\n') + 1, i++) {
		const struct pgft_region *g = i < s->nr ? &s->v[i] : NULL;

		if (parse_maps_line(l, &m)) {
			ktap_diag("checkpoint %d: unparsable maps line: %.80s", cp, l);
			return -1;
		}
		/*
		 * x86_64's vsyscall page is a gate area that maps shows, not
		 * a VMA of the mm: no trace has it.
		 */
		if (!strcmp(m.name, "[vsyscall]")) {
			i--;
			continue;
		}
		if (!g || g->start != m.start || g->end != m.end ||
		    strcmp(g->perms, m.perms) || g->offset != m.offset ||
		    g->major != m.major || g->minor != m.minor ||
		    g->inode != m.inode || strcmp(g->name, m.name)) {
			ktap_diag("checkpoint %d, maps line %zu: %.*s", cp, i + 1,
				  (int)strcspn(l, "\n"), l);
			if (g)
				ktap_diag("  replay has: %llx-%llx %s %llx %02x:%02x %llu %s (id %llu)",
					  g->start, g->end, g->perms, g->offset,
					  g->major, g->minor, g->inode, g->name, g->id);
			else
				ktap_diag("  replay has nothing there");
			return -1;
		}
	}
	if (i != s->nr) {
		ktap_diag("checkpoint %d: maps has %zu regions, replay %zu", cp, i, s->nr);
		return -1;
	}
	return 0;
}

#endif
