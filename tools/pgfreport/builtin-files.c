// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport files - the page cache references of a trace of file I/O
 * (tracepgfault -c), per file and per process (tools/lib/pcache.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "pass.h"
#include "report.h"
#include "../lib/pcache.h"

static const char usage[] =
"Usage: pgfreport files [OPTION...] [TRACE]\n"
"\n"
"The page cache references of a trace of file I/O (tracepgfault -c: the\n"
"\"file\" and \"cache\" records), per file, most pages used first: the pages\n"
"the reads and writes used, how they fared - hit (found in the page\n"
"cache), miss (read in for the call; a write's page the cache did not\n"
"hold), hole (a hole of a tmpfs file), direct (O_DIRECT, around the\n"
"cache) - the pages readahead brought in that the call did not use, the\n"
"distinct pages used, and the runs: sequential (starting where the file's\n"
"previous run ended, or in its last page) or random. The first lines give\n"
"the whole trace and\n"
"its hit ratio: hits / (hits + misses), what the kernel's page cache gave\n"
"this program. In a tree file read whole, a file is a file of one\n"
"process (the pid column), and a second table gives each process's\n"
"totals (--table processes with --format).\n"
"\n"
"Options:\n"
"  --top N       the N files with the most pages used (default 20; 0: all;\n"
"                text only: csv and json list every file)\n"
"\n"
"Columns (csv, json): pid, file (its id in the trace), path, dev, inode,\n"
"used (pages), distinct, read, write (pages used by reads, by writes),\n"
"hit, miss, hole, direct, readahead (pages), hit_ratio, runs, seq, random.\n"
"\n"
"Examples:\n"
"  tracepgfault -c -o grep.trace grep -r pattern /usr/include\n"
"  pgfreport files grep.trace\n"
"  pgfreport files --format csv grep.trace > files.csv\n";

static const char *const tables[] = { "files", "processes", NULL };

struct files_state {
	struct pcache c;
	long top;
	bool seen;			/* a "file" record came */
};

static void files_init(void *st)
{
	struct files_state *F = st;

	F->top = 20;
}

static int pid_of(const struct pass *ps, const struct pgft_rec *r)
{
	return ps->trace.rd.tree && r->pid ? r->pid : ps->trace.rd.pid;
}

static int files_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	struct files_state *F = st;

	if (r->type == PGFT_FILE) {
		F->seen = true;
		if (pcache_file(&F->c, pid_of(ps, r), r))
			return errno == ENOMEM ? pass_oom(ps) :
			       pass_bad_trace(ps, "%s:%llu: file id %llu: more files "
					      "than this report takes", ps->trace.fname,
					      ps->trace.rd.line, r->id);
	} else if (r->type == PGFT_CACHE && pcache_ref(&F->c, pid_of(ps, r), r)) {
		return errno == ENOMEM ? pass_oom(ps) :
		       pass_bad_trace(ps, "%s:%llu: a cache record of file %llu, which "
				      "no file record named before it", ps->trace.fname,
				      ps->trace.rd.line, r->id);
	}
	return 0;
}

static int files_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct files_state *F = st;

	return opt == 'T' ? pass_number(ps, "--top", arg, true, &F->top) != 0 : 0;
}

/* Most pages used first; then the order they were named. */
static int by_used(const void *a, const void *b)
{
	const struct pcache_file *x = *(const struct pcache_file *const *)a;
	const struct pcache_file *y = *(const struct pcache_file *const *)b;
	uint64_t ux = pcache_used(&x->st), uy = pcache_used(&y->st);

	if (ux != uy)
		return ux > uy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static const char *const cols[] = {
	"pid", "file", "path", "dev", "inode", "used", "distinct", "read",
	"write", "hit", "miss", "hole", "direct", "readahead", "hit_ratio",
	"runs", "seq", "random",
};

/* One row of cols[]; @f NULL: a process's totals (no file). */
static void row(struct table *t, int pid, const struct pcache_file *f,
		const struct pcache_stats *s)
{
	char dev[24];

	table_u64(t, pid);
	if (f) {
		snprintf(dev, sizeof(dev), "%02x:%02x", f->major, f->minor);
		table_u64(t, f->id);
		table_str(t, f->path);
		table_str(t, dev);
		table_u64(t, f->inode);
	} else {
		table_none(t);
		table_none(t);
		table_none(t);
		table_none(t);
	}
	table_u64(t, pcache_used(s));
	table_u64(t, s->distinct);
	table_u64(t, pcache_used_by(s, 0));
	table_u64(t, pcache_used_by(s, 1));
	table_u64(t, pcache_pages(s, PGFT_HIT));
	table_u64(t, pcache_pages(s, PGFT_MISS));
	table_u64(t, pcache_pages(s, PGFT_HOLE));
	table_u64(t, pcache_pages(s, PGFT_DIRECT));
	table_u64(t, pcache_pages(s, PGFT_READAHEAD));
	if (pcache_pages(s, PGFT_HIT) + pcache_pages(s, PGFT_MISS))
		table_num(t, pcache_hit_ratio(s));
	else
		table_none(t);
	table_u64(t, s->runs);
	table_u64(t, s->seq);
	table_u64(t, s->random);
}

/* Each process's totals, in the order its first file came. */
static int processes(const struct pcache *c, struct pcache_stats **out,
		     int **pids, size_t *n)
{
	*out = calloc(c->nfiles ? c->nfiles : 1, sizeof(**out));
	*pids = calloc(c->nfiles ? c->nfiles : 1, sizeof(**pids));
	*n = 0;
	if (!*out || !*pids)
		return -1;
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct pcache_file *f = &c->files[i];
		struct pcache_stats *s;
		size_t k;

		for (k = 0; k < *n && (*pids)[k] != f->pid; k++)
			;
		if (k == *n)
			(*pids)[(*n)++] = f->pid;
		s = &(*out)[k];
		for (int h = 0; h < PGFT_NCACHE; h++)
			for (int w = 0; w < 2; w++)
				s->pages[h][w] += f->st.pages[h][w];
		s->runs += f->st.runs;
		s->seq += f->st.seq;
		s->random += f->st.random;
		s->distinct += f->st.distinct;
		s->readahead_runs += f->st.readahead_runs;
	}
	return 0;
}

static void text(const struct pass *ps, const struct files_state *F,
		 const struct pcache_file **v)
{
	const struct pcache_stats *s = &F->c.total;
	size_t n = F->c.nfiles;
	bool tree = ps->replay.whole;

	printf("# %zu file%s: %llu pages used (%llu distinct) in %llu runs (%llu "
	       "sequential, %llu random); %llu read, %llu written\n", n,
	       n == 1 ? "" : "s", (unsigned long long)pcache_used(s),
	       (unsigned long long)s->distinct, (unsigned long long)s->runs,
	       (unsigned long long)s->seq, (unsigned long long)s->random,
	       (unsigned long long)pcache_used_by(s, 0), (unsigned long long)pcache_used_by(s, 1));
	printf("# %llu hit, %llu miss (hit ratio %.1f%%), %llu hole, %llu direct; "
	       "%llu pages of readahead unused by the calls that brought them in\n",
	       (unsigned long long)pcache_pages(s, PGFT_HIT),
	       (unsigned long long)pcache_pages(s, PGFT_MISS), 100 * pcache_hit_ratio(s),
	       (unsigned long long)pcache_pages(s, PGFT_HOLE),
	       (unsigned long long)pcache_pages(s, PGFT_DIRECT),
	       (unsigned long long)pcache_pages(s, PGFT_READAHEAD));
	if (!n)
		return;
	printf("%s%10s %9s %9s %9s %9s %9s %9s %6s %7s %7s  %s\n",
	       tree ? "    pid " : "", "used", "distinct", "read", "write", "hit",
	       "miss", "readahead", "hit%", "seq", "random", "path");
	for (size_t i = 0; i < n && (!F->top || (long)i < F->top); i++) {
		const struct pcache_file *f = v[i];
		const struct pcache_stats *t = &f->st;
		char ratio[16] = "-";

		if (pcache_pages(t, PGFT_HIT) + pcache_pages(t, PGFT_MISS))
			snprintf(ratio, sizeof(ratio), "%.1f", 100 * pcache_hit_ratio(t));
		if (tree)
			printf("%7d ", f->pid);
		printf("%10llu %9llu %9llu %9llu %9llu %9llu %9llu %6s %7llu %7llu  %s\n",
		       (unsigned long long)pcache_used(t),
		       (unsigned long long)t->distinct,
		       (unsigned long long)pcache_used_by(t, 0), (unsigned long long)pcache_used_by(t, 1),
		       (unsigned long long)pcache_pages(t, PGFT_HIT),
		       (unsigned long long)pcache_pages(t, PGFT_MISS),
		       (unsigned long long)pcache_pages(t, PGFT_READAHEAD), ratio,
		       (unsigned long long)t->seq, (unsigned long long)t->random,
		       *f->path ? f->path : "(no path)");
	}
	if (F->top && n > (size_t)F->top)
		printf("# ... %zu more file%s (--top 0: all)\n", n - F->top,
		       n - F->top == 1 ? "" : "s");
}

static int files_end(struct pass *ps, void *st, int status)
{
	struct files_state *F = st;
	const struct pcache_file **v = NULL;
	struct pcache_stats *pstats = NULL;
	int *pids = NULL;
	size_t np = 0;
	struct table t;

	if (ps->pid && !ps->replay.pid_seen)
		goto out;
	v = calloc(F->c.nfiles ? F->c.nfiles : 1, sizeof(*v));
	if (!v || processes(&F->c, &pstats, &pids, &np)) {
		status = pass_status(status, pass_oom(ps));
		goto out;
	}
	for (size_t i = 0; i < F->c.nfiles; i++)
		v[i] = &F->c.files[i];
	qsort(v, F->c.nfiles, sizeof(*v), by_used);
	if (ps->format == TABLE_TEXT) {
		if (!F->seen)
			printf("# no file I/O in the trace: it was not traced with "
			       "\"files\" (tracepgfault -c), or the program read and "
			       "wrote no file through the page cache\n");
		text(ps, F, v);
		if (ps->replay.whole && np) {
			printf("\n# per process\n%7s %10s %9s %9s %9s %6s\n", "pid",
			       "used", "hit", "miss", "readahead", "hit%");
			for (size_t i = 0; i < np; i++)
				printf("%7d %10llu %9llu %9llu %9llu %6.1f\n", pids[i],
				       (unsigned long long)pcache_used(&pstats[i]),
				       (unsigned long long)pcache_pages(&pstats[i], PGFT_HIT),
				       (unsigned long long)pcache_pages(&pstats[i], PGFT_MISS),
				       (unsigned long long)pcache_pages(&pstats[i], PGFT_READAHEAD),
				       100 * pcache_hit_ratio(&pstats[i]));
		}
		goto out;
	}
	table_begin(&t, stdout, ps->format, cols, sizeof(cols) / sizeof(cols[0]));
	if (ps->table == 1)
		for (size_t i = 0; i < np; i++)
			row(&t, pids[i], NULL, &pstats[i]);
	else
		for (size_t i = 0; i < F->c.nfiles; i++)
			row(&t, v[i]->pid, v[i], &v[i]->st);
	table_end(&t);
out:
	free(v);
	free(pstats);
	free(pids);
	pcache_free(&F->c);
	return status;
}

static const struct option files_opts[] = {
	{ "top", required_argument, NULL, 'T' },
	{ NULL, 0, NULL, 0 },
};

static int files_begin(struct pass *ps, void *st)
{
	(void)ps;
	pcache_init(&((struct files_state *)st)->c);
	return 0;
}

const struct report files_report = {
	.name = "files", .usage = usage, .takes = TAKES_PID | TAKES_FORMAT,
	.tables = tables, .size = sizeof(struct files_state),
	.init = files_init, .longopts = files_opts, .option = files_option,
	.begin = files_begin, .rec = files_rec, .end = files_end,
};

int cmd_files(int argc, char **argv)
{
	return report_main(&files_report, argc, argv);
}
