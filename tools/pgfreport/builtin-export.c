// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport export - a trace in the formats other tools read: CSV and
 * JSON for scripts, the reference string for page-replacement simulators,
 * libCacheSim's oracleGeneral binary trace and its CSV.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtin.h"
#include "export.h"
#include "output.h"
#include "pass.h"
#include "../lib/lcs.h"
#include "../lib/obuf.h"
#include "../lib/pcache.h"

static const char usage[] =
"Usage: pgfreport export FORMAT [OPTION...] [TRACE]\n"
"\n"
"Write the trace as FORMAT, to standard output or -o FILE:\n"
"\n"
"  csv           every fault, after the header\n"
"                time_ns,tid,address,access,mode,result,ip,region,\n"
"                pfn,node,page_size,level (and pid, for a tree file\n"
"                read whole); numbers in decimal, as in json; the frame\n"
"                (pfn, node, page_size the bytes of its folio, level\n"
"                pte, pmd or pud) where the trace has it (read with\n"
"                CAP_SYS_ADMIN), else empty, as node is for a frame\n"
"                without one; a region with a comma, a quote or a line\n"
"                break in its name quoted as RFC 4180 says. Then the\n"
"                columns change,pages,cause,new_pfn,new_node, empty for a\n"
"                fault: a row per change the kernel made to the frames\n"
"                (move, evict, split, collapse, mapped; version 9) has\n"
"                its time, tid, address and region, the frame before in\n"
"                pfn and node (pfn where the trace has it), page_size and\n"
"                level after, and these\n"
"  json          every record as a JSON object, one per line (with its\n"
"                \"pid\" in a tree file)\n"
"  refs          the reference string: one page address per line (hex), as\n"
"                page-replacement simulators take it, after a line\n"
"                \"# mode M\" per start of tracing: M is \"first\" (first\n"
"                touches, and re-references after a \"rearm\") or\n"
"                \"interval=MS\" (each interval's first references) or\n"
"                \"window=PAGES\" (the references that miss in a FIFO\n"
"                window of PAGES pages) or \"sample=MS\" (the faults)\n"
"  lcs           the reference string (every counted fault) as\n"
"                libCacheSim's oracleGeneral binary trace: 24-byte records\n"
"                u32 time (s since the first record), u64 obj_id (page\n"
"                number), u32 obj_size (page size), i64 next_access_vtime\n"
"                (1-based index of the page's next reference, -1 if none),\n"
"                little-endian; the next uses go through two temporary\n"
"                files in $TMPDIR, 20 bytes per reference. Not to a\n"
"                terminal\n"
"  lcs-csv       the same as CSV, with the header\n"
"                time,obj_id,obj_size,next_access_vtime\n"
"  perfetto      a Perfetto trace (protobuf), for ui.perfetto.dev and\n"
"                trace_processor: a track per thread whose faults are\n"
"                instants (named by their result; address, access, mode,\n"
"                IP and region as arguments), a track per region under its\n"
"                process with a slice per span of its life (map to unmap,\n"
"                change, exec), a track per file of a trace of file I/O\n"
"                (tracepgfault -c) with an instant per run of pages a call\n"
"                used (named hit, miss, readahead, hole or direct; index,\n"
"                pages, access, tid as arguments), counters of the faults\n"
"                per interval, the working set and the lost records. The UI\n"
"                holds a trace in the browser's memory: above --max-size,\n"
"                nothing is written (narrow it with the filters). Not to a\n"
"                terminal\n"
"\n"
"In a tree file read whole, a page is a page of one process: process i\n"
"(in pgfreport tree's order, from 0) has i added in address bits 56 and\n"
"up in refs, lcs and lcs-csv. The filters choose the faults; json keeps\n"
"every other record.\n"
"\n"
"Options:\n"
"  -o, --output FILE  write to FILE (it is replaced) instead of standard\n"
"                output\n"
"  --rw          refs: add R or W to each line\n"
"  --files       the file references of a trace of file I/O (from\n"
"                tracepgfault -c) instead of the faults. csv: a row per run\n"
"                of pages of a call, after the header\n"
"                time,tid,path,index,pages,access,cache,file,dev,inode\n"
"                (and pid, for a tree file read whole): time in ns, index\n"
"                the first page's (in pages), access r or w, cache hit,\n"
"                miss, readahead, hole or direct, file the file's id in the\n"
"                trace. refs, lcs, lcs-csv: each page the page cache served\n"
"                (hit or miss), as F << 36 | INDEX, F the file numbered by\n"
"                device and inode as first seen: the reference string a\n"
"                page cache simulator takes\n"
"  --max-size MB  perfetto: the largest trace to write (default 512)\n"
"  --interval MS  perfetto: the counters' interval (default 10)\n"
"  --window N    perfetto: the working set's window, in intervals\n"
"                (default 10)\n";

enum format { CSV, JSON, REFS, LCS, LCS_CSV, PERFETTO };

/* The command's state: the pass's st */
struct ex_state {
	enum format format;
	bool rw;			/* --rw */
	bool files;			/* --files */
	struct pcache pc;		/* --files: the files named so far */
	struct pgid_map fileno;		/* --files: (device, inode) -> number */
	FILE *out;
	struct obuf *ob;		/* csv: the rows, on their way to out */
	/* csv: the names of the fields' values, each written in one copy */
	struct obuf_word results[PGFT_OOM + 1], levels[PGFT_NLEVEL];
	struct obuf_word caches[PGFT_NCACHE], changes[PGFT_NCHANGE];
	/* csv: the digits of the last fault's time above its last 8 */
	unsigned long long time_hi;	/* 0: none yet */
	char time_digits[8];
	int time_len;
	struct lcs *lcs;
	struct perfetto *pf;
	/* perfetto -o FILE: written whole or not at all (output.h). */
	struct staged staged;
};

/* The process a record is of: its own in a tree file, else the trace's. */
static int pid_of(const struct pass *ps, const struct pgft_rec *r)
{
	return ps->trace.rd.tree && r->pid ? r->pid : ps->trace.rd.pid;
}

/*
 * A refs line, "%llx\n" or "%llx %c\n", without printf: the line is the
 * whole of the work per fault, and printf's parsing of its format most
 * of it.
 */
static void put_ref(FILE *out, unsigned long long page, char mark)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = '\n';
	if (mark) {
		*--p = mark;
		*--p = ' ';
	}
	do
		*--p = "0123456789abcdef"[page & 15];
	while (page >>= 4);
	fwrite_unlocked(p, 1, buf + sizeof(buf) - p, out);
}

/* --files: a row of a cache record, its file named before it */
static int file_row(struct pass *ps, struct ex_state *E, const struct pgft_rec *r)
{
	const struct pcache_file *f = pcache_find(&E->pc, pid_of(ps, r), r->id);
	struct obuf *ob = E->ob;
	char *p;

	if (!f)
		return pass_bad_trace(ps, "%s:%llu: a cache record of file %llu, "
				      "which no file record named before it",
				      ps->trace.fname, ps->trace.rd.line, r->id);
	p = obuf_room(ob, 2 * OBUF_NUM);
	p = obuf_put_u64(p, r->time);
	*p++ = ',';
	p = obuf_put_int(p, r->tid);
	*p++ = ',';
	obuf_done(ob, p);
	obuf_csv(ob, f->path);
	p = obuf_room(ob, 4 * OBUF_NUM + 32);
	*p++ = ',';
	p = obuf_put_u64(p, r->start);
	*p++ = ',';
	p = obuf_put_u64(p, r->n[0]);
	*p++ = ',';
	*p++ = r->access;
	*p++ = ',';
	p = obuf_put_word(p, &E->caches[r->cache]);
	*p++ = ',';
	p = obuf_put_u64(p, r->id);
	*p++ = ',';
	obuf_done(ob, p);
	obuf_hex(ob, f->major, 2);
	obuf_char(ob, ':');
	obuf_hex(ob, f->minor, 2);
	p = obuf_room(ob, 2 * OBUF_NUM + 4);
	*p++ = ',';
	p = obuf_put_u64(p, f->inode);
	if (ps->replay.whole) {
		*p++ = ',';
		p = obuf_put_int(p, r->pid);
	}
	*p++ = '\n';
	obuf_done(ob, p);
	return 0;
}

/*
 * --files, refs and lcs: each page of a run the page cache served (hit or
 * miss), as the page (file << 36 | index): the file numbered by device and
 * inode in the order first seen, so that the processes of a tree share it
 */
static int file_refs(struct pass *ps, struct ex_state *E, const struct pgft_rec *r)
{
	const struct pcache_file *f = pcache_find(&E->pc, pid_of(ps, r), r->id);
	int64_t n;

	if (!f)
		return pass_bad_trace(ps, "%s:%llu: a cache record of file %llu, "
				      "which no file record named before it",
				      ps->trace.fname, ps->trace.rd.line, r->id);
	if (r->cache != PGFT_HIT && r->cache != PGFT_MISS)
		return 0;
	n = pgid_get(&E->fileno, (uint64_t)f->major << 52 ^ (uint64_t)f->minor << 40 ^
		     f->inode);
	if (n < 0)
		return pass_oom(ps);
	if (r->start + r->n[0] > 1ULL << 36)
		return pass_bad_trace(ps, "%s:%llu: page %llu: files of more than 2^36 "
				      "pages are beyond --files", ps->trace.fname,
				      ps->trace.rd.line, r->start + r->n[0]);
	for (unsigned long long p = r->start; p < r->start + r->n[0]; p++) {
		uint64_t page = (uint64_t)n << 36 | p;

		if (E->format == REFS)
			put_ref(E->out, page, E->rw ? (r->access == 'w' ? 'W' : 'R') : 0);
		else if (lcs_ref(E->lcs, page, (r->time - ps->replay.t0) / 1000000000ULL))
			return pass_error(ps, "%s: %s", E->format == LCS ? "lcs" : "lcs-csv",
					  strerror(errno));
	}
	return 0;
}

/* ",PFN,NODE,PAGE_SIZE,LEVEL" at @p, each empty where there is none: past it */
static char *csv_frame(char *p, unsigned long long pfn, int node,
		       unsigned long long page_size, const struct obuf_word *level)
{
	*p++ = ',';
	if (pfn != PGFT_NO_PFN)
		p = obuf_put_u64(p, pfn);
	*p++ = ',';
	if (node != PGFT_NO_NODE)
		p = obuf_put_int(p, node);
	*p++ = ',';
	if (page_size) {
		p = obuf_put_u64(p, page_size);
		*p++ = ',';
		p = obuf_put_word(p, level);
	} else {
		*p++ = ',';
	}
	return p;
}

/* The room csv_frame() takes at most. */
#define CSV_FRAME	(3 * OBUF_NUM + 32)

/* A region's name as the CSV has it: "[anon]" for none, "" for no region. */
static const char *csv_region(const struct pgft_region *g)
{
	return g ? (*g->name ? g->name : "[anon]") : "";
}

/*
 * A row of a change record (format version 9): its address and region,
 * the frame before (pfn, node) with the page size and level after, what
 * changed, the pages, the cause and the frame after
 */
static void change_row(struct pass *ps, struct ex_state *E,
		       const struct pgft_rec *r)
{
	const struct pgft_region *g = pass_region(ps, r->addr);
	struct obuf *ob = E->ob;
	char *p = obuf_room(ob, 3 * OBUF_NUM + 8);

	p = obuf_put_u64(p, r->time);
	*p++ = ',';
	p = obuf_put_int(p, r->tid);
	*p++ = ',';
	p = obuf_put_u64(p, r->addr);
	p = obuf_put_lit(p, ",,,,,");
	obuf_done(ob, p);
	obuf_csv(ob, csv_region(g));
	p = obuf_room(ob, CSV_FRAME + OBUF_NUM + 32);
	p = csv_frame(p, r->has_frame ? r->pfn : PGFT_NO_PFN, r->node,
		      r->has_frame ? (unsigned long long)ps->trace.page_size << r->order : 0,
		      &E->levels[r->level]);
	*p++ = ',';
	p = obuf_put_word(p, &E->changes[r->change]);
	*p++ = ',';
	p = obuf_put_u64(p, r->n[0]);
	*p++ = ',';
	obuf_done(ob, p);
	obuf_csv(ob, r->text);
	p = obuf_room(ob, 3 * OBUF_NUM + 8);
	*p++ = ',';
	if (r->has_frame && r->new_pfn != PGFT_NO_PFN)
		p = obuf_put_u64(p, r->new_pfn);
	*p++ = ',';
	if (r->new_node != PGFT_NO_NODE)
		p = obuf_put_int(p, r->new_node);
	if (ps->replay.whole) {
		*p++ = ',';
		p = obuf_put_int(p, r->pid);
	}
	*p++ = '\n';
	obuf_done(ob, p);
}

/*
 * A fault's time at @p, as obuf_put_u64() writes it: past it. Times rise
 * slowly: the digits above the last 8 are mostly the last fault's, kept.
 */
static char *put_time(struct ex_state *E, char *p, unsigned long long t)
{
	unsigned long long hi = t / 100000000;

	if (!hi || hi >= 100000000)
		return obuf_put_u64(p, t);
	if (hi != E->time_hi) {
		E->time_hi = hi;
		E->time_len = obuf_put_small(E->time_digits, hi) - E->time_digits;
	}
	memcpy(p, E->time_digits, 8);
	return obuf_put_8digits(p + E->time_len, t % 100000000);
}

/* The row of a fault */
static void fault_row(struct pass *ps, struct ex_state *E, const struct pgft_rec *r,
		      const struct pgft_region *g)
{
	struct obuf *ob = E->ob;
	char *p = obuf_room(ob, 4 * OBUF_NUM + 48);

	p = put_time(E, p, r->time);
	*p++ = ',';
	p = obuf_put_int(p, r->tid);
	*p++ = ',';
	p = obuf_put_u64(p, r->addr);
	*p++ = ',';
	*p++ = r->access;
	if (r->kernel)
		p = obuf_put_lit(p, ",kernel,");
	else
		p = obuf_put_lit(p, ",user,");
	p = obuf_put_word(p, &E->results[r->result]);
	*p++ = ',';
	p = obuf_put_u64(p, r->ip);
	*p++ = ',';
	obuf_done(ob, p);
	obuf_csv(ob, csv_region(g));
	p = obuf_room(ob, CSV_FRAME + OBUF_NUM + 16);
	/* the frame (format version 8): empty if the line has none */
	if (!r->has_frame)
		p = obuf_put_lit(p, ",,,,");
	else
		p = csv_frame(p, r->pfn, r->node,
			      (unsigned long long)ps->trace.page_size << r->order,
			      &E->levels[r->level]);
	/* the columns of a change record */
	p = obuf_put_lit(p, ",,,,,");
	if (ps->replay.whole) {
		*p++ = ',';
		p = obuf_put_int(p, r->pid);
	}
	*p++ = '\n';
	obuf_done(ob, p);
}

/*
 * csv: the rows' buffer and the words they take: 0, or -1 out of memory
 * (errno ENOMEM) or with a name longer than a word (EINVAL)
 */
static int csv_begin(struct ex_state *E)
{
	int bad = 0;

	for (int i = 0; i <= PGFT_OOM; i++)
		bad |= obuf_word_set(&E->results[i], export_result_name(i));
	for (int i = 0; i < PGFT_NLEVEL; i++)
		bad |= obuf_word_set(&E->levels[i], pgft_level_names[i]);
	for (int i = 0; i < PGFT_NCACHE; i++)
		bad |= obuf_word_set(&E->caches[i], pgft_cache_names[i]);
	for (int i = 0; i < PGFT_NCHANGE; i++)
		bad |= obuf_word_set(&E->changes[i], pgft_change_names[i]);
	if (bad) {
		errno = EINVAL;
		return -1;
	}
	E->ob = obuf_new(E->out);
	return E->ob ? 0 : -1;
}

static int ex_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	struct ex_state *E = st;

	if (E->format == CSV && !E->files && r->type == PGFT_PAGES)
		change_row(ps, E, r);

	if (E->format == JSON && r->type != PGFT_FAULT)
		json_rec(E->out, r, ps->trace.rd.tree);
	if (E->files && r->type == PGFT_FILE && pcache_file(&E->pc, pid_of(ps, r), r))
		return errno == ENOMEM ? pass_oom(ps) :
		       pass_bad_trace(ps, "%s:%llu: file id %llu out of range",
				      ps->trace.fname, ps->trace.rd.line, r->id);
	if (E->files && r->type == PGFT_CACHE)
		return E->format == CSV ? file_row(ps, E, r) : file_refs(ps, E, r);
	if (E->format == REFS && r->type == PGFT_START)
		fprintf(E->out, "# mode %s\n", pass_mode(r));
	/* a write that failed: errno says why, once the pass is over */
	if (E->format == PERFETTO && r->type != PGFT_FAULT &&
	    perfetto_rec(E->pf, pid_of(ps, r), r))
		return PGF_EXIT_FAIL;
	return 0;
}

static int ex_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		    const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct ex_state *E = st;

	(void)sp;
	switch (E->format) {
	case JSON:
		json_rec(E->out, r, ps->trace.rd.tree);
		break;
	case CSV:
		if (!E->files)
			fault_row(ps, E, r, g);
		break;
	case REFS:
		if (!pgft_counted(r->result) || E->files)
			break;
		put_ref(E->out, addr & ~(ps->trace.page_size - 1ULL),
			E->rw ? (r->access == 'w' ? 'W' : 'R') : 0);
		break;
	case PERFETTO:
		if (perfetto_fault(E->pf, pid_of(ps, r), r, g, ps->trace.page_size))
			return PGF_EXIT_FAIL;	/* as in ex_rec() */
		break;
	case LCS:
	case LCS_CSV:
		if (pgft_counted(r->result) && !E->files &&
		    lcs_ref(E->lcs, pass_page(ps, addr),
			    (r->time - ps->replay.t0) / 1000000000ULL))
			return pass_error(ps, "%s: %s", E->format == LCS ? "lcs" : "lcs-csv",
					  strerror(errno));
		break;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "rw", no_argument, NULL, 'R' },
		{ "files", no_argument, NULL, 'F' },
		{ "max-size", required_argument, NULL, 'M' },
		{ "interval", required_argument, NULL, 'i' },
		{ "window", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const names[] = { "csv", "json", "refs", "lcs",
					      "lcs-csv", "perfetto" };
	long max_mb = 512, interval_ms = 10, window = 10;
	const char *pf_only = NULL;
	struct pass ps = { .cmd = "export", .usage = usage,
			   .takes = TAKES_PID | TAKES_FILTERS };
	const char *path = NULL;
	struct ex_state state = { 0 }, *E = &state;
	int opt, status, werr, nf = -1;
	bool io;

	/* getopt moves options ahead of FORMAT and TRACE, in their order */
	while ((opt = pass_getopt(&ps, argc, argv, "o:", longopts)) != -1) {
		switch (opt) {
		case PASS_QUIT:
			return ps.status;
		case 'o':
			path = optarg;
			break;
		case 'R':
			E->rw = true;
			break;
		case 'F':
			E->files = true;
			break;
		case 'M':
			if (pass_number(&ps, "--max-size", optarg, false, &max_mb))
				return PGF_EXIT_USAGE;
			pf_only = "--max-size";
			break;
		case 'i':
			if (pass_number(&ps, "--interval", optarg, false, &interval_ms))
				return PGF_EXIT_USAGE;
			pf_only = "--interval";
			break;
		case 'W':
			if (pass_number(&ps, "--window", optarg, false, &window))
				return PGF_EXIT_USAGE;
			pf_only = "--window";
			break;
		}
	}
	if (optind == argc)
		return pass_usage(&ps, "which format? csv, json, refs, lcs, lcs-csv or "
				  "perfetto (pgfreport export --help)");
	for (int i = 0; i < 6; i++)
		if (!strcmp(argv[optind], names[i]))
			nf = i;
	if (nf < 0)
		return pass_usage(&ps, "'%s' is not a format: csv, json, refs, lcs, "
				  "lcs-csv or perfetto", argv[optind]);
	E->format = nf;
	if (E->rw && E->format != REFS)
		return pass_usage(&ps, "--rw marks reads and writes in refs: it "
				  "does not apply to %s", names[E->format]);
	if (E->files && (E->format == JSON || E->format == PERFETTO))
		return pass_usage(&ps, "--files chooses the file references for csv, "
				  "refs, lcs and lcs-csv; %s carries them anyway",
				  names[E->format]);
	if (pf_only && E->format != PERFETTO)
		return pass_usage(&ps, "%s is perfetto's: it does not apply to %s",
				  pf_only, names[E->format]);
	if (!path && (E->format == LCS || E->format == PERFETTO) &&
	    isatty(STDOUT_FILENO))
		return pass_usage(&ps, "%s is binary: give -o FILE, or redirect "
				  "standard output", names[E->format]);
	status = pass_open(&ps, argc - optind - 1, argv + optind + 1);
	if (status)
		return status;
	if ((E->format == LCS || E->format == LCS_CSV) && !(E->lcs = lcs_new()))
		return pass_error(&ps, "a temporary file: %s", strerror(errno));
	if (E->format == PERFETTO && path)
		E->out = staged_open(&E->staged, path);
	else
		E->out = path ? fopen(path, E->format >= LCS ? "wb" : "w") : stdout;
	if (!E->out)
		return pass_error(&ps, "%s: %s", path, strerror(errno));
	if (E->format == CSV && csv_begin(E))
		return errno == EINVAL ? pass_error(&ps, "csv: a name longer than "
						    "its writer takes") : pass_oom(&ps);
	if (E->format == PERFETTO &&
	    !(E->pf = perfetto_new(E->out, path, (uint64_t)max_mb << 20, interval_ms,
				window)))
		return pass_error(&ps, "out of memory");
	if (E->format == CSV && E->files)
		fprintf(E->out, "time,tid,path,index,pages,access,cache,file,dev,inode%s\n",
			ps.replay.whole ? ",pid" : "");
	else if (E->format == CSV)
		fprintf(E->out, "time_ns,tid,address,access,mode,result,ip,region,"
			"pfn,node,page_size,level,change,pages,cause,new_pfn,"
			"new_node%s\n", ps.replay.whole ? ",pid" : "");
	ps.rec = ex_rec;
	/* ex_rec() has nothing to do with a fault: ex_fault() writes it */
	ps.rec_no_faults = true;
	ps.st = E;
	ps.streams = true;
	ps.fault = ex_fault;
	status = pass_run(&ps);
	/* the rows held, before anything else is written */
	werr = obuf_free(E->ob);
	io = E->pf && status == PGF_EXIT_FAIL;
	if (E->pf && (!status || ps.replay.cut) && perfetto_end(E->pf))
		io = true;
	if (E->pf && perfetto_too_big(E->pf)) {
		status = pass_error(&ps, "the Perfetto trace would pass --max-size "
				    "%ld MB, which the UI holds in the browser's "
				    "memory: %s. Narrow it (--time, --pid, --tid, "
				    "--addr, --region) or raise --max-size", max_mb,
				    E->staged.tmp[0] ? "nothing written" :
				    "the output is cut short there");
	} else if (io) {
		status = pass_error(&ps, "%s: %s", path ? path : "standard output",
				    strerror(errno));
	}
	perfetto_free(E->pf);
	pcache_free(&E->pc);
	pgid_free(&E->fileno);
	if (E->lcs) {
		if (lcs_write(E->lcs, E->format == LCS ? E->out : NULL,
			      E->format == LCS_CSV ? E->out : NULL, ps.trace.page_size))
			status = pass_error(&ps, "%s: %s", path ? path :
					    "standard output", strerror(errno));
		else
			fprintf(stderr, "pgfreport export: %llu references of %s "
				"written for libCacheSim\n",
				(unsigned long long)lcs_count(E->lcs), ps.trace.fname);
		lcs_free(E->lcs);
	}
	if ((E->out == stdout ? fflush(E->out) : fclose(E->out)) || ferror(stdout) ||
	    werr)
		status = pass_error(&ps, "%s: %s", path ? path : "standard output",
				    strerror(werr ? werr : errno));
	/* a trace with no end is written all the same, as it is */
	if (staged_end(&E->staged, status && !ps.replay.cut))
		status = pass_error(&ps, "%s: %s", path, strerror(errno));
	pass_close(&ps);
	return status;
}
