// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport - render and analyse a pgfault_history trace: the per-region
 * fault map, a per-region summary, and exports for other tools.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/pgftrace.h"

static const char usage[] =
"Usage: pgfreport [OPTION...] [TRACE]\n"
"\n"
"Read a pgfault_history trace (from tracepgfault or\n"
"/proc/<pid>/pgfault_history; TRACE '-' or absent: standard input) and\n"
"print, by default, the fault map of each region of the address space:\n"
"\n"
"  Region: 08048000 - 0805a000 (  18 pages): |XXXXXXXXXXXXXXXX..| /bin/ps\n"
"\n"
"one line per region, 'X' for a page that faulted, '.' for one that did\n"
"not, then the region's name. Regions removed during the run follow,\n"
"marked 'removed'.\n"
"\n"
"  --space N     the address space to show: 0 is the one tracing started\n"
"                in, 1 the one after the first exec, ...; default: the last\n"
"  --width N     fold a region of more than N pages into N characters, each\n"
"                standing for several pages, shaded by how many of them\n"
"                faulted: '.' none, ':' '-' '=' '+' '*' '#' more, 'X' all\n"
"  --summary     per region: pages, pages touched, faults, major faults,\n"
"                first touch (ms after the start, '-' if none); then\n"
"                totals. A fault counts for the region that held its\n"
"                address when it happened\n"
"  --csv         every fault as CSV: time_ns,tid,address,access,mode,result,ip,region\n"
"  --refs        the reference string: one page address per line, as\n"
"                page-replacement simulators take it\n"
"  --rw          with --refs: add R or W to each line\n"
"  -h, --help    this help\n"
"\n"
"Exit status: 0; 1 on a bad trace (the report of everything before the\n"
"bad line is still printed) or a bad option.\n"
"\n"
"Examples:\n"
"  tracepgfault ps.trace ps && pgfreport ps.trace\n"
"  pgfreport --summary --width 64 big.trace\n"
"  pgfreport --refs --rw ps.trace > ps.refs\n";

/* ---- a set of page numbers (open addressing) ------------------------- */

struct pageset {
	uint64_t *v;		/* page + 1; 0 is empty */
	size_t cap, nr;
};

static bool ps_add(struct pageset *s, uint64_t page)
{
	size_t i;

	if (2 * (s->nr + 1) > s->cap) {
		struct pageset n = { calloc(s->cap ? 2 * s->cap : 1024, 8),
				     s->cap ? 2 * s->cap : 1024, 0 };

		if (!n.v) {
			fprintf(stderr, "pgfreport: out of memory\n");
			exit(1);
		}
		for (i = 0; i < s->cap; i++)
			if (s->v[i])
				ps_add(&n, s->v[i] - 1);
		free(s->v);
		*s = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->v[i] == page + 1)
			return false;
	s->v[i] = page + 1;
	s->nr++;
	return true;
}

static bool ps_has(const struct pageset *s, uint64_t page)
{
	size_t i;

	if (!s->cap)
		return false;
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->v[i] == page + 1)
			return true;
	return false;
}

/* ---- what we keep per region and per address space -------------------- */

struct rstat {
	unsigned long long id, start, end;
	char perms[5];
	char *name;
	unsigned long long faults, major, first_ns;
	bool touched, alive;
};

struct space {
	struct pageset pages;		/* pages that faulted */
	struct rstat *r;		/* every region seen, by id */
	size_t nr, cap;
	unsigned long long faults, major, failed;
};

static struct rstat *rstat_of(struct space *sp, unsigned long long id)
{
	size_t lo = 0, hi = sp->nr;

	/* Ids grow: they arrive in order, so the array stays sorted. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->r[mid].id == id)
			return &sp->r[mid];
		if (sp->r[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (sp->nr == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 64;
		sp->r = realloc(sp->r, sp->cap * sizeof(*sp->r));
		if (!sp->r) {
			fprintf(stderr, "pgfreport: out of memory\n");
			exit(1);
		}
	}
	memmove(&sp->r[lo + 1], &sp->r[lo], (sp->nr - lo) * sizeof(*sp->r));
	memset(&sp->r[lo], 0, sizeof(*sp->r));
	sp->r[lo].id = id;
	sp->nr++;
	return &sp->r[lo];
}

static void space_free(struct space *sp)
{
	for (size_t i = 0; i < sp->nr; i++)
		free(sp->r[i].name);
	free(sp->r);
	free(sp->pages.v);
	memset(sp, 0, sizeof(*sp));
}

/* ---- options ------------------------------------------------------------ */

enum mode { MAP, SUMMARY, CSV, REFS };

static enum mode mode = MAP;
static long want_space = -1, width;
static bool rw;
static unsigned long page_size = 4096;

static const char *result_name(enum pgft_result r)
{
	static const char * const n[] = { "minor", "major", "SIGSEGV", "SIGBUS", "OOM" };

	return n[r];
}

static void map_line(struct space *sp, const struct rstat *r, const char *tag)
{
	unsigned long long pages = (r->end - r->start) / page_size;
	unsigned long long first = r->start / page_size;
	long cols = width && (long long)pages > width ? width : (long)pages;
	static const char shade[] = ".:-=+*#X";

	printf("Region: %08llx - %08llx (%4llu pages): |", r->start, r->end, pages);
	for (long c = 0; c < cols; c++) {
		unsigned long long a = first + pages * c / cols;
		unsigned long long b = first + pages * (c + 1) / cols;
		unsigned long long hit = 0;

		for (unsigned long long p = a; p < b; p++)
			hit += ps_has(&sp->pages, p);
		if (b - a == 1 || !hit || hit == b - a)
			putchar(!hit ? '.' : 'X');
		else
			putchar(shade[1 + (hit * 6 - 1) / (b - a)]);
	}
	printf("|%s%s%s\n", r->name && *r->name ? " " : "", r->name ? r->name : "", tag);
}

static int cmp_start(const void *a, const void *b)
{
	const struct rstat *x = a, *y = b;

	if (x->alive != y->alive)
		return x->alive ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void report(struct space *sp, unsigned long long t0, long index)
{
	unsigned long long touched = 0, mapped = 0, alive = 0;

	qsort(sp->r, sp->nr, sizeof(*sp->r), cmp_start);
	if (mode == SUMMARY)
		printf("%-8s %-8s %5s %9s %9s %9s %7s %12s  %s\n", "# start", "end",
		       "perms", "pages", "touched", "faults", "major",
		       "first_ms", "region");
	for (size_t i = 0; i < sp->nr; i++) {
		struct rstat *r = &sp->r[i];
		unsigned long long pages = (r->end - r->start) / page_size, t = 0;

		if (!r->end)
			continue;
		if (mode == MAP) {
			map_line(sp, r, r->alive ? "" : " (removed)");
			continue;
		}
		for (unsigned long long p = r->start / page_size;
		     p < r->end / page_size; p++)
			t += ps_has(&sp->pages, p);
		if (r->alive) {
			touched += t;
			mapped += pages;
			alive++;
		}
		printf("%08llx %08llx %5s %9llu %9llu %9llu %7llu ", r->start,
		       r->end, r->perms, pages, t, r->faults, r->major);
		if (r->touched)
			printf("%12.3f", (r->first_ns - t0) / 1e6);
		else
			printf("%12s", "-");
		printf("  %s%s\n", r->name && *r->name ? r->name : "[anon]",
		       r->alive ? "" : " (removed)");
	}
	if (mode == SUMMARY)
		printf("# address space %ld: %llu regions at the end (%llu removed), "
		       "%llu pages mapped, %llu touched, %llu faults (%llu major, "
		       "%llu failed)\n", index, alive, sp->nr - alive, mapped,
		       touched, sp->faults, sp->major, sp->failed);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "space", required_argument, NULL, 's' },
		{ "width", required_argument, NULL, 'w' },
		{ "summary", no_argument, NULL, 'S' },
		{ "csv", no_argument, NULL, 'c' },
		{ "refs", no_argument, NULL, 'r' },
		{ "rw", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct space cur = { 0 }, chosen = { 0 };
	struct pgft_space as = { 0 };
	unsigned long long t0 = 0, lost = 0;
	struct pgft_reader rd;
	const char *fname = "-";
	struct pgft_rec rec;
	long index = 0, shown = -1;
	int opt, ret, status = 0;
	FILE *f = stdin;
	char *end;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
		case 'w':
			errno = 0;
			if (opt == 's')
				want_space = strtol(optarg, &end, 10);
			else
				width = strtol(optarg, &end, 10);
			if (errno || *end || (opt == 's' ? want_space < 0 : width < 1)) {
				fprintf(stderr, "pgfreport: --%s: '%s' is not a %s number\n",
					opt == 's' ? "space" : "width", optarg,
					opt == 's' ? "non-negative" : "positive");
				return 1;
			}
			break;
		case 'S': mode = SUMMARY; break;
		case 'c': mode = CSV; break;
		case 'r': mode = REFS; break;
		case 'R': rw = true; break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind + 1 < argc) {
		fputs(usage, stderr);
		return 1;
	}
	if (optind < argc && strcmp(argv[optind], "-")) {
		fname = argv[optind];
		f = fopen(fname, "r");
		if (!f) {
			fprintf(stderr, "pgfreport: %s: %s\n", fname, strerror(errno));
			return 1;
		}
	} else {
		fname = "standard input";
	}
	if (pgft_open(&rd, f, fname)) {
		fprintf(stderr, "pgfreport: %s\n", rd.error);
		return 1;
	}
	page_size = rd.page_size ? rd.page_size : 4096;
	if (mode == CSV)
		printf("time_ns,tid,address,access,mode,result,ip,region\n");

	while ((ret = pgft_next(&rd, &rec)) > 0) {
		const struct pgft_region *g;
		struct rstat *r;

		if (!t0)
			t0 = rec.time;
		if (rec.type == PGFT_EXEC) {
			/* A new address space: keep the one asked for. */
			if (want_space == index || want_space < 0) {
				space_free(&chosen);
				chosen = cur;
				shown = index;
			} else {
				space_free(&cur);
			}
			memset(&cur, 0, sizeof(cur));
			index++;
		}
		if (rec.type == PGFT_LOST)
			lost += rec.n[0] + rec.n[1];
		if (rec.type == PGFT_LAYOUT)
			for (size_t i = 0; i < cur.nr; i++)
				cur.r[i].alive = false;
		pgft_apply(&as, &rec);
		switch (rec.type) {
		case PGFT_MAP:
		case PGFT_CHANGE:
			r = rstat_of(&cur, rec.id);
			r->start = rec.start;
			r->end = rec.end;
			memcpy(r->perms, rec.perms, 5);
			free(r->name);
			r->name = strdup(rec.name);
			r->alive = true;
			break;
		case PGFT_UNMAP:
			rstat_of(&cur, rec.id)->alive = false;
			break;
		case PGFT_FAULT:
			g = pgft_find(&as, rec.addr);
			if (mode == CSV) {
				printf("%llu,%d,%llx,%c,%s,%s,%llx,%s\n", rec.time, rec.tid,
				       rec.addr, rec.access, rec.kernel ? "kernel" : "user",
				       result_name(rec.result), rec.ip,
				       g ? (*g->name ? g->name : "[anon]") : "");
				break;
			}
			if (mode == REFS) {
				if (rec.result <= PGFT_MAJOR) {
					if (rw)
						printf("%llx %c\n", rec.addr & ~(page_size - 1ULL),
						       rec.access == 'w' ? 'W' : 'R');
					else
						printf("%llx\n", rec.addr & ~(page_size - 1ULL));
				}
				break;
			}
			if (rec.result > PGFT_MAJOR) {
				cur.failed++;
				break;
			}
			cur.faults++;
			cur.major += rec.result == PGFT_MAJOR;
			ps_add(&cur.pages, rec.addr / page_size);
			if (g) {
				r = rstat_of(&cur, g->id);
				if (!r->touched)
					r->first_ns = rec.time;
				r->touched = true;
				r->faults++;
				r->major += rec.result == PGFT_MAJOR;
			}
			break;
		default:
			break;
		}
	}
	if (ret < 0) {
		fprintf(stderr, "pgfreport: %s\n", rd.error);
		status = 1;
	}
	if (mode == MAP || mode == SUMMARY) {
		if (want_space < 0 || want_space == index) {
			space_free(&chosen);
			chosen = cur;
			shown = index;
			memset(&cur, 0, sizeof(cur));
		}
		if (shown < 0) {
			fprintf(stderr, "pgfreport: %s has address spaces 0 to %ld; "
				"there is no --space %ld\n", fname, index, want_space);
			status = 1;
		} else {
			report(&chosen, t0, shown);
		}
		if (lost)
			printf("# %llu records were lost: the trace is incomplete\n", lost);
	}
	space_free(&cur);
	space_free(&chosen);
	pgft_space_free(&as);
	pgft_close(&rd);
	if (f != stdin)
		fclose(f);
	return status;
}
