// SPDX-License-Identifier: GPL-2.0
/*
 * tracepgfault - run a command (or attach to a process) under page fault
 * tracing and save its /proc/<pid>/pgfault_history trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/follow.h"
#include "lib/pgftrace.h"
#include "lib/status.h"
#include "lib/version.h"
#include "lib/zfile.h"

/*
 * Exit statuses of its own, as env(1) and timeout(1) have them: the
 * command's status when it ran, 126 and 127 when it could not.
 */
#define EXIT_USAGE	2	/* the command line is wrong */
#define EXIT_FAIL	125	/* tracepgfault failed: nothing was traced */

static const char usage[] =
"Usage: tracepgfault [-cfqF] [-i MS | -w PAGES | -s MS] [-o FILE] COMMAND [ARG...]\n"
"       tracepgfault [-cfqF] [-i MS | -w PAGES | -s MS] OUTFILE COMMAND [ARG...]\n"
"       tracepgfault [-cfqF] [-i MS | -w PAGES | -s MS] [-o FILE] -p PID\n"
"\n"
"Trace every page fault and address-space change of COMMAND (all its\n"
"threads, across exec) or of the running process PID, and write the trace\n"
"(the text of /proc/<pid>/pgfault_history) to FILE, pgfault.trace unless\n"
"-o says otherwise. An existing FILE is never overwritten without -F.\n"
"Without -o, and with two words or more, the first word is OUTFILE unless\n"
"it is a command that can run (a path to an executable file, or the name\n"
"of one on PATH): \"tracepgfault out.trace ps\" writes the trace of ps to\n"
"out.trace, \"tracepgfault ps aux\" that of \"ps aux\" to pgfault.trace.\n"
"An existing OUTFILE is overwritten if it is empty or holds a trace, so\n"
"that the same command line runs again; any other file is kept, unless\n"
"-F is given and it is not executable.\n"
"Without -i, -w or -s, a page faults the first time it is touched and not again:\n"
"the trace holds first touches (and, after the program writes \"rearm\" to\n"
"/proc/self/pgfault_history, the first touch of each page after that).\n"
"\n"
"  -o, --output FILE  write the trace to FILE (default pgfault.trace); '-' is\n"
"            standard output. FILE must not exist, unless -F is given. A\n"
"            name ending in .zst is written compressed with zstd (3.2x\n"
"            smaller at random addresses); pgfreport reads it as it is;\n"
"            one ending in .pgfb in the binary form (pgfreport convert;\n"
"            .pgfb.zst: both)\n"
"  -F, --force  overwrite FILE if it exists (it is truncated at the start)\n"
"  -i MS     interval mode: re-arm every page every MS milliseconds (1 to\n"
"            3600000), so that its next touch faults again (\"reref\"): the\n"
"            trace then holds, for each interval, the first reference to\n"
"            each page in it, in order - the exact page-level working set\n"
"            of every interval. Costs a fault per page used per interval,\n"
"            and a walk of the page tables every MS ms\n"
"  -w PAGES  window mode: only the PAGES pages (16 to 1048576) touched\n"
"            last stay accessible, first in, first out; every other touch\n"
"            faults (\"reref\" once a page has been seen): the trace is the\n"
"            sequence of references that miss in a FIFO window of PAGES\n"
"            pages, what a cache or page replacement study needs beyond\n"
"            first touches. Costs a fault per miss: little when the window\n"
"            holds the working set, a fault per reference when it does not\n"
"  -s MS     sampling mode: faults as without it, and every MS milliseconds\n"
"            (1 to 3600000) the kernel tests and clears the accessed bit of\n"
"            every present page: the trace says which pages were referenced\n"
"            in each interval (\"refs\" runs, then a \"sample\" line with\n"
"            the pages scanned and the scan's time), without a fault per\n"
"            reference where the hardware keeps the bit (x86); where\n"
"            software keeps it (UML), each page's first reference after a\n"
"            scan faults (\"reref\"). Costs a page-table walk every MS ms\n"
"  -c, --files  file I/O too: every read and write through the page cache\n"
"            (read, pread, readv, sendfile, splice, copy_file_range,\n"
"            io_uring, buffered writes; direct I/O as such) is recorded as\n"
"            runs of file pages (\"cache\" lines: file, first page, pages,\n"
"            r or w, hit, miss, readahead, hole or direct), each file named\n"
"            once (\"file\" lines); pgfreport cache reports them. Combines\n"
"            with every mode and with -f\n"
"  -f        follow children: every process COMMAND (or PID) creates from\n"
"            now on, and every process those create, is traced too, from\n"
"            its first instruction, in the same mode; OUTFILE is then a tree\n"
"            file (\"pgfault_history_tree\": each process's trace, in blocks\n"
"            each headed \"pid N\", merged in time order as they are read)\n"
"            that pgfreport reads (pgfreport tree, --pid). Ends when every\n"
"            process of the tree has exited\n"
"  -p PID    attach to a running process: trace from now (the trace starts\n"
"            with its current layout) until it exits or you press Ctrl-C,\n"
"            which stops tracing (with -f, of every process followed) and\n"
"            leaves a complete file\n"
"  -q        no summary line on stderr, and no status line: on a terminal,\n"
"            stderr otherwise shows elapsed time, faults/s, records\n"
"            written, records lost and processes followed as the trace is\n"
"            read, and a warning the moment records are lost\n"
"  -h, --help  this help\n"
"  --version   the tools' version and the newest trace format they read\n"
"\n"
"Exit status: COMMAND's (128+N if signal N killed it), 127 if it was not\n"
"found, 126 if it could not be run; 0 after -p; 2 for a command line\n"
"that is wrong (an option, a missing COMMAND); 125 when tracepgfault\n"
"fails (FILE exists or cannot be written, no permission to trace, a\n"
"kernel without the feature), as env(1) and timeout(1) do. When COMMAND\n"
"cannot be run, FILE is removed if this run created it, and only then.\n"
"A one-line summary goes to stderr: (with -f, processes traced) faults,\n"
"major faults, regions, lost records, wall time, and, if any,\n"
"samples, re-references, file references (hits/misses, with -c) and\n"
"faults taken on other address spaces\n"
"(reading another process's memory, the arguments of an exec); with -f,\n"
"also children the kernel could not trace (out of memory) or that could\n"
"not be followed.\n"
"\n"
"Examples:\n"
"  tracepgfault ps aux                          (writes pgfault.trace)\n"
"  tracepgfault ps.trace ps aux                 (writes ps.trace)\n"
"  tracepgfault -o - ./myprog | pgfreport map -\n"
"  tracepgfault -i 100 -o ws.trace ./myprog\n"
"  tracepgfault -s 100 -o sampled.trace ./myprog\n"
"  tracepgfault -w 1024 -o misses.trace ./myprog\n"
"  tracepgfault -p 1234 -o server.trace\n"
"  tracepgfault -f -o build.trace make -j2\n"
"  tracepgfault -c -o grep.trace grep -r pattern /usr/include\n"
"  tracepgfault -F -f -p 1234 -o server-tree.trace\n";

/*
 * Would execvp() find @word a file to run: a path to an executable file,
 * or the name of one in a directory of PATH (an empty entry: the current
 * directory)?
 */
static bool runnable(const char *word)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];
	struct stat sb;
	int len;

	if (!*word)
		return false;
	if (strchr(word, '/'))
		return !stat(word, &sb) && S_ISREG(sb.st_mode) && !access(word, X_OK);
	if (!path)
		path = "/bin:/usr/bin";	/* execvp()'s, with no PATH */
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		len = end - p;
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", len, p, len ? "/" : "",
			     word) < (int)sizeof(buf) &&
		    !stat(buf, &sb) && S_ISREG(sb.st_mode) && !access(buf, X_OK))
			return true;
		if (!*end)
			return false;
	}
}

/*
 * Does the file @name hold a trace these tools wrote (a header they read:
 * text, tree or binary form, compressed or not)? 1, 0, or -1 with errno.
 */
static int holds_trace(const char *name)
{
	struct pgft_reader rd;
	FILE *f = fopen(name, "r");
	int ret;

	if (f)
		f = zfile_read(f);
	if (!f)
		return -1;
	ret = !pgft_open(&rd, f, name);
	pgft_close(&rd);
	fclose(f);
	return ret;
}

/*
 * OUTFILE of "tracepgfault OUTFILE COMMAND [ARG...]" exists: it is
 * written if it is empty or holds a trace, so that the same command line
 * runs again; with -F, also if it is any other regular file but an
 * executable one (the command the user meant to run). Returns the file
 * opened for writing, or -1 once it has said why not.
 */
static int reopen_outfile(const char *name, bool force)
{
	struct stat sb;
	int fd, trace = 0;

	if (stat(name, &sb)) {
		fprintf(stderr, "tracepgfault: %s: %s\n", name, strerror(errno));
		return -1;
	}
	if (S_ISREG(sb.st_mode) && (sb.st_mode & 0111)) {
		fprintf(stderr, "tracepgfault: %s is an executable file but not a command "
			"on PATH: not overwritten; to run it, write ./%s; to write the "
			"trace there all the same, use -F -o %s\n", name, name, name);
		return -1;
	}
	if (S_ISREG(sb.st_mode))
		trace = sb.st_size == 0 ? 1 : holds_trace(name);
	if (trace < 0) {
		fprintf(stderr, "tracepgfault: %s: %s\n", name, strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode) || (!trace && !force)) {
		fprintf(stderr, "tracepgfault: %s exists and is not a trace: not "
			"overwritten; choose another OUTFILE (or -o FILE), or "
			"overwrite it with -F\n", name);
		return -1;
	}
	fd = open(name, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "tracepgfault: %s: %s\n", name, strerror(errno));
	return fd;
}

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The live status line (-q or a non-terminal stderr: off). */
static struct status st;

struct totals;
static void show_status(const struct totals *t, long long processes, bool force);

struct totals {
	unsigned long long records;	/* lines after the header */
	unsigned long long faults, major, reref, remote, lost, regions;
	unsigned long long samples;
	unsigned long long cache, cache_hit, cache_miss;	/* -c: records, pages */
	bool owed;		/* other records lost since the last layout */
	char partial[64];	/* an incomplete line carried to the next chunk */
	size_t plen;
};

static void count_line(struct totals *t, const char *l, size_t n)
{
	unsigned long long a, b, c, d, e;

	t->records++;
	if (n > 6 && !strncmp(l, "fault ", 6)) {
		t->faults++;
		if (memmem(l, n, " major ", 7))
			t->major++;
		else if (memmem(l, n, " reref ", 7))
			t->reref++;
	} else if (n > 7 && !strncmp(l, "sample ", 7)) {
		if (!memmem(l, n, " baseline", 9))
			t->samples++;
	} else if (n > 6 && !strncmp(l, "cache ", 6)) {
		t->cache++;
		/* cache T TID FILE INDEX PAGES ACCESS HOW */
		if (sscanf(l, "cache %*u %*u %*u %*u %llu", &a) == 1) {
			if (memmem(l, n, " hit", 4))
				t->cache_hit += a;
			else if (memmem(l, n, " miss", 5))
				t->cache_miss += a;
		}
	} else if (n > 7 && !strncmp(l, "remote ", 7)) {
		t->remote++;
	} else if (n > 5 && !strncmp(l, "lost ", 5) &&
		   sscanf(l, "lost %llu %llu", &a, &b) == 2) {
		t->lost += a + b;
		t->owed |= b > 0;
	} else if (n > 7 && !strncmp(l, "layout ", 7)) {
		t->owed = false;
	} else if (n > 5 && !strncmp(l, "exit ", 5) &&
		   sscanf(l, "exit %llu %llu %llu %llu %llu", &a, &b, &c, &d, &e) == 5) {
		t->regions += e;
	}
}

/* Count records in a chunk of the stream (lines may straddle chunks). */
static void count(struct totals *t, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n, *nl;

	while (p < end && (nl = memchr(p, '\n', end - p))) {
		if (t->plen) {
			size_t k = nl - p;

			if (k > sizeof(t->partial) - 1 - t->plen)
				k = sizeof(t->partial) - 1 - t->plen;
			memcpy(t->partial + t->plen, p, k);
			count_line(t, t->partial, t->plen + k);
			t->plen = 0;
		} else {
			count_line(t, p, nl - p);
		}
		p = nl + 1;
	}
	if (p < end) {
		size_t k = end - p;

		if (k > sizeof(t->partial) - 1 - t->plen)
			k = sizeof(t->partial) - 1 - t->plen;
		memcpy(t->partial + t->plen, p, k);
		t->plen += k;
	}
}

static void show_status(const struct totals *t, long long processes, bool force)
{
	struct status_counts c = {
		.records = t->records, .faults = t->faults, .lost = t->lost,
		.processes = processes,
	};

	status_update(&st, &c, now(), force);
}

/* The output: plain, or zstd for a name ending in .zst (tools/lib/zfile.h). */
static struct zwriter *zout;

/* Copy the trace to the output until EOF (or, after -p and Ctrl-C, until drained). */
static int drain(int fd, const char *outname, pid_t pid, bool attach,
		 struct totals *t)
{
	static char buf[128 * 1024];
	char path[64];
	bool stopping = false;
	ssize_t n;

	for (;;) {
		if (attach && interrupted && !stopping) {
			/* Stop tracing; what is buffered is read without waiting. */
			int ctl;

			snprintf(path, sizeof(path), "/proc/%d/pgfault_history", pid);
			ctl = open(path, O_WRONLY);
			if (ctl >= 0) {
				if (write(ctl, "0", 1) != 1)
					perror("tracepgfault: stopping the trace");
				close(ctl);
			}
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
			stopping = true;
		}
		/* With a status line, wake up to redraw it. */
		if (st.on && !stopping) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (!poll(&p, 1, STATUS_PERIOD_MS)) {
				show_status(t, -1, false);
				continue;
			}
		}
		n = read(fd, buf, sizeof(buf));
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && stopping)
				return 0;
			status_clear(&st);
			fprintf(stderr, "tracepgfault: reading the trace of %d: %s\n",
				pid, strerror(errno));
			return -1;
		}
		count(t, buf, n);
		show_status(t, -1, false);
		if (zwriter_write(zout, buf, n)) {
			status_clear(&st);
			fprintf(stderr, "tracepgfault: writing %s: %s\n", outname,
				strerror(errno));
			return -1;
		}
	}
}

static int ctl(pid_t pid, const char *what)
{
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/pgfault_history", pid);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, what, strlen(what)) != (ssize_t)strlen(what))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	return ret;
}

static void no_feature(void)
{
	fprintf(stderr, "tracepgfault: this kernel has no /proc/<pid>/pgfault_history "
		"(built without CONFIG_PGFAULT_HISTORY?)\n");
	exit(EXIT_FAIL);
}

/* follow's callbacks: every record line of the tree; every poll round. */
static void count_tree_line(void *ctx, const char *l, size_t n)
{
	count_line(ctx, l, n);
}

static void tree_tick(void *ctx, const struct follow *f)
{
	show_status(ctx, f->processes, false);
}

static void summary(const struct totals *t, const struct follow *fl,
		    double secs)
{
	status_clear(&st);
	fprintf(stderr, "tracepgfault: ");
	if (fl)
		fprintf(stderr, "%llu process%s, ", fl->processes,
			fl->processes == 1 ? "" : "es");
	fprintf(stderr, "%llu faults (%llu major), %llu regions, "
		"%llu lost records, %.3f s", t->faults, t->major, t->regions,
		t->lost, secs);
	if (t->samples)
		fprintf(stderr, "; %llu sample%s", t->samples,
			t->samples == 1 ? "" : "s");
	if (t->reref)
		fprintf(stderr, "; %llu of the faults re-references", t->reref);
	if (t->cache)
		fprintf(stderr, "; %llu file reference%s (%llu pages hit, %llu missed)",
			t->cache, t->cache == 1 ? "" : "s", t->cache_hit,
			t->cache_miss);
	if (t->remote)
		fprintf(stderr, "; %llu fault%s on other address spaces (exec arguments, another process's memory)",
			t->remote, t->remote == 1 ? "" : "s");
	if (fl && fl->untraced)
		fprintf(stderr, "; %llu child%s NOT traced (the kernel was out of memory)",
			fl->untraced, fl->untraced == 1 ? "" : "ren");
	if (fl && fl->unfollowed)
		fprintf(stderr, "; %llu child%s NOT followed",
			fl->unfollowed, fl->unfollowed == 1 ? "" : "ren");
	if (!fl && t->owed)
		fprintf(stderr, "; records were lost after the last layout (the "
			"buffer was full, at the exit too): the regions at the "
			"end may be incomplete (a larger vm.pgfault_history_buffer_kb "
			"keeps them)");
	fputc('\n', stderr);
}

/* Read the tree of the root's trace @fd to the end into @out. */
static int follow_tree(int fd, int out, const char *outname, pid_t pid,
		       struct totals *t, struct follow *fl, bool attach)
{
	struct rlimit rl;

	/* A descriptor per live process of the tree. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (follow_init(fl, out, outname, fd, pid) ||
	    (fl->zw = zout, fl->line = count_tree_line, fl->ctx = t,
	     fl->tick = st.on ? tree_tick : NULL, fl->tick_ms = STATUS_PERIOD_MS,
	     follow_run(fl, attach ? &interrupted : NULL))) {
		status_clear(&st);
		fprintf(stderr, "tracepgfault: %s\n",
			fl->error[0] ? fl->error : strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_int };
	struct totals t = { 0 };
	struct follow fl = { 0 };
	bool quiet = false, attach = false, tree = false, force = false;
	bool files = false;
	bool created = false, named = false, positional = false;
	char start[48] = "1";
	long interval = 0, window = 0, sample = 0;
	int opt, out, fd, status = 0, err, ready[2], go[2], errpipe[2];
	const char *outname = "pgfault.trace";
	pid_t pid = 0;
	double t0;
	char *end;

	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "force", no_argument, NULL, 'F' },
		{ "files", no_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "+cfqFo:i:w:s:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			force = true;
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "tracepgfault: -o: an empty file name\n");
				return EXIT_USAGE;
			}
			outname = optarg;
			named = true;
			break;
		case 'V':
			printf("tracepgfault %s (pgfault_history tools; trace format up to %d)\n",
			       PGF_TOOLS_VERSION, PGFT_VERSION);
			return 0;
		case 'f':
			tree = true;
			break;
		case 'c':
			files = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'i':
			errno = 0;
			interval = strtol(optarg, &end, 10);
			if (errno || *end || interval < 1 || interval > 3600000) {
				fprintf(stderr, "tracepgfault: -i: '%s' is not a number of milliseconds from 1 to 3600000\n",
					optarg);
				return EXIT_USAGE;
			}
			snprintf(start, sizeof(start), "1 interval=%ld", interval);
			break;
		case 'w':
			errno = 0;
			window = strtol(optarg, &end, 10);
			if (errno || *end || window < 16 || window > 1048576) {
				fprintf(stderr, "tracepgfault: -w: '%s' is not a number of pages from 16 to 1048576\n",
					optarg);
				return EXIT_USAGE;
			}
			snprintf(start, sizeof(start), "1 window=%ld", window);
			break;
		case 's':
			errno = 0;
			sample = strtol(optarg, &end, 10);
			if (errno || *end || sample < 1 || sample > 3600000) {
				fprintf(stderr, "tracepgfault: -s: '%s' is not a number of milliseconds from 1 to 3600000\n",
					optarg);
				return EXIT_USAGE;
			}
			snprintf(start, sizeof(start), "1 sample=%ld", sample);
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0) {
				fprintf(stderr, "tracepgfault: -p: '%s' is not a process id\n",
					optarg);
				return EXIT_USAGE;
			}
			attach = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!!interval + !!window + !!sample > 1) {
		fprintf(stderr, "tracepgfault: -i, -w and -s are three modes: choose one\n");
		return EXIT_USAGE;
	}
	if (attach && optind != argc) {
		fprintf(stderr, "tracepgfault: -p traces a running process: no COMMAND (\"%s\"); "
			"the output file is given with -o\n", argv[optind]);
		return EXIT_USAGE;
	}
	/* The project's first form: OUTFILE COMMAND [ARG...] (see usage). */
	if (!attach && !named && argc - optind >= 2 && !runnable(argv[optind])) {
		outname = argv[optind++];
		positional = true;
	}
	if (!attach && optind >= argc) {
		fprintf(stderr, "tracepgfault: no COMMAND to run (or -p PID to attach to); "
			"see tracepgfault --help\n");
		return EXIT_USAGE;
	}
	if (access("/proc/self/pgfault_history", F_OK))
		no_feature();
	if (tree)
		strcat(start, " inherit");
	if (files)
		strcat(start, " files");

	/*
	 * The output first: an unwritable file fails before anything runs.
	 * A file that exists is left alone unless -F says to overwrite it;
	 * only a file this run created is removed if the command cannot run.
	 */
	if (!strcmp(outname, "-")) {
		out = STDOUT_FILENO;
		outname = "standard output";
	} else {
		out = open(outname, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		created = out >= 0;
		if (out < 0 && errno == EEXIST && positional) {
			out = reopen_outfile(outname, force);
			if (out < 0)
				return EXIT_FAIL;
		}
		if (out < 0 && errno == EEXIST && force)
			out = open(outname, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (out < 0 && errno == EEXIST) {
			fprintf(stderr, "tracepgfault: %s exists: not overwritten; "
				"choose another file with -o FILE, or overwrite it with -F\n",
				outname);
			return EXIT_FAIL;
		}
		if (out < 0) {
			fprintf(stderr, "tracepgfault: %s: %s\n", outname, strerror(errno));
			return EXIT_FAIL;
		}
	}
	zout = zwriter_new(out, zfile_wants_zstd(outname),
			    zfile_wants_binary(outname));
	if (!zout) {
		fprintf(stderr, "tracepgfault: %s: %s\n", outname, strerror(errno));
		return EXIT_FAIL;
	}
	t0 = now();
	status_init(&st, stderr, !quiet && isatty(STDERR_FILENO), t0);

	if (attach) {
		char path[64];

		err = ctl(pid, start);
		if (err) {
			fprintf(stderr, "tracepgfault: cannot trace process %d: %s\n",
				pid, err == -ENOENT ? "no such process" :
				err == -EBUSY ? "already traced in another mode (or with/without -f or -c)" :
				err == -EINVAL && files ? "the kernel refused the mode (a kernel older than trace format 7 cannot trace file I/O: -c)" :
				strerror(-err));
			goto out_remove;
		}
		snprintf(path, sizeof(path), "/proc/%d/pgfault_history", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == EBUSY) {
			/*
			 * Traced already, in this mode, and read by another
			 * program: its trace, not ours to stop.
			 */
			fprintf(stderr, "tracepgfault: process %d is already traced and "
				"another program reads its trace\n", pid);
			goto out_remove;
		}
		if (fd < 0) {
			fprintf(stderr, "tracepgfault: %s: %s\n", path, strerror(errno));
			ctl(pid, "0");
			goto out_remove;
		}
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		if (tree ? follow_tree(fd, out, outname, pid, &t, &fl, true) :
			   drain(fd, outname, pid, true, &t))
			return EXIT_FAIL;
		if (zwriter_close(zout)) {
			fprintf(stderr, "tracepgfault: %s: %s\n", outname, strerror(errno));
			return EXIT_FAIL;
		}
		if (!quiet)
			summary(&t, tree ? &fl : NULL, now() - t0);
		follow_free(&fl);
		return 0;
	}

	/*
	 * The child turns tracing on for itself, then waits until we have the
	 * trace open, then execs: no instruction of the command runs untraced
	 * or unread. A CLOEXEC pipe brings back exec's errno.
	 */
	if (pipe(ready) || pipe(go) || pipe2(errpipe, O_CLOEXEC)) {
		perror("tracepgfault: pipe");
		return EXIT_FAIL;
	}
	pid = fork();
	if (pid < 0) {
		perror("tracepgfault: fork");
		return EXIT_FAIL;
	}
	if (pid == 0) {
		char c;

		close(ready[0]);
		close(go[1]);
		close(errpipe[0]);
		err = ctl(getpid(), start);
		if (write(ready[1], &err, sizeof(err)) != sizeof(err) || err)
			_exit(1);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		close(ready[1]);
		close(go[0]);
		execvp(argv[optind], argv + optind);
		err = errno;
		if (write(errpipe[1], &err, sizeof(err)) != sizeof(err))
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(ready[1]);
	close(go[0]);
	close(errpipe[1]);
	if (read(ready[0], &err, sizeof(err)) != sizeof(err) || err) {
		fprintf(stderr, "tracepgfault: cannot start tracing: %s\n",
			err == -EINVAL && files ? "the kernel refused the mode (a kernel older than trace format 7 cannot trace file I/O: -c)" :
			strerror(-err));
		waitpid(pid, NULL, 0);
		goto out_remove;
	}
	{
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/pgfault_history", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "tracepgfault: %s: %s\n", path, strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return EXIT_FAIL;
		}
	}
	/* Ctrl-C goes to the command (same process group); we keep draining. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (write(go[1], "g", 1) != 1) {
		perror("tracepgfault: starting the command");
		return EXIT_FAIL;
	}
	close(go[1]);
	if (read(errpipe[0], &err, sizeof(err)) == sizeof(err)) {
		fprintf(stderr, "tracepgfault: %s: %s\n", argv[optind],
			err == ENOENT ? "command not found" : strerror(err));
		waitpid(pid, NULL, 0);
		if (created)
			unlink(outname);
		return err == ENOENT ? 127 : 126;
	}
	close(errpipe[0]);
	if (tree)
		err = follow_tree(fd, out, outname, pid, &t, &fl, false);
	else
		err = drain(fd, outname, pid, false, &t);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (zwriter_close(zout) && !err) {
		fprintf(stderr, "tracepgfault: %s: %s\n", outname, strerror(errno));
		err = -1;
	}
	if (out != STDOUT_FILENO && close(out)) {
		fprintf(stderr, "tracepgfault: %s: %s\n", outname, strerror(errno));
		err = -1;
	}
	if (!quiet)
		summary(&t, tree ? &fl : NULL, now() - t0);
	follow_free(&fl);
	if (err)
		return EXIT_FAIL;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);

out_remove:
	/* Nothing was traced: a file this run created goes again. */
	if (created)
		unlink(outname);
	return EXIT_FAIL;
}
