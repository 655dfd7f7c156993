// SPDX-License-Identifier: GPL-2.0
/*
 * filter - the faults a report takes: --tid, --time, --addr, --region
 * (filter.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter.h"

int pgft_filter_tid(struct pgft_filter *f, const char *arg, char *err, size_t n)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > 0x7fffffff) {
		snprintf(err, n, "'%s' is not a thread id", arg);
		return -1;
	}
	f->tid = v;
	return 0;
}

/*
 * Seconds with up to 9 decimals as exact nanoseconds, saturating at
 * UINT64_MAX; 0 or -1.
 */
static int seconds_ns(const char *s, unsigned long long *ns)
{
	unsigned long long sec = 0, frac = 0;
	int digits = 0;

	if (!*s || (*s == '.' && !s[1]))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (sec > (UINT64_MAX - 9) / 10)
			return -1;
		sec = sec * 10 + (*s - '0');
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (digits < 9) {
				frac = frac * 10 + (*s - '0');
				digits++;
			}
	if (*s)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec > (UINT64_MAX - frac) / 1000000000ULL ? UINT64_MAX :
	      sec * 1000000000ULL + frac;
	return 0;
}

/* One end of --time: "", "1.5" or "@12345.6"; 0 or -1. */
static int time_end(const char *s, size_t len, bool *has, bool *abs,
		    unsigned long long *ns)
{
	char buf[64];

	*has = len > 0;
	*abs = false;
	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	s = buf;
	if (*s == '@') {
		*abs = true;
		s++;
	}
	return seconds_ns(s, ns);
}

int pgft_filter_time(struct pgft_filter *f, const char *arg, char *err,
		     size_t n)
{
	const char *comma = strchr(arg, ',');

	if (!comma || strchr(comma + 1, ',') ||
	    time_end(arg, comma - arg, &f->has_from, &f->from_abs, &f->from_ns) ||
	    time_end(comma + 1, strlen(comma + 1), &f->has_to, &f->to_abs,
		     &f->to_ns)) {
		snprintf(err, n, "'%s' is not FROM,TO in seconds (from the start, "
			 "or @ and the trace's clock), such as 1.5,3 or 2, or "
			 ",0.5", arg);
		return -1;
	}
	if (!f->has_from && !f->has_to) {
		snprintf(err, n, "'%s' gives neither FROM nor TO", arg);
		return -1;
	}
	if (f->has_from && f->has_to && f->from_abs == f->to_abs &&
	    f->to_ns <= f->from_ns) {
		snprintf(err, n, "'%s': TO is not after FROM", arg);
		return -1;
	}
	f->has_time = true;
	return 0;
}

/* A hex address, "0x" optional; 0 or -1. */
static int hex(const char *s, size_t len, unsigned long long *v)
{
	char buf[32], *end;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}
	if (!len || len >= sizeof(buf) || strspn(s, "0123456789abcdefABCDEF") < len)
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	*v = strtoull(buf, &end, 16);
	return errno || *end ? -1 : 0;
}

/* A size in bytes with an optional k, m or g; 0 or -1. */
static int size(const char *s, unsigned long long *v)
{
	unsigned long long mul = 1;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end && !end[1]) {
		switch (*end) {
		case 'k': case 'K': mul = 1ULL << 10; break;
		case 'm': case 'M': mul = 1ULL << 20; break;
		case 'g': case 'G': mul = 1ULL << 30; break;
		default: return -1;
		}
	} else if (*end) {
		return -1;
	}
	if (*v > UINT64_MAX / mul)
		return -1;
	*v *= mul;
	return 0;
}

int pgft_filter_addr(struct pgft_filter *f, const char *arg, char *err, size_t n)
{
	const char *sep = strpbrk(arg, "-+");
	unsigned long long len = 0;

	if (!sep || hex(arg, sep - arg, &f->lo) ||
	    (*sep == '-' ? hex(sep + 1, strlen(sep + 1), &f->hi) :
	     size(sep + 1, &len) || len > UINT64_MAX - f->lo) ||
	    (*sep == '+' && !len)) {
		snprintf(err, n, "'%s' is not START-END (hex, such as "
			 "7f0000000000-7f0000100000) or START+SIZE (such as "
			 "0x400000+64k)", arg);
		return -1;
	}
	if (*sep == '+')
		f->hi = f->lo + len;
	if (f->hi <= f->lo) {
		snprintf(err, n, "'%s': END is not above START", arg);
		return -1;
	}
	f->has_addr = true;
	return 0;
}

int pgft_filter_region(struct pgft_filter *f, const char *arg, char *err,
		       size_t n)
{
	char **v;

	if (!*arg) {
		snprintf(err, n, "an empty region name (a region without one "
			 "is \"[anon]\")");
		return -1;
	}
	v = realloc(f->regions, (f->nregions + 1) * sizeof(*v));
	if (!v || !(v[f->nregions] = strdup(arg))) {
		if (v)
			f->regions = v;
		snprintf(err, n, "out of memory");
		return -1;
	}
	f->regions = v;
	f->nregions++;
	return 0;
}

bool pgft_filter_any(const struct pgft_filter *f)
{
	return f->tid || f->has_time || f->has_addr || f->nregions;
}

/* @ns after the start @t0 (or on the clock, @abs), saturating. */
static unsigned long long at(unsigned long long ns, bool abs,
			     unsigned long long t0)
{
	return abs ? ns : ns > UINT64_MAX - t0 ? UINT64_MAX : t0 + ns;
}

void pgft_filter_begin(struct pgft_filter *f, unsigned long long t0)
{
	f->from = f->has_from ? at(f->from_ns, f->from_abs, t0) : 0;
	f->to = f->has_to ? at(f->to_ns, f->to_abs, t0) : UINT64_MAX;
}

/* Whether @name is region name @want: whole, its last part, or "[anon]". */
static bool name_is(const char *name, const char *want)
{
	const char *base = strrchr(name, '/');

	if (!*name)
		return !strcmp(want, "[anon]");
	return !strcmp(name, want) || (base && !strcmp(base + 1, want));
}

static bool region_match(const struct pgft_filter *f, unsigned long long id,
			 const char *name)
{
	if (!f->nregions)
		return true;
	for (size_t i = 0; i < f->nregions; i++) {
		const char *w = f->regions[i];

		if (w[strspn(w, "0123456789")] == 0 ?
		    strtoull(w, NULL, 10) == id : name_is(name, w))
			return true;
	}
	return false;
}

bool pgft_filter_fault(const struct pgft_filter *f, const struct pgft_rec *r,
		       const struct pgft_region *g)
{
	if (f->tid && r->tid != f->tid)
		return false;
	if (f->has_time && (r->time < f->from || r->time >= f->to))
		return false;
	if (f->has_addr && (r->addr < f->lo || r->addr >= f->hi))
		return false;
	if (f->nregions && (!g || !region_match(f, g->id, g->name)))
		return false;
	return true;
}

bool pgft_filter_region_in(const struct pgft_filter *f, unsigned long long id,
			   unsigned long long start, unsigned long long end,
			   const char *name)
{
	if (f->has_addr && (end <= f->lo || start >= f->hi))
		return false;
	return region_match(f, id, name ? name : "");
}

void pgft_filter_free(struct pgft_filter *f)
{
	for (size_t i = 0; i < f->nregions; i++)
		free(f->regions[i]);
	free(f->regions);
	f->regions = NULL;
	f->nregions = 0;
}
