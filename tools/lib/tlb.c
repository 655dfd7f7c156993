// SPDX-License-Identifier: GPL-2.0
/*
 * tlb - set-associative LRU TLBs, and the parser of their descriptions.
 * See tlb.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tlb.h"

int tlb_parse(const char *list, struct tlb_spec **specs, size_t *nr)
{
	struct tlb_spec *v = NULL;
	const char *p = list;
	size_t n = 0;

	for (;;) {
		unsigned long long e, w = 0;
		struct tlb_spec *nv;
		char *end;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		e = strtoull(p, &end, 10);
		if (errno || !e || e > UINT32_MAX)
			goto bad;
		if (*end == ':') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				goto bad;
			w = strtoull(p, &end, 10);
			if (errno || !w || w > e || e % w)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			return -1;
		}
		v = nv;
		v[n++] = (struct tlb_spec){ e, (uint32_t)w };
		if (!*end)
			break;
		p = end + 1;
	}
	*specs = v;
	*nr = n;
	return 0;
bad:
	free(v);
	errno = EINVAL;
	return -1;
}

int tlb_init(struct tlb *t, uint64_t entries, uint32_t ways)
{
	memset(t, 0, sizeof(*t));
	if (!ways || !entries || entries % ways) {
		errno = EINVAL;
		return -1;
	}
	t->sets = entries / ways;
	t->ways = ways;
	t->way = calloc(entries, sizeof(*t->way));
	return t->way ? 0 : -1;
}

void tlb_free(struct tlb *t)
{
	free(t->way);
	memset(t, 0, sizeof(*t));
}
