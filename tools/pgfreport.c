// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport - render and analyse a pgfault_history trace: the per-region
 * fault map, a per-region summary, miss-ratio curves and reuse distances
 * (tools/lib/mrc.h, reuse.h), and exports for other tools.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/heatmap.h"
#include "lib/hot.h"
#include "lib/lcs.h"
#include "lib/mrc.h"
#include "lib/pgftrace.h"
#include "lib/plots.h"
#include "lib/prefetch.h"
#include "lib/ptree.h"
#include "lib/reuse.h"
#include "lib/sample_report.h"
#include "lib/svg.h"
#include "lib/tlb.h"
#include "lib/version.h"
#include "lib/wss.h"

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
"  --counts      shade the map by how many times each page faulted (its\n"
"                references in a re-reference trace): '.' never, '1' to\n"
"                '9' that many times, '+' ten or more; a folded column\n"
"                shows the faults per page of its pages, rounded up\n"
"  --summary     per region: pages, pages touched, faults, major faults,\n"
"                re-references (faults on re-armed pages: \"reref\"), first\n"
"                touch (ms after the start, '-' if none); then totals. A\n"
"                fault counts for the region that held its address when\n"
"                it happened\n"
"  --timeline    per interval (--interval MS, default 10): faults, distinct\n"
"                pages faulted, the working set (distinct pages faulted in\n"
"                the last --window intervals, default 10) and the footprint\n"
"                (distinct pages faulted so far)\n"
"  --svg FILE    also draw the time x address heatmap into FILE (SVG):\n"
"                time since the trace's start across (--svg-x order:\n"
"                the faults in order), and down a band per region that\n"
"                faulted, highest addresses at the top, its height its\n"
"                share of the faults, labelled with its name, range and\n"
"                share; a cell's colour is its faults on a log scale,\n"
"                whose legend is beside the plot\n"
"  --svg-x time|order  the heatmap's x axis (default: time)\n"
"  --plot FILE   with --mrc, --reuse, --timeline, --wss or --samples: also\n"
"                draw the analysis as an SVG chart into FILE: the\n"
"                miss-ratio curves of every policy on a log2 size axis in\n"
"                pages and bytes (the sizes a window=K trace cannot tell\n"
"                shaded), the reuse-distance histogram with the LRU hit\n"
"                ratio, the working set, pages per interval and footprint\n"
"                over time, Denning's curve on log2 axes, or the pages\n"
"                referenced and W(t,K) per interval of a sampled trace\n"
"                (x: ms since the start)\n"
"  --csv         every fault as CSV: time_ns,tid,address,access,mode,result,ip,region\n"
"  --json        every record as a JSON object, one per line\n"
"  --refs        the reference string: one page address per line, as\n"
"                page-replacement simulators take it, after a line\n"
"                \"# mode M\" per start of tracing: M is \"first\" (first\n"
"                touches, and re-references after a \"rearm\") or\n"
"                \"interval=MS\" (each interval's first references) or\n"
"                \"window=PAGES\" (the references that miss in a FIFO\n"
"                window of PAGES pages) or \"sample=MS\" (the faults;\n"
"                the sampled pages are --samples' business)\n"
"  --rw          with --refs: add R or W to each line\n"
"  --lcs FILE    also write the reference string (every counted fault) as\n"
"                libCacheSim's oracleGeneral binary trace: 24-byte records\n"
"                u32 time (s since the first record), u64 obj_id (page\n"
"                number), u32 obj_size (page size), i64 next_access_vtime\n"
"                (1-based index of the page's next reference, -1 if none),\n"
"                little-endian; the next uses go through two temporary\n"
"                files in $TMPDIR, 20 bytes per reference\n"
"  --lcs-csv FILE  the same as CSV, with the header\n"
"                time,obj_id,obj_size,next_access_vtime\n"
"  --mrc         miss-ratio curves of the reference string (every counted\n"
"                fault; page = address / page size): per cache size, the\n"
"                miss ratio and the misses, cold ones included, of LRU\n"
"                (exact, from the reuse distances), FIFO, CLOCK (second\n"
"                chance: a load leaves the reference bit clear, a hit sets\n"
"                it) and OPT (Belady's MIN; it goes through two temporary\n"
"                files in $TMPDIR, 12 bytes per reference)\n"
"  --sizes LIST  with --mrc: the cache sizes in pages, e.g. 16,64,256;\n"
"                default: 1, 2, 4, ... below the footprint, then the\n"
"                footprint\n"
"  --reuse       the histogram of the references' LRU stack (reuse)\n"
"                distances, the other pages referenced since the page's\n"
"                previous reference, in log2 bins (0, 1, 2-3, 4-7, ...),\n"
"                first references (cold) apart; \"cumulative\" is the share\n"
"                of references at that distance or less: the hit ratio of\n"
"                an LRU cache one page larger than the bin's top; then\n"
"                per region (the one that held the address at the\n"
"                reference): references, cold ones, and the references\n"
"                in each bin\n"
"  --tlb[=SPECS] TLB misses of the reference string, per TLB in SPECS\n"
"                (also --tlb SPECS, when SPECS is no file's name)\n"
"                (default " TLB_DEFAULT_SPECS "): N, a fully associative\n"
"                LRU TLB of N entries (exact, from the LRU curve), or N:W, N\n"
"                entries in N/W sets of W ways, LRU in each set, page p in\n"
"                set p mod N/W; one entry maps one page of the trace (4 KiB\n"
"                here). Cache-line effects, huge pages and the page walk's\n"
"                own caches are beyond a page trace\n"
"  --hot[=N]     (also --hot N, when N is no file's name)\n"
"                the N (default 20) pages with the most references (counted\n"
"                faults), each with its share of all references, its region\n"
"                and, in a file-backed region, its offset in the file\n"
"                (region offset + address - start). A reference counts for\n"
"                the region that held its address when it happened\n"
"  --wss         Denning's working-set curve: for windows of tau = 1, 2, 4,\n"
"                ... references (then all of them), the mean working-set\n"
"                size s(tau) = (1/n) sum over references t of the distinct\n"
"                pages among the tau references ending at t, in pages and\n"
"                bytes, and the working-set fault rate (the share of\n"
"                references whose page is not among the tau before them);\n"
"                exact, from the gaps between a page's references:\n"
"                n s(tau) = sum of min(tau, gap to the page's next\n"
"                reference, or to the end of the trace + 1). --timeline\n"
"                gives the working set per interval of time\n"
"  --prefetch    how sequential the faults are, and what prefetching would\n"
"                have saved: the share of faults on the previous fault's\n"
"                page + 1 (overall, and per region after the region's\n"
"                previous fault), runs of faults with the same stride by\n"
"                length, and for N = 1, 2, 4, ... 64 the faults a next-N\n"
"                prefetch avoids. The model: a trigger on page p brings in\n"
"                p+1 .. p+N of p's region; a brought-in page stays until\n"
"                its next fault, which is avoided; \"demand\" counts with\n"
"                only the faults not avoided triggering (fault-around),\n"
"                \"every\" with avoided ones triggering too (readahead)\n"
"  --samples     for a sampled trace (tracepgfault -s MS: every MS ms a\n"
"                scan of the accessed bits of every present page), per\n"
"                interval (from one scan to the next, the first from the\n"
"                baseline scan at the start): its number, its end and\n"
"                length (ms since the start), the pages referenced, the\n"
"                pages scanned, the scan's time (us), W(K) (the distinct\n"
"                pages referenced in the last K intervals) and its flags\n"
"                (incomplete: refs records were lost, so its pages are a\n"
"                lower bound; stopped: a fatal signal cut the scan short;\n"
"                exec: the first interval of a new address space: every\n"
"                window starts over there). Then the referenced pages per\n"
"                interval (mean, median, max), the scans' time (mean, max,\n"
"                ns per page scanned) and Denning's working set W(t,tau),\n"
"                the distinct pages referenced in the last tau intervals,\n"
"                for tau = 1, 2, 4, ... intervals: its mean and max over\n"
"                the intervals t\n"
"  --ws-intervals K  with --samples: the window of the W(K) column and of\n"
"                the --plot chart (default 4)\n"
"  --sample-map FILE  draw the pages each interval of a sampled trace\n"
"                referenced into FILE (SVG), page-exact: a column per\n"
"                interval, a row per page ever referenced, by address, the\n"
"                gaps between pages apart collapsed (a line and the\n"
"                address mark each), a cell filled where the page was\n"
"                referenced in the interval. Over 2000 pages, a row holds\n"
"                a few; over 800 intervals, a column holds a few (the\n"
"                title says so, a cell is shaded by the share referenced).\n"
"                Alone, it also prints --samples\n"
"  --compare-sample OTHER  TRACE is a sampled trace, OTHER an interval\n"
"                trace of the same program (tracepgfault -i MS), whose\n"
"                intervals are the pages of its counted faults (minor,\n"
"                major, reref) from one \"rearm ... interval\" record to\n"
"                the next (the first from its start): side by side per\n"
"                interval, both from their start, the pages referenced\n"
"                and the pages faulted, and if the two map the same\n"
"                addresses (the same region starts at the end, as with\n"
"                ASLR off) the pages in both, in either, and their Jaccard\n"
"                similarity; then each one's mean, median and max pages\n"
"                per interval and its W(t,tau) for tau = 1, 2, 4, ...\n"
"  --tree        for a tree file (tracepgfault -f): the process tree, one\n"
"                line per process, indented under its creator: pid,\n"
"                creator, when it was created and when its last record\n"
"                came (ms after the root's start), faults (counted ones),\n"
"                distinct pages faulted, lost faults, children, how it\n"
"                ended, the program it ran (its last exec, else its\n"
"                creator's); then totals. The default for a tree file\n"
"  --pid PID     for a tree file: report on process PID alone, with any\n"
"                option above (its map, --summary, --mrc, ...). Without\n"
"                --pid, the analyses take the whole tree: a page is a\n"
"                page of one process (process i, in --tree's order from\n"
"                0, has i added in address bits 56 and up, in --refs,\n"
"                --hot and --lcs), faults keep their own process's\n"
"                regions, --csv and --json gain the pid. --samples,\n"
"                --sample-map and --compare-sample take one process:\n"
"                they need --pid\n"
"  -h, --help    this help\n"
"  --version     the tools' version and the newest trace format they read\n"
"\n"
"--mrc, --reuse, --tlb, --hot, --wss and --prefetch first say what kind\n"
"of trace they read (\"# mode M\", as --refs does) and what that means: a\n"
"first-touch trace holds nearly only cold misses (flat curves at the\n"
"footprint, no reuse, about one reference per page); a window=K\n"
"trace lacks the references that hit its K-page FIFO window (sizes below\n"
"K cannot be told); an interval=MS trace has each page's first reference\n"
"in each interval. A trace is a subsequence of the program's references,\n"
"so the LRU and OPT misses it gives are lower bounds of the program's.\n"
"\n"
"Exit status: 0; 1 on a bad trace (the report of everything before the\n"
"bad line is still printed), a bad option or combination of options, a\n"
"--pid or --space the trace does not have, or an output file that cannot\n"
"be written.\n"
"\n"
"Examples:\n"
"  tracepgfault -o ps.trace ps && pgfreport ps.trace\n"
"  pgfreport --summary --width 64 big.trace\n"
"  tracepgfault -w 64 -o w.trace ./myprog && pgfreport --counts w.trace\n"
"  pgfreport --refs --rw ps.trace > ps.refs\n"
"  tracepgfault -w 64 -o w.trace ./myprog && pgfreport --mrc w.trace\n"
"  pgfreport --mrc --sizes 16,64,256,1024 ws.trace\n"
"  pgfreport --lcs ws.oracleGeneral ws.trace >/dev/null   (then: cachesim\n"
"      ws.oracleGeneral oracleGeneral lru,belady 64,256 --ignore-obj-size 1)\n"
"  tracepgfault -i 10 -o ws.trace ./myprog && pgfreport --reuse ws.trace\n"
"  pgfreport --tlb w.trace\n"
"  pgfreport --tlb 32,64:4,1536:12,2048:16 w.trace\n"
"  pgfreport --hot 50 w.trace\n"
"  pgfreport --wss ws.trace\n"
"  pgfreport --prefetch ps.trace\n"
"  pgfreport --mrc --plot mrc.svg w.trace\n"
"  pgfreport --reuse --plot reuse.svg w.trace\n"
"  pgfreport --timeline --interval 5 --plot wss.svg ws.trace\n"
"  pgfreport --svg heat.svg --svg-x order ps.trace\n"
"  tracepgfault -s 100 -o s.trace ./myprog && pgfreport --samples s.trace\n"
"  pgfreport --samples --ws-intervals 8 --plot ws.svg s.trace\n"
"  pgfreport --sample-map map.svg s.trace\n"
"  echo 0 > /proc/sys/kernel/randomize_va_space   (ASLR off, as root)\n"
"  tracepgfault -i 100 -o i.trace ./myprog && tracepgfault -s 100 -o s.trace \\\n"
"      ./myprog && pgfreport --compare-sample i.trace s.trace\n"
"  tracepgfault -f -o make.trace make -j2 && pgfreport make.trace\n"
"  pgfreport --pid 1234 --summary make.trace\n"
"  pgfreport --mrc make.trace   (the whole tree)\n";

/* ---- a set of page numbers (open addressing) ------------------------- */

struct pageset {
	uint64_t *v;		/* page + 1; 0 is empty */
	uint32_t *n;		/* how many times each was added */
	size_t cap, nr;
};

/* Add @times to the count of @page; true if it is new. */
static bool ps_add_n(struct pageset *s, uint64_t page, uint32_t times)
{
	size_t i;

	if (2 * (s->nr + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct pageset n = { calloc(cap, 8), calloc(cap, 4), cap, 0 };

		if (!n.v || !n.n) {
			fprintf(stderr, "pgfreport: out of memory\n");
			exit(1);
		}
		for (i = 0; i < s->cap; i++)
			if (s->v[i])
				ps_add_n(&n, s->v[i] - 1, s->n[i]);
		free(s->v);
		free(s->n);
		*s = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1)) {
		if (s->v[i] == page + 1) {
			s->n[i] = s->n[i] > UINT32_MAX - times ? UINT32_MAX :
				  s->n[i] + times;
			return false;
		}
	}
	s->v[i] = page + 1;
	s->n[i] = times;
	s->nr++;
	return true;
}

static bool ps_add(struct pageset *s, uint64_t page)
{
	return ps_add_n(s, page, 1);
}

/* How many times @page was added; 0 if never. */
static uint32_t ps_count(const struct pageset *s, uint64_t page)
{
	size_t i;

	if (!s->cap)
		return 0;
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->v[i] == page + 1)
			return s->n[i];
	return 0;
}

/* ---- page -> the region it last faulted in (open addressing) --------- */

struct pagemark {
	uint64_t *page;		/* page + 1; 0 is empty */
	uint64_t *id;		/* the region's id */
	size_t cap, nr;
};

/*
 * Note that @page faulted in region @id; true if it had not yet faulted in
 * that region (since it last faulted in another).
 */
static bool pm_mark(struct pagemark *m, uint64_t page, uint64_t id)
{
	size_t i;

	if (2 * (m->nr + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct pagemark n = { calloc(cap, 8), calloc(cap, 8), cap, 0 };

		if (!n.page || !n.id) {
			fprintf(stderr, "pgfreport: out of memory\n");
			exit(1);
		}
		for (i = 0; i < m->cap; i++)
			if (m->page[i])
				pm_mark(&n, m->page[i] - 1, m->id[i]);
		free(m->page);
		free(m->id);
		*m = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (m->cap - 1); m->page[i];
	     i = (i + 1) & (m->cap - 1)) {
		if (m->page[i] == page + 1) {
			if (m->id[i] == id)
				return false;
			m->id[i] = id;
			return true;
		}
	}
	m->page[i] = page + 1;
	m->id[i] = id;
	m->nr++;
	return true;
}

/* ---- what we keep per region and per address space -------------------- */

struct rstat {
	unsigned long long id, start, end;
	char perms[5];
	char *name;
	/*
	 * All of them count what happened while the region held the
	 * address: its faults, and the distinct pages that faulted in it.
	 */
	unsigned long long faults, major, reref, first_ns, pages_touched;
	bool touched, alive;
};

struct space {
	struct pageset pages;		/* pages that faulted */
	struct pagemark where;		/* the region each last faulted in */
	struct rstat *r;		/* every region seen, by id */
	size_t nr, cap;
	unsigned long long faults, major, reref, failed;
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
	free(sp->pages.n);
	free(sp->where.page);
	free(sp->where.id);
	memset(sp, 0, sizeof(*sp));
}

/* ---- options ------------------------------------------------------------ */

/* MRC and after: analyses of the reference string, with "# mode" lines. */
enum mode { MAP, SUMMARY, TREE, CSV, REFS, TIMELINE, JSON, SAMPLES, COMPARE, MRC,
	     REUSE, TLB, HOT, WSS, PREFETCH };

static enum mode mode = MAP;
static long want_space = -1, width, want_pid;
static bool tree_file;		/* the trace is a tree (tracepgfault -f) */
static bool rw, counts;
static long interval_ms = 10, window = 10;
static const char *svg_path, *plot_path, *lcs_path, *lcs_csv_path;
static bool svg_by_order;
static unsigned long page_size = 4096;
/* The trace's start: its (or --pid's process's) first record, ns. */
static unsigned long long t0;

static const char *result_name(enum pgft_result r)
{
	static const char * const n[] = {
		"minor", "major", "reref", "SIGSEGV", "SIGBUS", "OOM"
	};

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
		unsigned long long hit = 0, refs = 0;

		for (unsigned long long p = a; p < b; p++) {
			uint32_t n = ps_count(&sp->pages, p);

			hit += n != 0;
			refs += n;
		}
		if (counts) {
			/* Faults per page of the column, rounded up. */
			refs = (refs + (b - a) - 1) / (b - a);
			putchar(!refs ? '.' : refs > 9 ? '+' : '0' + (int)refs);
		} else if (b - a == 1 || !hit || hit == b - a)
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
	unsigned long long mapped = 0, alive = 0;

	qsort(sp->r, sp->nr, sizeof(*sp->r), cmp_start);
	if (mode == SUMMARY)
		printf("%-8s %-8s %5s %9s %9s %9s %7s %9s %12s  %s\n", "# start",
		       "end", "perms", "pages", "touched", "faults", "major",
		       "rerefs", "first_ms", "region");
	for (size_t i = 0; i < sp->nr; i++) {
		struct rstat *r = &sp->r[i];
		unsigned long long pages = (r->end - r->start) / page_size;

		if (!r->end)
			continue;
		if (mode == MAP) {
			map_line(sp, r, r->alive ? "" : " (removed)");
			continue;
		}
		if (r->alive) {
			mapped += pages;
			alive++;
		}
		printf("%08llx %08llx %5s %9llu %9llu %9llu %7llu %9llu ", r->start,
		       r->end, r->perms, pages, r->pages_touched, r->faults,
		       r->major, r->reref);
		if (r->touched)
			printf("%12.3f", (r->first_ns - t0) / 1e6);
		else
			printf("%12s", "-");
		printf("  %s%s\n", r->name && *r->name ? r->name : "[anon]",
		       r->alive ? "" : " (removed)");
	}
	if (mode != SUMMARY)
		return;
	printf("# address space %ld: %llu regions at the end (%llu removed), "
	       "%llu pages mapped, %llu touched, %llu faults (%llu major, ",
	       index, alive, sp->nr - alive, mapped,
	       (unsigned long long)sp->pages.nr, sp->faults, sp->major);
	if (sp->reref)
		printf("%llu re-references, ", sp->reref);
	printf("%llu failed)\n", sp->failed);
}

/* ---- --timeline ------------------------------------------------------ */

/* page -> last interval it faulted in (open addressing, 0 = empty key) */
struct lastmap {
	uint64_t *key;
	long long *val;
	size_t cap, nr;
};

static long long *lm_slot(struct lastmap *m, uint64_t page, bool *fresh)
{
	size_t i;

	if (2 * (m->nr + 1) > m->cap) {
		struct lastmap n = { calloc(m->cap ? 2 * m->cap : 1024, 8),
				     calloc(m->cap ? 2 * m->cap : 1024, 8),
				     m->cap ? 2 * m->cap : 1024, 0 };
		bool f;

		if (!n.key || !n.val) {
			fprintf(stderr, "pgfreport: out of memory\n");
			exit(1);
		}
		for (i = 0; i < m->cap; i++)
			if (m->key[i])
				*lm_slot(&n, m->key[i] - 1, &f) = m->val[i];
		free(m->key);
		free(m->val);
		*m = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (m->cap - 1); m->key[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->key[i] == page + 1) {
			*fresh = false;
			return &m->val[i];
		}
	m->key[i] = page + 1;
	m->nr++;
	*fresh = true;
	return &m->val[i];
}

struct timeline {
	struct lastmap last;
	long long cur;			/* current interval, -1 before any */
	unsigned long long faults, distinct, ws, t0;
	unsigned long long *ring;	/* pages whose last fault is interval i */
	/* With --plot, the rows: interval start (ns), pages, working set, footprint */
	double *row[4];
	size_t nrow, caprow;
};

static void tl_print(struct timeline *tl)
{
	printf("%10.1f %10llu %10llu %12llu %12llu\n",
	       (double)tl->cur * interval_ms, tl->faults, tl->distinct, tl->ws,
	       (unsigned long long)tl->last.nr);
	if (!plot_path)
		return;
	if (tl->nrow == tl->caprow) {
		tl->caprow = tl->caprow ? 2 * tl->caprow : 256;
		for (int k = 0; k < 4; k++) {
			tl->row[k] = realloc(tl->row[k], tl->caprow * sizeof(double));
			if (!tl->row[k]) {
				fprintf(stderr, "pgfreport: out of memory\n");
				exit(1);
			}
		}
	}
	tl->row[0][tl->nrow] = (double)tl->cur * interval_ms * 1e6;
	tl->row[1][tl->nrow] = (double)tl->distinct;
	tl->row[2][tl->nrow] = (double)tl->ws;
	tl->row[3][tl->nrow] = (double)tl->last.nr;
	tl->nrow++;
}

/* Move to interval @iv, printing the ones that end (empty ones too). */
static void tl_advance(struct timeline *tl, long long iv)
{
	while (tl->cur < iv) {
		if (tl->cur >= 0)
			tl_print(tl);
		tl->cur++;
		/* The interval leaving the window takes its pages with it. */
		tl->ws -= tl->ring[tl->cur % window];
		tl->ring[tl->cur % window] = 0;
		tl->faults = 0;
		tl->distinct = 0;
	}
}

static void tl_fault(struct timeline *tl, unsigned long long t, uint64_t page)
{
	long long iv, *last;
	bool fresh;

	if (!tl->ring) {
		tl->ring = calloc(window, sizeof(*tl->ring));
		if (!tl->ring)
			exit(1);
		tl->t0 = t;
		tl->cur = -1;
		printf("# interval %ld ms, working-set window %ld intervals\n",
		       interval_ms, window);
		printf("# %8s %10s %10s %12s %12s\n", "t_ms", "faults", "pages",
		       "working_set", "footprint");
	}
	iv = t > tl->t0 ? (long long)((t - tl->t0) / (interval_ms * 1000000ULL)) : 0;
	if (iv > tl->cur)
		tl_advance(tl, iv);
	tl->faults++;
	last = lm_slot(&tl->last, page, &fresh);
	if (fresh || *last != tl->cur) {
		tl->distinct++;
		if (!fresh && *last > tl->cur - window) {
			tl->ring[*last % window]--;	/* still in the window */
			tl->ws--;
		}
		tl->ring[tl->cur % window]++;
		tl->ws++;
		*last = tl->cur;
	}
}

/* ---- --json ------------------------------------------------------------ */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_rec(const struct pgft_rec *r)
{
	static const char * const types[] = {
		"start", "fault", "lost", "exec", "stop", "exit", "layout", "map",
		"change", "unmap", "remote", "rearm", "child", "refs", "sample",
	};
	const char *p;

	printf("{\"type\":\"%s\"", types[r->type]);
	if (tree_file)
		printf(",\"pid\":%d", r->pid);
	if (r->type != PGFT_LOST)
		printf(",\"time\":%llu", r->time);
	switch (r->type) {
	case PGFT_FAULT:
		printf(",\"tid\":%d,\"address\":%llu,\"access\":\"%c\",\"mode\":\"%s\","
		       "\"result\":\"%s\",\"ip\":%llu", r->tid, r->addr, r->access,
		       r->kernel ? "kernel" : "user", result_name(r->result), r->ip);
		break;
	case PGFT_REMOTE:
		printf(",\"tid\":%d,\"access\":\"%c\",\"result\":\"%s\"",
		       r->tid, r->access, result_name(r->result));
		break;
	case PGFT_MAP:
	case PGFT_CHANGE:
		printf(",\"id\":%llu,\"start\":%llu,\"end\":%llu,\"perms\":\"%s\","
		       "\"offset\":%llu,\"dev\":\"%02x:%02x\",\"inode\":%llu,\"name\":",
		       r->id, r->start, r->end, r->perms, r->offset, r->major,
		       r->minor, r->inode);
		json_str(r->name);
		break;
	case PGFT_UNMAP:
		printf(",\"id\":%llu", r->id);
		break;
	case PGFT_LAYOUT:
		printf(",\"count\":%llu", r->n[0]);
		break;
	case PGFT_LOST:
		printf(",\"faults\":%llu,\"other\":%llu", r->n[0], r->n[1]);
		break;
	case PGFT_EXEC:
		printf(",\"tid\":%d,\"path\":", r->tid);
		json_str(r->text);
		break;
	case PGFT_STOP:
		printf(",\"reason\":");
		json_str(r->text);
		break;
	case PGFT_REARM:
		printf(",\"pages\":%llu,\"how\":", r->n[0]);
		json_str(r->text);
		break;
	case PGFT_START:
		printf(",\"mode\":");
		json_str(*r->text ? r->text : "first");
		if (r->n[0])
			printf(",\"inherit\":true");
		break;
	case PGFT_CHILD:
		printf(",\"tid\":%d,\"pid\":%llu", r->tid, r->n[0]);
		if (r->n[1])
			printf(",\"untraced\":true");
		break;
	case PGFT_EXIT:
		printf(",\"status\":%llu,\"faults\":%llu,\"lost\":%llu,\"regions\":%llu",
		       r->n[0], r->n[1], r->n[2], r->n[3]);
		break;
	case PGFT_REFS: {
		unsigned long long a, n;
		const char *sep = "";

		/* Each run as [address, pages]. */
		printf(",\"tid\":%d,\"runs\":[", r->tid);
		for (p = r->text; pgft_run(&p, &a, &n); sep = ",")
			printf("%s[%llu,%llu]", sep, a, n);
		printf("]");
		break;
	}
	case PGFT_SAMPLE:
		printf(",\"tid\":%d,\"scanned\":%llu,\"referenced\":%llu,\"ns\":%llu",
		       r->tid, r->n[0], r->n[1], r->n[2]);
		if (r->flags & PGFT_SAMPLE_BASELINE)
			printf(",\"baseline\":true");
		if (r->flags & PGFT_SAMPLE_INCOMPLETE)
			printf(",\"incomplete\":true");
		if (r->flags & PGFT_SAMPLE_STOPPED)
			printf(",\"stopped\":true");
		break;
	default:
		break;
	}
	puts("}");
}

/* ---- --mrc, --reuse ------------------------------------------------------ */

/*
 * The reference string goes to the analyses in batches (tools/lib does
 * them faster so); their memory is bounded by the distinct pages.
 */
#define CACHE_BATCH 256

/* --reuse per region: the histogram of the references to each. */
struct reuse_reg {
	uint64_t refs, cold, bins[REUSE_BINS];
};

struct cache {
	struct reuse lru;
	struct mrc *sim[MRC_OPT + 1];	/* --mrc: FIFO, CLOCK, OPT */
	uint64_t batch[CACHE_BATCH];
	uint64_t tag[CACHE_BATCH];	/* --reuse: their regions' tags */
	int64_t dist[CACHE_BATCH];
	size_t nbatch;
	struct reuse_reg *reg;		/* by tag */
	size_t nreg;
	/* What kind of trace: the start records' modes, each once. */
	char **modes;
	size_t nmodes, starts;
	unsigned long long rerefs;
	bool failed;
};

static uint64_t *sizes;
static size_t nsizes;

static void cache_flush(struct cache *c)
{
	if (!c->nbatch || c->failed)
		return;
	if (reuse_ref_batch_dist(&c->lru, c->batch, c->nbatch,
				 mode == REUSE ? c->dist : NULL)) {
		fprintf(stderr, "pgfreport: out of memory for the reuse distances\n");
		c->failed = true;
	}
	for (size_t i = 0; mode == REUSE && !c->failed && i < c->nbatch; i++) {
		struct reuse_reg *g;

		if (c->tag[i] >= c->nreg) {
			size_t n = c->tag[i] + 1 > 2 * c->nreg ? c->tag[i] + 1 : 2 * c->nreg;

			g = realloc(c->reg, n * sizeof(*g));
			if (!g) {
				fprintf(stderr, "pgfreport: out of memory\n");
				exit(1);
			}
			memset(g + c->nreg, 0, (n - c->nreg) * sizeof(*g));
			c->reg = g;
			c->nreg = n;
		}
		g = &c->reg[c->tag[i]];
		g->refs++;
		if (c->dist[i] == REUSE_COLD)
			g->cold++;
		else
			g->bins[reuse_bin(c->dist[i])]++;
	}
	for (int p = MRC_FIFO; p <= MRC_OPT && c->sim[p]; p++)
		if (!c->failed && mrc_ref_batch(c->sim[p], c->batch, c->nbatch)) {
			fprintf(stderr, "pgfreport: %s: %s\n", mrc_policy_name(p),
				strerror(errno));
			c->failed = true;
		}
	c->nbatch = 0;
}

/* A reference to @page, in the region tagged @tag (--reuse). */
static void cache_ref(struct cache *c, uint64_t page, uint64_t tag)
{
	c->tag[c->nbatch] = tag;
	c->batch[c->nbatch++] = page;
	if (c->nbatch == CACHE_BATCH)
		cache_flush(c);
}

static void cache_start(struct cache *c, const char *text)
{
	const char *m = *text ? text : "first";

	c->starts++;
	for (size_t i = 0; i < c->nmodes; i++)
		if (!strcmp(c->modes[i], m))
			return;
	c->modes = realloc(c->modes, (c->nmodes + 1) * sizeof(*c->modes));
	if (!c->modes || !(c->modes[c->nmodes++] = strdup(m))) {
		fprintf(stderr, "pgfreport: out of memory\n");
		exit(1);
	}
}

/* Lines that say what kind of trace this is: "# " lines, and charts' notes. */
#define NOTES 12

struct notes {
	char line[NOTES][360];
	const char *ptr[NOTES];
	size_t n;
};

static void __attribute__((format(printf, 2, 3)))
note(struct notes *n, const char *fmt, ...)
{
	va_list ap;

	if (n->n == NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(n->line[n->n], sizeof(n->line[0]), fmt, ap);
	va_end(ap);
	n->ptr[n->n] = n->line[n->n];
	n->n++;
}

/* What kind of trace this is, and what that means for the analysis. */
static void cache_kind(const struct cache *c, struct notes *n, enum mode an)
{
	n->n = 0;
	if (!c->starts)
		note(n, "mode first (the trace has no start record)");
	for (size_t i = 0; i < (c->starts ? c->nmodes : 1); i++) {
		const char *m = c->starts ? c->modes[i] : "first";

		if (n->n >= NOTES - 2) {
			note(n, "(and %zu more modes)", c->nmodes - i);
			break;
		}
		if (c->starts)
			note(n, "mode %s", m);
		if (!strcmp(m, "first") && !c->rerefs)
			note(n, "  first touches only (a page faults again only for a "
			     "write after a read): nearly every reference is a cold "
			     "miss, %s show no reuse (trace with -w or -i for that)",
			     an >= MRC ? "so the curves sit at the footprint and" :
			     "the faults");
		else if (!strcmp(m, "first"))
			note(n, "  first touches, and re-references after the program's "
			     "rearm writes: reuse is seen only across a rearm");
		else if (!strncmp(m, "window=", 7))
			note(n, "  the references that missed a FIFO window of %s pages "
			     "(the hits are not in the trace): sizes below %s pages "
			     "cannot be told", m + 7, m + 7);
		else if (!strncmp(m, "interval=", 9))
			note(n, "  each page's first reference in each interval of %s ms: "
			     "reuse within an interval is not seen", m + 9);
	}
	if (an == HOT)
		note(n, "a page's references are its faults in the trace: one or two "
		     "each in a first-touch trace, the returns after leaving the "
		     "window or the interval in the others");
	else if (an == WSS)
		note(n, "the references are a subsequence of the program's: windows "
		     "count the trace's references, not the program's");
	else if (an == PREFETCH)
		note(n, "every fault of the trace is a page the program needed and did "
		     "not have: the faults a prefetch would have avoided, of these");
	else if (an == TIMELINE)
		note(n, "a page counts in an interval when it faults in it: the "
		     "working set holds the pages that faulted in the window, so a "
		     "first-touch trace shows new pages, not the pages in use");
	else if (an >= MRC)
		note(n, "the references are a subsequence of the program's: LRU and "
		     "OPT misses%s are lower bounds of its own, FIFO and CLOCK have "
		     "no such bound", an == TLB ? " (and every LRU TLB's)" : "");
}

static void print_notes(const struct notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		printf("# %s\n", n->line[i]);
}

/* The largest K of the trace's window=K modes: sizes below it are blind. */
static uint64_t cache_blind(const struct cache *c)
{
	uint64_t k = 0;

	for (size_t i = 0; i < c->nmodes; i++)
		if (!strncmp(c->modes[i], "window=", 7) &&
		    strtoull(c->modes[i] + 7, NULL, 10) > k)
			k = strtoull(c->modes[i] + 7, NULL, 10);
	return k;
}

/* ---- --plot, --svg ---------------------------------------------------- */

static struct notes notes;

/* Title and notes of a chart of @what. */
static struct plot_text plot_text(const char *what, const char *fname)
{
	return (struct plot_text){ plot_title(what, fname), notes.ptr, notes.n,
				   page_size };
}

static int cache_mrc(struct cache *c, const char *fname)
{
	struct mrc *fifo = c->sim[MRC_FIFO];
	unsigned long long refs = c->lru.refs;
	size_t n = mrc_nr(fifo);
	uint64_t *miss_at = calloc(4 * (n ? n : 1), sizeof(*miss_at));
	uint64_t *size_at = calloc(n ? n : 1, sizeof(*size_at));
	const uint64_t *curve[4];
	int ret = 0;

	if (!miss_at || !size_at) {
		fprintf(stderr, "pgfreport: out of memory\n");
		exit(1);
	}

	printf("# %llu references to %llu pages (%llu KiB); misses include the "
	       "%llu cold ones\n", refs, (unsigned long long)reuse_pages(&c->lru),
	       (unsigned long long)reuse_pages(&c->lru) * page_size / 1024,
	       (unsigned long long)c->lru.cold);
	printf("# %9s %14s %7s %7s %7s %7s %12s %12s %12s %12s\n", "size_pages",
	       "size_bytes", "lru", "fifo", "clock", "opt", "lru_misses",
	       "fifo_misses", "clock_misses", "opt_misses");
	for (size_t i = 0; i < mrc_nr(fifo); i++) {
		uint64_t size = mrc_size(fifo, i), miss[4];

		miss[0] = reuse_lru_misses(&c->lru, size);
		for (int p = MRC_FIFO; p <= MRC_OPT; p++)
			miss[1 + p] = mrc_misses(c->sim[p], i);
		printf("%12llu %14llu", (unsigned long long)size,
		       (unsigned long long)size * page_size);
		for (int k = 0; k < 4; k++)
			printf(" %7.4f", refs ? (double)miss[k] / refs : 0.0);
		for (int k = 0; k < 4; k++) {
			printf(" %12llu", (unsigned long long)miss[k]);
			miss_at[k * n + i] = miss[k];
		}
		putchar('\n');
		size_at[i] = size;
	}
	for (int k = 0; k < 4; k++)
		curve[k] = miss_at + k * n;
	if (plot_path) {
		FILE *f = svg_open(plot_path);
		struct plot_text t = plot_text("Miss-ratio curves", fname);

		if (f) {
			plot_mrc(f, &t, size_at, n, curve, refs, cache_blind(c));
			ret = svg_close(f, plot_path);
		} else {
			ret = 1;
		}
	}
	free(miss_at);
	free(size_at);
	return ret;
}


static int cache_reuse(struct cache *c, const char *fname)
{
	const struct reuse *r = &c->lru;
	unsigned long long cum = 0;
	unsigned int top = r->refs > r->cold ? reuse_bin(r->max_dist) : 0;

	printf("# %llu references to %llu pages; %llu first references (cold misses)\n",
	       (unsigned long long)r->refs, (unsigned long long)reuse_pages(r),
	       (unsigned long long)r->cold);
	printf("# %-20s %12s %7s %10s\n", "distance", "references", "share",
	       "cumulative");
	printf("%-22s %12llu %7.4f\n", "cold", (unsigned long long)r->cold,
	       r->refs ? (double)r->cold / r->refs : 0.0);
	for (unsigned int k = 0; r->refs > r->cold && k <= top; k++) {
		char label[48];

		reuse_bin_label(label, sizeof(label), k);
		cum += r->bins[k];
		printf("%-22s %12llu %7.4f %10.4f\n", label,
		       (unsigned long long)r->bins[k], (double)r->bins[k] / r->refs,
		       (double)cum / r->refs);
	}
	if (plot_path) {
		FILE *f = svg_open(plot_path);
		struct plot_text t = plot_text("Reuse distances", fname);

		if (!f)
			return 1;
		plot_reuse(f, &t, r);
		return svg_close(f, plot_path);
	}
	return 0;
}

/* ---- --tlb, --hot, --wss, --prefetch ------------------------------------ */

static struct tlb_spec *tlb_specs;
static size_t ntlb;
static long hot_n = 20;

/* The state of --tlb (beside cache.lru), --hot, --wss and --prefetch. */
struct more {
	struct tlb *tlb;		/* per spec; unused for a full one */
	struct hot hot;
	struct pgid_map regs;		/* (space, region id) -> tag - 1 */
	struct hotreg {
		char *name;
		bool file;
	} *reg;
	struct wss wss;
	struct prefetch pf;
};

static void more_init(struct more *m)
{
	if (mode == WSS)
		wss_init(&m->wss);
	if (mode == PREFETCH)
		prefetch_init(&m->pf);
	if (mode != TLB)
		return;
	m->tlb = calloc(ntlb, sizeof(*m->tlb));
	for (size_t i = 0; m->tlb && i < ntlb; i++)
		if (tlb_specs[i].ways && tlb_init(&m->tlb[i], tlb_specs[i].entries,
						  tlb_specs[i].ways))
			break;
	for (size_t i = 0; i < ntlb; i++)
		if (!m->tlb || (tlb_specs[i].ways && !m->tlb[i].way)) {
			fprintf(stderr, "pgfreport: out of memory\n");
			exit(1);
		}
}

/*
 * The tag of region @g of address space @space (a region id names a
 * region within its address space): 1, 2, ... in order of first sight;
 * 0 without a region.
 */
static uint64_t region_tag(struct more *m, long space, const struct pgft_region *g)
{
	uint32_t had = m->regs.nr;
	int64_t id;

	if (!g)
		return 0;
	id = pgid_get(&m->regs, ((uint64_t)space << 44) ^ g->id);
	if (id >= 0 && m->regs.nr != had) {
		struct hotreg *v = realloc(m->reg, m->regs.nr * sizeof(*v));

		if (v)
			m->reg = v;
		if (!v || !(v[id].name = strdup(*g->name ? g->name : "[anon]")))
			id = -1;
		else
			v[id].file = g->inode || g->name[0] == '/';
	}
	if (id < 0) {
		fprintf(stderr, "pgfreport: out of memory\n");
		exit(1);
	}
	return id + 1;
}

/*
 * A reference to @addr; @g is the region that held it then, in address
 * space @space.
 */
static void more_ref(struct more *m, long space, const struct pgft_region *g,
		     unsigned long long addr)
{
	uint64_t page = addr / page_size, tag = 0, off = UINT64_MAX;

	switch (mode) {
	case TLB:
		for (size_t i = 0; i < ntlb; i++)
			if (m->tlb[i].way)
				tlb_ref(&m->tlb[i], page);
		return;
	case WSS:
		if (wss_ref(&m->wss, page))
			break;
		return;
	case HOT:
	case PREFETCH:
		tag = region_tag(m, space, g);
		if (tag && m->reg[tag - 1].file)
			off = g->offset + (page * page_size - g->start);
		if (mode == HOT ? hot_ref(&m->hot, page, tag, off) :
		    prefetch_ref(&m->pf, page, tag, g ? g->end / page_size : page + 1))
			break;
		return;
	default:
		return;
	}
	fprintf(stderr, "pgfreport: out of memory\n");
	exit(1);
}

/* --reuse: the histogram of each region's references. */
static void reuse_regions(const struct cache *c, const struct more *m)
{
	unsigned int top = 0;

	if (!c->lru.refs)
		return;
	for (size_t t = 0; t < c->nreg; t++)
		for (unsigned int k = 0; k < REUSE_BINS; k++)
			if (c->reg[t].bins[k] && k > top)
				top = k;
	printf("# per region (the region that held the address at the reference): "
	       "references, cold ones, then the references per distance bin; the "
	       "distances are the whole string's (other pages of every region)\n");
	printf("# %10s %10s", "references", "cold");
	for (unsigned int k = 0; k <= top; k++) {
		char label[48];

		reuse_bin_label(label, sizeof(label), k);
		printf(" %10s", label);
	}
	printf("  region\n");
	/* Tag 0, the references outside any region, last. */
	for (size_t i = 1; i <= c->nreg; i++) {
		size_t t = i % c->nreg;
		const struct reuse_reg *g = &c->reg[t];

		if (!g->refs)
			continue;
		printf("%12llu %10llu", (unsigned long long)g->refs,
		       (unsigned long long)g->cold);
		for (unsigned int k = 0; k <= top; k++)
			printf(" %10llu", (unsigned long long)g->bins[k]);
		printf("  %s\n", t ? m->reg[t - 1].name : "-");
	}
}

static void tlb_report(const struct cache *c, const struct more *m)
{
	const struct reuse *r = &c->lru;

	printf("# pages of %lu bytes, one TLB entry each, LRU replacement; ENTRIES:WAYS "
	       "has ENTRIES/WAYS sets, page p in set p mod sets; \"full\": fully "
	       "associative, exact from the LRU curve\n", page_size);
	printf("# a page trace sees pages, not accesses: cache-line effects (and "
	       "huge pages, the page walk's own caches, hits between two faults) "
	       "are beyond it\n");
	printf("# %llu references to %llu pages; misses include the %llu cold ones\n",
	       (unsigned long long)r->refs, (unsigned long long)reuse_pages(r),
	       (unsigned long long)r->cold);
	printf("# %9s %6s %6s %14s %12s %10s\n", "entries", "ways", "sets",
	       "reach_bytes", "misses", "miss_ratio");
	for (size_t i = 0; i < ntlb; i++) {
		const struct tlb_spec *s = &tlb_specs[i];
		uint64_t miss = s->ways ? m->tlb[i].misses :
			reuse_lru_misses(r, s->entries);
		char ways[16] = "full";

		if (s->ways)
			snprintf(ways, sizeof(ways), "%u", s->ways);
		printf("%11llu %6s %6llu %14llu %12llu %10.4f\n",
		       (unsigned long long)s->entries, ways,
		       (unsigned long long)(s->ways ? s->entries / s->ways : 1),
		       (unsigned long long)s->entries * page_size,
		       (unsigned long long)miss,
		       r->refs ? (double)miss / r->refs : 0.0);
	}
}

static void hot_report(const struct more *m)
{
	size_t want = (size_t)hot_n < m->hot.nr ? (size_t)hot_n : m->hot.nr;
	struct hot_entry *top = malloc((want ? want : 1) * sizeof(*top));
	unsigned long long cum = 0;
	long n;

	if (!top) {
		fprintf(stderr, "pgfreport: out of memory\n");
		exit(1);
	}
	n = hot_top(&m->hot, top, want);
	printf("# %llu references to %zu pages in regions (a page whose address "
	       "two regions held over the run is two); the %ld most referenced, "
	       "each reference counted for the region that held its address then; "
	       "file_offset: the page's offset in the region's file\n",
	       (unsigned long long)m->hot.refs, m->hot.nr, n);
	printf("# %4s %16s %10s %7s %10s %12s  %s\n", "rank", "page", "refs",
	       "share", "cumulative", "file_offset", "region");
	for (long i = 0; i < n; i++) {
		const struct hot_entry *e = &top[i];
		char off[24] = "-";

		if (e->aux != UINT64_MAX)
			snprintf(off, sizeof(off), "0x%llx", (unsigned long long)e->aux);
		cum += e->refs;
		printf("%6ld %16llx %10llu %7.4f %10.4f %12s  %s\n", i + 1,
		       (unsigned long long)e->page * page_size,
		       (unsigned long long)e->refs, (double)e->refs / m->hot.refs,
		       (double)cum / m->hot.refs, off,
		       e->tag ? m->reg[e->tag - 1].name : "-");
	}
	free(top);
}

static int wss_report(struct more *m, const char *fname)
{
	struct wss *w = &m->wss;
	uint64_t n = w->refs;

	wss_end(w);
	printf("# Denning's working-set curve: s(tau), the mean over every reference "
	       "t of the distinct pages among the tau references ending at t, exact "
	       "from the gaps between references to a page (Denning & Schwartz "
	       "1972); fault_rate: the share of references whose page is not "
	       "among the tau before them\n");
	printf("# tau counts this trace's references (its counted faults), not the "
	       "program's; the working set per interval of time is --timeline's\n");
	printf("# %llu references to %u pages\n", (unsigned long long)n, w->ids.nr);
	printf("# %10s %12s %14s %10s\n", "tau_refs", "wss_pages", "wss_bytes",
	       "fault_rate");
	for (uint64_t tau = 1; n; tau = tau < n && tau * 2 > n ? n : tau * 2) {
		double s = (double)wss_sum(w, tau) / n;

		printf("%12llu %12.4f %14.0f %10.4f\n", (unsigned long long)tau, s,
		       s * page_size, (double)wss_faults(w, tau) / n);
		if (tau >= n)
			break;
	}
	if (plot_path) {
		FILE *f = svg_open(plot_path);
		struct plot_text t = plot_text("Working-set curve", fname);

		if (!f)
			return 1;
		plot_wss(f, &t, w);
		return svg_close(f, plot_path);
	}
	return 0;
}

static void prefetch_report(struct more *m)
{
	struct prefetch *pf = &m->pf;
	double n = pf->refs ? (double)pf->refs : 1;
	uint64_t avoided = 0;
	unsigned int top = 0;

	prefetch_end(pf);
	printf("# %llu faults; next-page (the previous fault's page + 1): %llu "
	       "(%.4f)\n", (unsigned long long)pf->refs,
	       (unsigned long long)pf->next_page, pf->next_page / n);
	printf("# runs of faults with the same stride (page - the previous fault's "
	       "page), by length in strides (a run of k spans k + 1 faults)\n");
	printf("# %-20s %12s %12s\n", "run_strides", "runs", "of_faults");
	for (unsigned int k = 1; k < PF_BINS; k++)
		if (pf->runs[k])
			top = k;
	for (unsigned int k = 1; k <= top; k++) {
		char label[48];

		reuse_bin_label(label, sizeof(label), k);
		printf("%-22s %12llu %12.4f\n", label, (unsigned long long)pf->runs[k],
		       pf->run_strides[k] / n);
	}
	printf("# per region (the region that held the address at the fault; "
	       "next-page: after the previous fault in the same region)\n");
	printf("# %10s %12s %10s  %s\n", "faults", "next_page", "share", "region");
	for (size_t t = 0; t < pf->nreg; t++)
		if (pf->reg[t].faults)
			printf("%12llu %12llu %10.4f  %s\n",
			       (unsigned long long)pf->reg[t].faults,
			       (unsigned long long)pf->reg[t].next_page,
			       (double)pf->reg[t].next_page / pf->reg[t].faults,
			       t ? m->reg[t - 1].name : "-");
	printf("# next-N prefetch: each trigger on page p brings in p+1 .. p+N of "
	       "its region, kept until used; \"demand\": only the faults not "
	       "avoided trigger (fault-around); \"every\": avoided ones too "
	       "(readahead)\n");
	printf("# %6s %14s %10s %14s %10s\n", "N", "avoided_demand", "share",
	       "avoided_every", "share");
	for (unsigned int k = 0, pn = 1; pn <= PF_MAX; pn++) {
		avoided += pf->avoided_every[pn];
		if (pn != prefetch_grid[k])
			continue;
		printf("%8u %14llu %10.4f %14llu %10.4f\n", pn,
		       (unsigned long long)pf->avoided_demand[k],
		       pf->avoided_demand[k] / n, (unsigned long long)avoided,
		       avoided / n);
		k++;
	}
}

static void more_free(struct more *m)
{
	for (size_t i = 0; m->tlb && i < ntlb; i++)
		tlb_free(&m->tlb[i]);
	free(m->tlb);
	for (uint32_t i = 0; i < m->regs.nr && m->reg; i++)
		free(m->reg[i].name);
	free(m->reg);
	pgid_free(&m->regs);
	hot_free(&m->hot);
	wss_free(&m->wss);
	prefetch_free(&m->pf);
	free(tlb_specs);
}

/*
 * The word after an option whose argument may be left out (--tlb
 * [SPECS], --hot [N]), if it is made of @chars and names no file.
 */
static const char *opt_word(int argc, char **argv, const char *chars)
{
	const char *w = optind < argc ? argv[optind] : NULL;

	if (!w || !*w || w[strspn(w, chars)] || !access(w, F_OK))
		return NULL;
	optind++;
	return w;
}

/* "1,8,64" into sizes[], sorted, without repeats; 0 or -1. */
static int parse_sizes(const char *arg)
{
	const char *p = arg;
	char *end;

	free(sizes);
	sizes = NULL;
	nsizes = 0;
	for (;;) {
		unsigned long long v;
		uint64_t *n;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || !v || (*end && *end != ','))
			return -1;
		n = realloc(sizes, (nsizes + 1) * sizeof(*sizes));
		if (!n)
			return -1;
		sizes = n;
		sizes[nsizes++] = v;
		if (!*end)
			break;
		p = end + 1;
	}
	/* Sort (insertion: lists are short) and drop repeats. */
	for (size_t i = 1; i < nsizes; i++)
		for (size_t j = i; j && sizes[j - 1] > sizes[j]; j--) {
			uint64_t t = sizes[j];

			sizes[j] = sizes[j - 1];
			sizes[j - 1] = t;
		}
	for (size_t i = 1, k = 1; i <= nsizes; i++) {
		if (i == nsizes) {
			nsizes = k;
			break;
		}
		if (sizes[i] != sizes[k - 1])
			sizes[k++] = sizes[i];
	}
	return 0;
}

/* --timeline --plot: the working set over time. */
static int timeline_plot(struct timeline *tl, const struct cache *c,
			 const char *fname)
{
	FILE *f = svg_open(plot_path);
	struct plot_text t;
	char label[96];

	if (!f)
		return 1;
	cache_kind(c, &notes, TIMELINE);
	snprintf(label, sizeof(label), "working set (pages faulted in the last "
		 "%ld intervals)", window);
	t = plot_text("Working set over time", fname);
	plot_timeline(f, &t, tl->row[0], tl->row[1], tl->row[2], tl->row[3],
		      tl->nrow, label);
	return svg_close(f, plot_path);
}

/* --svg: the time x address heatmap. */
static int heat_report(struct heatmap *h, const struct cache *c,
		       const char *fname)
{
	FILE *f = svg_open(svg_path);
	struct notes kind = { 0 };
	struct plot_text t;

	if (!f)
		return 1;
	cache_kind(c, &kind, MAP);
	t = plot_text("Page faults, time x address", fname);
	heat_write(h, f, t.title, kind.ptr, kind.n);
	return svg_close(f, svg_path);
}

/* Write the --lcs and --lcs-csv files; 0, or 1 after an error message. */
static int lcs_export(struct lcs *e, const char *fname)
{
	FILE *bin = NULL, *csv = NULL;
	const char *bad = NULL;

	if (lcs_path && !(bin = fopen(lcs_path, "wb")))
		bad = lcs_path;
	else if (lcs_csv_path && !(csv = fopen(lcs_csv_path, "w")))
		bad = lcs_csv_path;
	else if (lcs_write(e, bin, csv, page_size))
		bad = lcs_path ? lcs_path : lcs_csv_path;
	if (bin && fclose(bin) && !bad)
		bad = lcs_path;
	if (csv && fclose(csv) && !bad)
		bad = lcs_csv_path;
	if (bad) {
		fprintf(stderr, "pgfreport: %s: %s\n", bad, strerror(errno));
		return 1;
	}
	fprintf(stderr, "pgfreport: %llu references of %s written for libCacheSim\n",
		(unsigned long long)lcs_count(e), fname);
	return 0;
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
		{ "counts", no_argument, NULL, 'n' },
		{ "timeline", no_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "window", required_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 'g' },
		{ "svg-x", required_argument, NULL, 'X' },
		{ "plot", required_argument, NULL, 'p' },
		{ "lcs", required_argument, NULL, 'L' },
		{ "lcs-csv", required_argument, NULL, 'C' },
		{ "mrc", no_argument, NULL, 'm' },
		{ "reuse", no_argument, NULL, 'u' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "tlb", optional_argument, NULL, 'T' },
		{ "hot", optional_argument, NULL, 'H' },
		{ "wss", no_argument, NULL, 'D' },
		{ "prefetch", no_argument, NULL, 'P' },
		{ "tree", no_argument, NULL, 'E' },
		{ "pid", required_argument, NULL, 'I' },
		{ "samples", no_argument, NULL, 'a' },
		{ "ws-intervals", required_argument, NULL, 'K' },
		{ "sample-map", required_argument, NULL, 'M' },
		{ "compare-sample", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct space cur = { 0 }, chosen = { 0 };
	struct timeline tl = { 0 };
	struct heatmap heat;
	struct lcs *lcs = NULL;
	struct cache cache = { 0 };
	struct more more = { 0 };
	struct pgft_space as = { 0 };
	struct ptree pt = { 0 };
	struct ptree_proc *P = NULL;
	struct srep_opts sample_opts = { .ws_intervals = 4 };
	struct srep samp;
	unsigned long long lost = 0;
	bool whole = false, pid_seen = false, sampling, ws_given = false;
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
		case 'i':
		case 'W': {
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < (opt == 's' ? 0 : 1)) {
				fprintf(stderr, "pgfreport: --%s: '%s' is not a %s number\n",
					opt == 's' ? "space" : opt == 'w' ? "width" :
					opt == 'i' ? "interval" : "window", optarg,
					opt == 's' ? "non-negative" : "positive");
				return 1;
			}
			if (opt == 's')
				want_space = v;
			else if (opt == 'w')
				width = v;
			else if (opt == 'i')
				interval_ms = v;
			else
				window = v;
			break;
		}
		case 't': mode = TIMELINE; break;
		case 'j': mode = JSON; break;
		case 'g': svg_path = optarg; break;
		case 'p': plot_path = optarg; break;
		case 'X':
			if (strcmp(optarg, "time") && strcmp(optarg, "order")) {
				fprintf(stderr, "pgfreport: --svg-x: '%s' is neither "
					"'time' nor 'order'\n", optarg);
				return 1;
			}
			svg_by_order = !strcmp(optarg, "order");
			break;
		case 'E': mode = TREE; break;
		case 'a':
			mode = SAMPLES;
			sample_opts.samples = true;
			break;
		case 'O': mode = COMPARE; sample_opts.other = optarg; break;
		case 'M': sample_opts.map = optarg; break;
		case 'K':
			errno = 0;
			sample_opts.ws_intervals = strtoul(optarg, &end, 10);
			if (errno || *end || !sample_opts.ws_intervals ||
			    *optarg == '-' || sample_opts.ws_intervals > 1UL << 30) {
				fprintf(stderr, "pgfreport: --ws-intervals: '%s' is not a "
					"positive number of intervals\n", optarg);
				return 1;
			}
			ws_given = true;
			break;
		case 'I':
			errno = 0;
			want_pid = strtol(optarg, &end, 10);
			if (errno || *end || want_pid <= 0 || want_pid > 0x7fffffff) {
				fprintf(stderr, "pgfreport: --pid: '%s' is not a process id\n",
					optarg);
				return 1;
			}
			break;
		case 'L': lcs_path = optarg; break;
		case 'C': lcs_csv_path = optarg; break;
		case 'S': mode = SUMMARY; break;
		case 'm': mode = MRC; break;
		case 'u': mode = REUSE; break;
		case 'D': mode = WSS; break;
		case 'P': mode = PREFETCH; break;
		case 'T': {
			const char *a = optarg ? optarg : opt_word(argc, argv, "0123456789:,");

			mode = TLB;
			free(tlb_specs);
			if (tlb_parse(a ? a : TLB_DEFAULT_SPECS, &tlb_specs, &ntlb)) {
				fprintf(stderr, "pgfreport: --tlb: '%s' is not a list of TLBs, "
					"ENTRIES (fully associative) or ENTRIES:WAYS with WAYS "
					"dividing ENTRIES, such as 64:4,1536:12\n", a);
				return 1;
			}
			break;
		}
		case 'H': {
			const char *a = optarg ? optarg : opt_word(argc, argv, "0123456789");

			mode = HOT;
			errno = 0;
			if (a && ((hot_n = strtol(a, &end, 10)) < 1 || *end || errno)) {
				fprintf(stderr, "pgfreport: --hot: '%s' is not a positive "
					"number\n", a);
				return 1;
			}
			break;
		}
		case 'z':
			if (parse_sizes(optarg)) {
				fprintf(stderr, "pgfreport: --sizes: '%s' is not a list of "
					"positive numbers of pages, such as 1,8,64\n", optarg);
				return 1;
			}
			break;
		case 'c': mode = CSV; break;
		case 'r': mode = REFS; break;
		case 'R': rw = true; break;
		case 'n': counts = true; break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("pgfreport %s (pgfault_history tools; trace format up to %d)\n",
			       PGF_TOOLS_VERSION, PGFT_VERSION);
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
	/* --sample-map alone: the map, and --samples's table. */
	if (sample_opts.map && mode == MAP)
		mode = SAMPLES;
	if (sample_opts.map && mode != SAMPLES && mode != COMPARE) {
		fprintf(stderr, "pgfreport: --sample-map draws the intervals of a "
			"sampled trace: give it alone, with --samples or with "
			"--compare-sample\n");
		return 1;
	}
	if (ws_given && mode != SAMPLES) {
		fprintf(stderr, "pgfreport: --ws-intervals is the window of "
			"--samples's W(k) column: give --samples\n");
		return 1;
	}
	sampling = mode == SAMPLES || mode == COMPARE;
	if (plot_path && mode != MRC && mode != REUSE && mode != TIMELINE &&
	    mode != WSS && mode != SAMPLES) {
		fprintf(stderr, "pgfreport: --plot draws the chart of --mrc, --reuse, "
			"--timeline, --wss or --samples: give one of them (--svg "
			"draws the heatmap, --sample-map a sampled trace's pages)\n");
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
	if (lcs_path || lcs_csv_path) {
		lcs = lcs_new();
		if (!lcs) {
			fprintf(stderr, "pgfreport: --lcs: a temporary file: %s\n",
				strerror(errno));
			return 1;
		}
	}
	page_size = rd.page_size ? rd.page_size : 4096;
	tree_file = rd.tree;
	if (!rd.tree && (want_pid || mode == TREE) &&
	    !(want_pid == rd.pid && mode != TREE)) {
		fprintf(stderr, "pgfreport: %s is the trace of process %d alone, not a "
			"tree (tracepgfault -f writes trees)\n", fname, rd.pid);
		return 1;
	}
	/* Without --pid, a tree is analysed whole, each process apart. */
	whole = rd.tree && !want_pid;
	if (whole && mode == MAP)
		mode = TREE;
	if (whole && (mode == SUMMARY || want_space >= 0)) {
		fprintf(stderr, "pgfreport: %s is a tree: --summary, the map and "
			"--space are per process: give --pid (--tree lists them)\n",
			fname);
		return 1;
	}
	if (whole && sampling) {
		fprintf(stderr, "pgfreport: %s is a tree: --samples, --sample-map and "
			"--compare-sample read one process's scans: give --pid (--tree "
			"lists them)\n", fname);
		return 1;
	}
	if (sampling) {
		sample_opts.plot = plot_path;
		sample_opts.compare = mode == COMPARE;
		srep_init(&samp, &sample_opts, page_size);
	}
	heat_init(&heat, !svg_by_order);
	if (mode == MRC || mode == REUSE || mode == TLB)
		reuse_init(&cache.lru, 0);
	more_init(&more);
	for (int p = MRC_FIFO; mode == MRC && p <= MRC_OPT; p++) {
		cache.sim[p] = mrc_new(p, sizes, nsizes);
		if (!cache.sim[p]) {
			fprintf(stderr, "pgfreport: %s%s: %s\n", mrc_policy_name(p),
				p == MRC_OPT ? ": its temporary file" : "", strerror(errno));
			return 1;
		}
	}
	if (mode == CSV)
		printf("time_ns,tid,address,access,mode,result,ip,region%s\n",
		       whole ? ",pid" : "");

	while ((ret = pgft_next(&rd, &rec)) > 0) {
		const struct pgft_region *g;
		unsigned long long addr;
		struct rstat *r;
		long sp;

		if (rd.tree) {
			P = ptree_rec(&pt, &rec, page_size);
			if (!P) {
				fprintf(stderr, "pgfreport: out of memory\n");
				return 1;
			}
			if (want_pid && rec.pid != want_pid)
				continue;
			pid_seen = true;
		}
		if (!t0)
			t0 = rec.time;
		if (mode == TREE)
			continue;
		if (sampling && srep_rec(&samp, &rec, &rd)) {
			ret = -1;
			break;
		}
		/*
		 * The address space and address a fault is known by: in a whole
		 * tree, each process's own, its index in the high bits.
		 */
		sp = whole ? (long)P->index << 20 | P->space : index;
		addr = whole ? rec.addr | (unsigned long long)P->index << 56 :
			       rec.addr;
		if (mode == JSON)
			json_rec(&rec);
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
		if (rec.type == PGFT_START && mode == REFS)
			/* What the references are: first touches, or more. */
			printf("# mode %s\n", *rec.text ? rec.text : "first");
		if (rec.type == PGFT_START)
			cache_start(&cache, rec.text);
		if (rec.type == PGFT_LAYOUT)
			for (size_t i = 0; i < cur.nr; i++)
				cur.r[i].alive = false;
		if (!whole)
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
			g = pgft_find(whole ? &P->as : &as, rec.addr);
			if (pgft_counted(rec.result))
				cache.rerefs += rec.result == PGFT_REREF;
			if (svg_path && g && pgft_counted(rec.result) &&
			    heat_fault(&heat, ((uint64_t)sp << 32) ^ g->id,
				       g->start, g->end, g->name,
				       rec.time > t0 ? rec.time - t0 : 0,
				       rec.addr)) {
				fprintf(stderr, "pgfreport: out of memory\n");
				return 1;
			}
			if (lcs && pgft_counted(rec.result) &&
			    lcs_ref(lcs, addr / page_size,
				    (rec.time - t0) / 1000000000ULL)) {
				fprintf(stderr, "pgfreport: --lcs: %s\n", strerror(errno));
				lcs_free(lcs);
				lcs = NULL;
				status = 1;
			}
			if (mode == TIMELINE) {
				if (pgft_counted(rec.result))
					tl_fault(&tl, rec.time, addr / page_size);
				break;
			}
			if (mode == JSON)
				break;
			if (mode >= MRC) {
				if (pgft_counted(rec.result)) {
					if (mode <= TLB)
						cache_ref(&cache, addr / page_size,
							  mode == REUSE ?
							  region_tag(&more, sp, g) : 0);
					more_ref(&more, sp, g, addr);
				}
				break;
			}
			if (mode == CSV) {
				printf("%llu,%d,%llx,%c,%s,%s,%llx,%s", rec.time, rec.tid,
				       rec.addr, rec.access, rec.kernel ? "kernel" : "user",
				       result_name(rec.result), rec.ip,
				       g ? (*g->name ? g->name : "[anon]") : "");
				if (whole)
					printf(",%d", rec.pid);
				putchar('\n');
				break;
			}
			if (mode == REFS) {
				if (pgft_counted(rec.result)) {
					if (rw)
						printf("%llx %c\n", addr & ~(page_size - 1ULL),
						       rec.access == 'w' ? 'W' : 'R');
					else
						printf("%llx\n", addr & ~(page_size - 1ULL));
				}
				break;
			}
			if (!pgft_counted(rec.result)) {
				cur.failed++;
				break;
			}
			cur.faults++;
			cur.major += rec.result == PGFT_MAJOR;
			cur.reref += rec.result == PGFT_REREF;
			ps_add(&cur.pages, rec.addr / page_size);
			if (g) {
				r = rstat_of(&cur, g->id);
				if (!r->touched)
					r->first_ns = rec.time;
				r->touched = true;
				r->pages_touched += pm_mark(&cur.where,
							    rec.addr / page_size,
							    g->id);
				r->faults++;
				r->major += rec.result == PGFT_MAJOR;
				r->reref += rec.result == PGFT_REREF;
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
	if (want_pid && rd.tree && !pid_seen) {
		fprintf(stderr, "pgfreport: %s has no process %ld (--tree lists them)\n",
			fname, want_pid);
		status = 1;
	} else if (mode == TREE) {
		ptree_print(&pt, stdout, t0);
	}
	if (mode == TIMELINE && tl.ring)
		tl_print(&tl);
	if (mode == TIMELINE && plot_path)
		status |= timeline_plot(&tl, &cache, fname);
	if (mode == TIMELINE) {
		free(tl.ring);
		free(tl.last.key);
		free(tl.last.val);
		for (int k = 0; k < 4; k++)
			free(tl.row[k]);
	}
	/* (Without --pid's process, the error above says it all.) */
	if (sampling && !(want_pid && rd.tree && !pid_seen))
		status |= srep_report(&samp, fname, t0, &as, index);
	if (sampling)
		srep_free(&samp);
	if (svg_path)
		status |= heat_report(&heat, &cache, fname);
	heat_free(&heat);
	if (lcs && lcs_export(lcs, fname))
		status = 1;
	lcs_free(lcs);
	if (mode >= MRC) {
		cache_flush(&cache);
		for (int p = MRC_FIFO; p <= MRC_OPT && cache.sim[p] && !cache.failed; p++)
			if (mrc_end(cache.sim[p])) {
				fprintf(stderr, "pgfreport: %s: %s\n", mrc_policy_name(p),
					strerror(errno));
				cache.failed = true;
			}
		if (cache.failed) {
			status = 1;
		} else {
			cache_kind(&cache, &notes, mode);
			print_notes(&notes);
			if (mode == MRC)
				status |= cache_mrc(&cache, fname);
			else if (mode == REUSE)
				status |= cache_reuse(&cache, fname);
			if (mode == REUSE)
				reuse_regions(&cache, &more);
			else if (mode == TLB)
				tlb_report(&cache, &more);
			else if (mode == HOT)
				hot_report(&more);
			else if (mode == WSS)
				status |= wss_report(&more, fname);
			else if (mode == PREFETCH)
				prefetch_report(&more);
		}
		more_free(&more);
		for (int p = MRC_FIFO; p <= MRC_OPT; p++)
			mrc_free(cache.sim[p]);
		for (size_t i = 0; i < cache.nmodes; i++)
			free(cache.modes[i]);
		free(cache.modes);
		free(cache.reg);
		reuse_free(&cache.lru);
		free(sizes);
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
	ptree_free(&pt);
	pgft_close(&rd);
	if (f != stdin)
		fclose(f);
	return status;
}
