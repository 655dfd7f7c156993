// SPDX-License-Identifier: GPL-2.0
/*
 * pass - the common options, the trace, and the pass over its records
 * that every pgfreport command shares (pass.h).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "pass.h"
#include "../lib/pgfbin.h"
#include "../lib/zfile.h"

enum {
	OPT_PID = 0x1000, OPT_TID, OPT_TIME, OPT_ADDR, OPT_REGION, OPT_FORMAT,
	OPT_TABLE, OPT_FILES, OPT_PHYS,
};

static const struct option common[] = {
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "addr", required_argument, NULL, OPT_ADDR },
	{ "region", required_argument, NULL, OPT_REGION },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "files", no_argument, NULL, OPT_FILES },
	{ "phys", no_argument, NULL, OPT_PHYS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char help_format[] =
"  --format F    text (the default), csv or json: the report's rows for\n"
"                programs (CSV: one header line, RFC 4180 quoting; JSON: an\n"
"                array of objects), numbers as numbers, no comment lines\n";
static const char help_files[] =
"  --files       file I/O too (a trace of tracepgfault -c): every page of a\n"
"                read or write the page cache served (hit or miss) is a\n"
"                reference, and so is a fault in a mapped file (but a write\n"
"                to a private mapping): a page of a file is one page\n"
"                whether read() or a mapping touched it. mrc and html\n"
"                give the kernel's own hit ratio over those references\n"
"                beside the curves; heatmap and html draw a band per file\n";
static const char help_phys[] =
"  --phys        the frames the faults mapped are the pages (a trace read\n"
"                with CAP_SYS_ADMIN, format version 8: pgfreport frames):\n"
"                a frame is one page whichever process or address it was\n"
"                mapped at; faults without a frame are left out, counted\n";
static const char help_pid[] =
"  --pid PID     of a tree file (tracepgfault -f), process PID alone\n";
static const char help_filters[] =
"  --tid TID     the faults of thread TID alone\n"
"  --time FROM,TO  the faults from FROM to TO seconds after the trace's\n"
"                start (FROM <= t < TO; either may be left out: 2, or\n"
"                ,0.5); @S is S seconds of the trace's own clock (a\n"
"                record's time / 1e9), as in @1234.5,@1240\n"
"  --addr START-END  the faults at addresses START <= a < END (hex, 0x\n"
"                optional); or START+SIZE, SIZE in bytes with k, m or g\n"
"  --region NAME|ID  the faults in a region: its id (its map records'), its\n"
"                name, the last part of its path (libc.so.6), or [anon]\n"
"                for one without a name; again for more regions (a fault\n"
"                in any of them is taken)\n";

static int say(const struct pass *ps, int status, const char *fmt, va_list ap)
{
	fprintf(stderr, "pgfreport %s: ", ps->cmd);	/* before pass_getopt() too */
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return status;
}

int pass_error(const struct pass *ps, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = say(ps, PGF_EXIT_FAIL, fmt, ap);
	va_end(ap);
	return ret;
}

int pass_usage(const struct pass *ps, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = say(ps, PGF_EXIT_USAGE, fmt, ap);
	va_end(ap);
	return ret;
}

int pass_bad_trace(const struct pass *ps, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = say(ps, PGF_EXIT_TRACE, fmt, ap);
	va_end(ap);
	return ret;
}

int pass_oom(const struct pass *ps)
{
	return pass_error(ps, "out of memory");
}

/* The reader @rd failed: the trace's fault, or the system's (a read, memory). */
static int reader_error(const struct pass *ps, const struct pgft_reader *rd)
{
	if (rd->sys_errno)
		return pass_error(ps, "%s", rd->error);
	return pass_bad_trace(ps, "%s", rd->error);
}

int pass_bad_arg(const struct pass *ps, const char *opt, const char *arg,
		 const char *what)
{
	return pass_usage(ps, "%s: '%s' is not %s", opt, arg, what);
}

int pass_number(const struct pass *ps, const char *opt, const char *arg,
		bool zero, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *v < (zero ? 0 : 1))
		return pass_bad_arg(ps, opt, arg, zero ? "a non-negative number" :
				    "a positive number");
	return 0;
}

static void help(const struct pass *ps)
{
	fputs(ps->usage, stdout);
	printf("\nCommon options:\n");
	if (ps->takes & TAKES_PID)
		fputs(help_pid, stdout);
	if (ps->takes & TAKES_FILTERS)
		fputs(help_filters, stdout);
	if (ps->takes & TAKES_FILES)
		fputs(help_files, stdout);
	if (ps->takes & TAKES_PHYS)
		fputs(help_phys, stdout);
	if (ps->takes & TAKES_FORMAT)
		fputs(help_format, stdout);
	if ((ps->takes & TAKES_FORMAT) && ps->tables) {
		printf("  --table T     with --format, the table to print:\n"
		       "                %s (the default)", ps->tables[0]);
		for (size_t i = 1; ps->tables[i]; i++)
			printf("%s%s", ps->tables[i + 1] ? ", " : " or ", ps->tables[i]);
		printf("\n");
	}
	printf("  -h, --help    this help\n");
	printf("\nWithout TRACE, or with '-', the trace is read from standard "
	       "input.\n");
}

/* The common option @code: 0, or 1 after a message. */
static int common_opt(struct pass *ps, int code, const char *name,
		      const char *arg)
{
	char err[200];
	int bad = 0;
	long v;

	if (code == OPT_FORMAT) {
		if (!(ps->takes & TAKES_FORMAT))
			return pass_usage(ps, "%s does not apply: its output is not "
					  "a table (or several reports share the "
					  "pass)", name);
		if (!strcmp(arg, "text"))
			ps->format = TABLE_TEXT;
		else if (!strcmp(arg, "csv"))
			ps->format = TABLE_CSV;
		else if (!strcmp(arg, "json"))
			ps->format = TABLE_JSON;
		else
			return pass_bad_arg(ps, name, arg, "text, csv or json");
		return 0;
	}
	if (code == OPT_FILES) {
		if (!(ps->takes & TAKES_FILES))
			return pass_usage(ps, "%s does not apply (pgfreport --help "
					  "lists the commands that take it)", name);
		ps->files = true;
		return ps->phys ? pass_usage(ps, "--files and --phys: file pages "
					     "have no frames") : 0;
	}
	if (code == OPT_PHYS) {
		if (!(ps->takes & TAKES_PHYS))
			return pass_usage(ps, "%s does not apply (pgfreport --help "
					  "lists the commands that take it)", name);
		ps->phys = true;
		return ps->files ? pass_usage(ps, "--files and --phys: file pages "
					      "have no frames") : 0;
	}
	if (code == OPT_TABLE) {
		if (!(ps->takes & TAKES_FORMAT) || !ps->tables)
			return pass_usage(ps, "%s does not apply: it has one table "
					  "(or none)", name);
		for (size_t i = 0; ps->tables[i]; i++)
			if (!strcmp(arg, ps->tables[i])) {
				ps->table = i;
				ps->table_set = true;
				return 0;
			}
		return pass_usage(ps, "%s: '%s' is not one of its tables "
				  "(pgfreport %s --help)", name, arg, ps->cmd);
	}
	if ((code == OPT_PID && !(ps->takes & TAKES_PID)) ||
	    (code != OPT_PID && !(ps->takes & TAKES_FILTERS)))
		return pass_usage(ps, "%s does not apply: %s", name,
				  code == OPT_PID ? "it reads every process of a tree" :
				  "it reports on the whole trace, not on faults "
				  "(pgfreport --help lists the commands that take it)");
	switch (code) {
	case OPT_PID: {
		char *end;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v <= 0 || v > 0x7fffffff)
			return pass_bad_arg(ps, name, arg, "a process id");
		ps->pid = v;
		return 0;
	}
	case OPT_TID:
		bad = pgft_filter_tid(&ps->filt, arg, err, sizeof(err));
		break;
	case OPT_TIME:
		bad = pgft_filter_time(&ps->filt, arg, err, sizeof(err));
		break;
	case OPT_ADDR:
		bad = pgft_filter_addr(&ps->filt, arg, err, sizeof(err));
		break;
	case OPT_REGION:
		bad = pgft_filter_region(&ps->filt, arg, err, sizeof(err));
		break;
	}
	return bad ? pass_usage(ps, "%s: %s", name, err) : 0;
}

int pass_getopt(struct pass *ps, int argc, char **argv, const char *shorts,
		const struct option *longs)
{
	struct option *all = ps->opts;
	char *sh = ps->shorts;
	size_t n = 0;
	int opt, idx = -1;

	if (!all[0].name) {
		static char prog[48];

		snprintf(prog, sizeof(prog), "pgfreport %s", ps->cmd);
		pgft_prog = prog;
		for (const struct option *o = longs; o && o->name; o++)
			all[n++] = *o;
		for (const struct option *o = common; o->name; o++)
			all[n++] = *o;
		/* ':' first: a missing argument is ':', not '?' */
		snprintf(sh, sizeof(ps->shorts), ":h%s", shorts);
		opterr = 0;
	}
	opt = getopt_long(argc, argv, sh, all, &idx);
	switch (opt) {
	case -1:
		return -1;
	case 'h':
		help(ps);
		ps->status = 0;
		return PASS_QUIT;
	case ':':
		ps->status = pass_usage(ps, "%s needs an argument (pgfreport %s "
					"--help)", argv[optind - 1], ps->cmd);
		return PASS_QUIT;
	case '?':
		if (optopt && !strncmp(argv[optind - 1], "--", 2))
			/* a long option that takes no argument, given one */
			ps->status = pass_usage(ps, "%.*s takes no argument (pgfreport "
						"%s --help)",
						(int)strcspn(argv[optind - 1], "="),
						argv[optind - 1], ps->cmd);
		else if (optopt)
			ps->status = pass_usage(ps, "unknown option '-%c' (pgfreport "
						"%s --help lists its options)",
						optopt, ps->cmd);
		else
			ps->status = pass_usage(ps, "unknown option '%s' (pgfreport "
						"%s --help lists its options)",
						argv[optind - 1], ps->cmd);
		return PASS_QUIT;
	}
	if (opt >= OPT_PID && opt <= OPT_PHYS) {
		char name[32];

		snprintf(name, sizeof(name), "--%s", all[idx].name);
		ps->status = common_opt(ps, opt, name, optarg);
		if (ps->status)
			return PASS_QUIT;
		return pass_getopt(ps, argc, argv, shorts, longs);
	}
	return opt;
}

/*
 * A tree file, and a command that reports on one process, with no --pid:
 * read the file once for its processes. One: it is the one; several:
 * say which they are.
 */
static int one_process(struct pass *ps)
{
	struct pgft_reader rd;
	struct pgft_rec r;
	struct stat st;
	FILE *f;
	int ret;

	if (ps->trace.raw_fd < 0 || fstat(ps->trace.raw_fd, &st) || !S_ISREG(st.st_mode))
		return pass_usage(ps, "%s is a tree: %s reports on one process: give "
				  "--pid (pgfreport tree lists them)", ps->trace.fname,
				  ps->cmd);
	f = zfile_read(fopen(ps->trace.fname, "r"));
	if (!f)
		return pass_error(ps, "%s: %s", ps->trace.fname, strerror(errno));
	ret = pgft_open(&rd, f, ps->trace.fname);
	if (!ret)
		while ((ret = pgft_next(&rd, &r)) > 0)
			;
	if (ret < 0) {
		ret = reader_error(ps, &rd);
	} else if (rd.npids == 1) {
		ps->pid = rd.pids[0];
		ps->replay.whole = false;
	} else {
		fprintf(stderr, "pgfreport %s: %s is a tree of %zu processes: %s "
			"reports on one process: give --pid, one of", ps->cmd,
			ps->trace.fname, rd.npids, ps->cmd);
		for (size_t i = 0; i < rd.npids && i < 20; i++)
			fprintf(stderr, " %d", rd.pids[i]);
		fprintf(stderr, "%s (pgfreport tree lists them)\n",
			rd.npids > 20 ? " ..." : "");
		ret = PGF_EXIT_USAGE;
	}
	pgft_close(&rd);
	fclose(f);
	return ret;
}

int pass_open(struct pass *ps, int argc, char **argv)
{
	if (ps->table_set && ps->format == TABLE_TEXT)
		return pass_usage(ps, "--table goes with --format csv|json (the "
				  "text shows every table)");
	if (argc > 1)
		return pass_usage(ps, "one trace at a time: '%s', then '%s'",
				  argv[0], argv[1]);
	if (argc && strcmp(argv[0], "-")) {
		FILE *raw = fopen(argv[0], "r");

		ps->trace.fname = argv[0];
		ps->trace.raw_fd = raw ? fileno(raw) : -1;
		ps->trace.f = zfile_read(raw);
		if (!ps->trace.f)
			return pass_error(ps, "%s: %s", ps->trace.fname, strerror(errno));
	} else {
		if (isatty(STDIN_FILENO))
			return pass_usage(ps, "no trace: name a trace file "
					  "(tracepgfault -o FILE COMMAND writes one) "
					  "or pipe one in (pgfreport %s --help)",
					  ps->cmd);
		ps->trace.fname = "standard input";
		ps->trace.raw_fd = STDIN_FILENO;
		/* compressed or not, as the file's first bytes say */
		ps->trace.f = zfile_read(stdin);
		if (!ps->trace.f)
			return pass_error(ps, "%s: %s", ps->trace.fname, strerror(errno));
	}
	if (pgft_open_tap(&ps->trace.rd, ps->trace.f, ps->trace.fname, ps->tap, ps->tap_arg))
		return reader_error(ps, &ps->trace.rd);
	ps->trace.page_size = ps->trace.rd.page_size ? ps->trace.rd.page_size : 4096;
	ps->trace.page_shift = ps->trace.page_size & (ps->trace.page_size - 1) ? -1 :
			 __builtin_ctzl(ps->trace.page_size);
	if (!ps->trace.rd.tree && (ps->takes & TREE_ONLY))
		return pass_usage(ps, "%s is the trace of process %d alone, not a "
				  "tree (tracepgfault -f writes trees)", ps->trace.fname,
				  ps->trace.rd.pid);
	if (!ps->trace.rd.tree && ps->pid && ps->pid != ps->trace.rd.pid)
		return pass_usage(ps, "%s is the trace of process %d alone, not a "
				  "tree (tracepgfault -f writes trees): there is no "
				  "--pid %ld", ps->trace.fname, ps->trace.rd.pid, ps->pid);
	ps->replay.whole = ps->trace.rd.tree && !ps->pid;
	if (ps->replay.whole && (ps->takes & ONE_PROCESS))
		return one_process(ps);
	return 0;
}

/* How many records ahead pass.prefetch hears of a fault. */
#define PASS_AHEAD	16
/* Records between two looks at the clock for the progress line. */
#define PASS_TICK	(1U << 16)

static double pass_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * On a terminal, the progress line: the input's size where it is a file,
 * not when the command writes the terminal itself as it reads.
 */
static void pass_progress_init(struct pass *ps)
{
	bool on = isatty(STDERR_FILENO) && !(ps->streams && isatty(STDOUT_FILENO));
	struct stat st;
	unsigned long long size = 0;

	if (ps->trace.raw_fd >= 0 && !fstat(ps->trace.raw_fd, &st) && S_ISREG(st.st_mode))
		size = st.st_size;
	progress_init(&ps->trace.progress, stderr, on, pgft_prog, size, pass_now());
}

static void pass_progress(struct pass *ps, unsigned long long records)
{
	off_t at = ps->trace.raw_fd >= 0 ? lseek(ps->trace.raw_fd, 0, SEEK_CUR) : -1;

	progress_update(&ps->trace.progress, at < 0 ? ~0ULL : (unsigned long long)at,
			records, pass_now());
}

int pass_reserve(struct pass *ps, size_t bytes, size_t *off)
{
	bytes = (bytes + 3) & ~(size_t)3;
	if (bytes > PGID_DATA_MAX - ps->data)
		return pass_usage(ps, "too many reports at once for a page's %d bytes",
				  PGID_DATA_MAX);
	*off = (ps->want_ids ? PGID_DATA_OFF : PGID_NOID_OFF) + ps->data;
	ps->data += bytes;
	ps->pages_on = true;
	return 0;
}

/*
 * The hints of a binary trace's faults ahead (one process): the command's
 * own, and with the pages' table, the slot of the page PASS_AHEAD records
 * on, which holds what every report keeps of it.
 */
static inline void pass_hints(struct pass *ps)
{
	unsigned long long next;

	if (!ps->prefetch && !ps->pages_on)
		return;
	next = pgft_peek_addr(&ps->trace.rd, PASS_AHEAD);
	if (next && ps->prefetch)
		ps->prefetch(ps, ps->st, next);
	if (next && ps->pages_on)
		pgid_prefetch(&ps->pages, pass_page(ps, next));
}

/*
 * A text trace in a regular file is read and parsed ahead in a thread
 * (pgft_read_ahead()) where there is a CPU for it: the same records, half
 * the work left to this thread. Not a pipe: its read may wait for ever,
 * where nothing could stop the thread.
 */
static void pass_read_ahead(struct pass *ps)
{
	struct stat st;
	cpu_set_t cpus;

	if (ps->trace.rd.bin || ps->trace.raw_fd < 0 ||
	    fstat(ps->trace.raw_fd, &st) || !S_ISREG(st.st_mode) ||
	    sched_getaffinity(0, sizeof(cpus), &cpus) || CPU_COUNT(&cpus) < 2)
		return;
	/* if it cannot, the reader reads here, as it would have */
	pgft_read_ahead(&ps->trace.rd);
}

/* Warn about @t, process @pid's, if it did not end whole: 0 or 1. */
static int check_tally(const struct pass *ps, int pid,
		       const struct pgft_tally *t)
{
	char why[200];

	if (!pgft_tally_check(t, why, sizeof(why)))
		return 0;
	fprintf(stderr, "pgfreport %s: warning: %s: the trace of process %d %s; "
		"the reports are of what it holds\n", ps->cmd, ps->trace.fname, pid, why);
	return 1;
}

/*
 * The trace (every process of a tree, or --pid's) ends with an exit or a
 * stop record, and an exit's totals are what it holds: else a warning,
 * and PGF_EXIT_TRACE.
 */
static int pass_check_end(struct pass *ps)
{
	int bad = 0;

	if (!ps->trace.rd.tree)
		bad = check_tally(ps, ps->trace.rd.pid, &ps->replay.tally);
	for (size_t i = 0; ps->trace.rd.tree && i < ps->replay.pt.nr; i++) {
		const struct ptree_proc *p = &ps->replay.pt.v[i];

		/* a child its creator names, with no block of its own: none */
		if (p->tally.records && (!ps->pid || p->pid == ps->pid))
			bad += check_tally(ps, p->pid, &p->tally);
	}
	ps->replay.cut = bad;
	return bad ? PGF_EXIT_TRACE : 0;
}

/* --files: the number of the file (@major:@minor, @inode), or -1. */
static int64_t file_number(struct pass *ps, unsigned int major,
			   unsigned int minor, unsigned long long inode)
{
	int64_t n = pgid_get(&ps->replay.fileno, (uint64_t)major << 52 ^
			     (uint64_t)minor << 40 ^ inode);

	return n > (int64_t)PASS_FILE_MAX ? -1 : n;
}

static unsigned long long file_addr(const struct pass *ps, uint64_t n,
				    unsigned long long index)
{
	return (PASS_FILE_PAGE | n << 32 | index) << ps->trace.page_shift;
}

/* Hand a reference (a fault, or a page of a file) to ps->fault. */
static int deliver(struct pass *ps, const struct pgft_rec *rec,
		   const struct pgft_region *g, long sp, unsigned long long addr)
{
	if (ps->pages_on && pgft_counted(rec->result)) {
		struct pgid_slot *s = pgid_slot(&ps->pages, pass_page(ps, addr));

		if (!s)
			return pass_error(ps, "out of memory for the pages' table "
					  "(or more than %u pages)", UINT32_MAX - 1);
		ps->id = ps->want_ids ? s->id : 0;
		ps->slot = s;
	}
	return ps->fault(ps, ps->st, rec, g, sp, addr);
}

/* --files: file @n's path, if it has none yet; 0, or an exit status. */
static int file_path(struct pass *ps, int64_t n, const char *path)
{
	struct pass_replay *R = &ps->replay;

	if ((size_t)n >= R->nfile_paths) {
		size_t cap = R->nfile_paths ? 2 * R->nfile_paths : 64;
		char **v;

		while (cap <= (size_t)n)
			cap *= 2;
		v = realloc(R->file_paths, cap * sizeof(*v));
		if (!v)
			return pass_oom(ps);
		memset(v + R->nfile_paths, 0, (cap - R->nfile_paths) * sizeof(*v));
		R->file_paths = v;
		R->nfile_paths = cap;
	}
	if (!R->file_paths[n] && *path && !(R->file_paths[n] = strdup(path)))
		return pass_oom(ps);
	return 0;
}

/* --files: a file record names file (pid, id): its number. */
static int file_named(struct pass *ps, const struct pgft_rec *rec)
{
	int64_t n = file_number(ps, rec->major, rec->minor, rec->inode);
	struct pgid_slot *s;

	if (n < 0)
		return errno == ENOMEM ? pass_oom(ps) :
		       pass_error(ps, "--files: more than %llu files",
				  PASS_FILE_MAX + 1);
	s = pgid_slot(&ps->replay.file_ids, (uint64_t)(uint32_t)rec->pid << 32 |
		      (rec->id & 0xffffffffULL));
	if (!s)
		return pass_oom(ps);
	s->val = n + 1;
	return file_path(ps, n, rec->name);
}

/* --files: the pages of a cache record the page cache served, each a reference. */
static int file_refs(struct pass *ps, const struct pgft_rec *rec, bool filtered)
{
	struct pgid_slot *s;
	int status;

	if (rec->cache != PGFT_HIT && rec->cache != PGFT_MISS) {
		if (rec->cache == PGFT_READAHEAD &&
		    (!filtered || pgft_filter_fault(&ps->filt, rec, NULL)))
			ps->replay.file_readahead += rec->n[0];
		return 0;
	}
	if (filtered && !pgft_filter_fault(&ps->filt, rec, NULL))
		return 0;
	s = pgid_lookup(&ps->replay.file_ids, (uint64_t)(uint32_t)rec->pid << 32 |
			(rec->id & 0xffffffffULL));
	if (!s || !s->val)
		return pass_bad_trace(ps, "%s:%llu: a cache record of file %llu, which "
				      "no file record named before it",
				      ps->trace.fname, ps->trace.rd.line, rec->id);
	if (rec->start + rec->n[0] - 1 > PASS_FILE_INDEX_MAX)
		return pass_error(ps, "--files: page %llu of a file: files of more "
				  "than 2^32 pages are beyond it", rec->start + rec->n[0]);
	if (rec->cache == PGFT_HIT)
		ps->replay.file_hits += rec->n[0];
	else
		ps->replay.file_misses += rec->n[0];
	if (!ps->fault)
		return 0;
	for (unsigned long long p = rec->start; p < rec->start + rec->n[0]; p++)
		if ((status = deliver(ps, rec, NULL, -1, file_addr(ps, s->val - 1, p))))
			return status;
	return 0;
}

/*
 * --files: a fault in a mapped file is a reference to the file's page,
 * but a write to a private mapping (its own copy): the address for it,
 * handed to pass.fault with the space key -1 and no region, as a read's
 * pages are.
 */
static int fault_file_addr(struct pass *ps, const struct pgft_rec *rec,
			   const struct pgft_region *g, unsigned long long *addr)
{
	int64_t n;

	if (ps->replay.whole && ps->replay.P->index >= 128)
		return pass_error(ps, "--files: a tree of more than 128 processes "
				  "read whole is beyond it (--pid PID: one process)");
	if (!g || !g->inode || !pgft_counted(rec->result) ||
	    (g->perms[3] == 'p' && rec->access == 'w'))
		return 0;
	n = file_number(ps, g->major, g->minor, g->inode);
	if (n < 0)
		return errno == ENOMEM ? pass_oom(ps) :
		       pass_error(ps, "--files: more than %llu files",
				  PASS_FILE_MAX + 1);
	*addr = file_addr(ps, n, (g->offset + rec->addr - g->start) >> ps->trace.page_shift);
	return file_path(ps, n, g->name);
}

int pass_run(struct pass *ps)
{
	unsigned long long records = 0;
	bool filtered = pgft_filter_any(&ps->filt);
	struct pgft_rec rec;
	int ret, status = 0;

	pass_progress_init(ps);
	if (ps->pages_on && pgid_set_data(&ps->pages, ps->data, ps->want_ids))
		return pass_error(ps, "the pages' table: %s", strerror(errno));
	if (ps->files && ps->trace.page_shift < 0)
		return pass_bad_trace(ps, "%s: page size %lu: --files takes a power "
				      "of two", ps->trace.fname, ps->trace.page_size);
	if (ps->phys && ps->trace.page_shift < 0)
		return pass_bad_trace(ps, "%s: page size %lu: --phys takes a power "
				      "of two", ps->trace.fname, ps->trace.page_size);
	pass_read_ahead(ps);
	while ((ret = pgft_next_into(&ps->trace.rd, &rec)) > 0) {
		const struct pgft_region *g;
		unsigned long long addr;
		long sp;

		if (!(++records % PASS_TICK))
			pass_progress(ps, records);
		if (ps->trace.rd.tree) {
			ps->replay.P = ptree_count(&ps->replay.pt, &rec, ps->trace.page_size);
			if (!ps->replay.P) {
				status = pass_oom(ps);
				break;
			}
			if (ps->pid && rec.pid != ps->pid) {
				if (ptree_apply(ps->replay.P, &rec)) {
					status = pass_oom(ps);
					break;
				}
				continue;
			}
			ps->replay.pid_seen = true;
		}
		if (!ps->replay.t0 && rec.time) {
			ps->replay.t0 = rec.time;
			pgft_filter_begin(&ps->filt, ps->replay.t0);
		}
		if (!ps->trace.rd.tree)
			pgft_tally(&ps->replay.tally, &rec);
		if (rec.type != PGFT_FAULT) {
			if (rec.type == PGFT_LOST)
				ps->replay.lost += rec.n[0] + rec.n[1];
			if (kind_rec(&ps->replay.kind, &rec)) {
				status = pass_oom(ps);
				break;
			}
			if (ps->rec && (status = ps->rec(ps, ps->st, &rec)))
				break;
			if (ps->files && rec.type == PGFT_FILE && (status = file_named(ps, &rec)))
				break;
			if (ps->files && rec.type == PGFT_CACHE &&
			    (status = file_refs(ps, &rec, filtered)))
				break;
			if ((ps->trace.rd.tree && ptree_apply(ps->replay.P, &rec)) ||
			    (!ps->replay.whole && pgft_apply(&ps->replay.as, &rec))) {
				status = pass_oom(ps);
				break;
			}
			if (rec.type == PGFT_EXEC)
				ps->replay.index++;
			continue;
		}
		/* a fault: nothing above has a use for it */
		if (ps->rec && !ps->rec_no_faults && (status = ps->rec(ps, ps->st, &rec)))
			break;
		if (!ps->replay.whole)
			pass_hints(ps);
		g = pgft_find(ps->replay.whole ? &ps->replay.P->as : &ps->replay.as, rec.addr);
		if (filtered && !pgft_filter_fault(&ps->filt, &rec, g))
			continue;
		if (pgft_counted(rec.result))
			kind_fault(&ps->replay.kind, &rec);
		if (!ps->fault)
			continue;
		sp = pass_space_key(ps);
		addr = ps->replay.whole ? rec.addr | (unsigned long long)ps->replay.P->index << 56 :
				   rec.addr;
		if (ps->phys) {
			/* the frame, one physical memory: no space's, no region's */
			if (!pgft_counted(rec.result))
				continue;
			ps->replay.phys_faults++;
			if (!rec.has_frame) {
				ps->replay.phys_none++;
				continue;
			}
			addr = (PASS_PHYS_PAGE | rec.pfn) << ps->trace.page_shift;
			sp = -1;
			g = NULL;
		}
		if (ps->files) {
			unsigned long long was = addr;

			if ((status = fault_file_addr(ps, &rec, g, &addr)))
				break;
			if (addr != was) {
				/* a file's page: no address space's, no region's */
				sp = -1;
				g = NULL;
			}
		}
		if ((status = deliver(ps, &rec, g, sp, addr)))
			break;
	}
	progress_clear(&ps->trace.progress);
	if (status)
		return status;
	if (ret < 0)
		return reader_error(ps, &ps->trace.rd);
	if (ps->phys && ps->replay.phys_none)
		fprintf(stderr, "pgfreport %s: --phys: %llu of %llu faults carry no "
			"frame and are left out%s\n", ps->cmd, ps->replay.phys_none,
			ps->replay.phys_faults,
			ps->replay.phys_none == ps->replay.phys_faults ?
			" (the trace was read without CAP_SYS_ADMIN: trace as root)" :
			" (faults that installed nothing, or recorded while no "
			"reader with CAP_SYS_ADMIN held the trace)");
	if (ps->pid && ps->trace.rd.tree && !ps->replay.pid_seen)
		return pass_usage(ps, "%s has no process %ld (pgfreport tree lists "
				  "them)", ps->trace.fname, ps->pid);
	return pass_check_end(ps);
}

void pass_close(struct pass *ps)
{
	pgid_free(&ps->pages);
	pgid_free(&ps->replay.fileno);
	pgid_free(&ps->replay.file_ids);
	for (size_t i = 0; i < ps->replay.nfile_paths; i++)
		free(ps->replay.file_paths[i]);
	free(ps->replay.file_paths);
	ps->replay.file_paths = NULL;
	ps->replay.nfile_paths = 0;
	pgft_space_free(&ps->replay.as);
	ptree_free(&ps->replay.pt);
	pgft_close(&ps->trace.rd);
	pgft_filter_free(&ps->filt);
	kind_free(&ps->replay.kind);
	if (ps->trace.f)
		fclose(ps->trace.f);
	ps->trace.f = NULL;
}
