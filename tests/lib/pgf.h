/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgf.h - helpers for the pgfault_history tests: control a traced
 * "puppet" process step by step, and read and parse its trace.
 */
#ifndef PGF_TEST_PGF_H
#define PGF_TEST_PGF_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/pgfault_history.h>
#include "util.h"
#include "../../tools/lib/pgftrace.h"

/*
 * @line starts as a trace's header line of this kernel does: the format
 * version is the uapi header's, the kernel's and the tools' own.
 */
static inline bool pgf_header_ok(const char *line)
{
	char want[64];
	int n = snprintf(want, sizeof(want), PGFAULT_HISTORY_MAGIC " %d pid ",
			 PGFAULT_HISTORY_VERSION);

	return !strncmp(line, want, n);
}

/* ---- control ------------------------------------------------------- */

static inline void pgf_path(char *buf, size_t size, pid_t pid)
{
	snprintf(buf, size, "/proc/%d/pgfault_history", (int)pid);
}

/* Write @s to /proc/<pid>/pgfault_history; 0 or -errno. */
static inline int pgf_ctl(pid_t pid, const char *s, size_t len)
{
	char path[64];
	int fd, ret = 0;

	pgf_path(path, sizeof(path), pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

#define pgf_start(pid) pgf_ctl(pid, "1", 1)
#define pgf_stop(pid) pgf_ctl(pid, "0", 1)
#define pgf_rearm(pid) pgf_ctl(pid, "rearm", 5)

static inline int pgf_open(pid_t pid, int flags)
{
	char path[64];

	pgf_path(path, sizeof(path), pid);
	return open(path, O_RDONLY | flags);
}

static inline int pgf_set_buffer_kb(unsigned int kb)
{
	FILE *f = fopen("/proc/sys/vm/pgfault_history_buffer_kb", "w");
	int ret;

	if (!f)
		return -errno;
	ret = fprintf(f, "%u\n", kb) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

/* ---- a puppet: a child that runs steps when told --------------------- */

struct puppet {
	pid_t pid;
	int to;		/* parent -> child */
	int from;	/* child -> parent */
};

typedef void (*puppet_fn)(int step, int report_fd);

/*
 * Wait until the puppet sleeps (in its read() for the next step), so it
 * takes no fault while the caller reads its counters or starts tracing.
 */
static inline int puppet_wait_idle(struct puppet *p)
{
	struct pgf_stat st;

	for (int i = 0; i < 5000; i++) {
		if (!pgf_read_stat(p->pid, &st) && st.state == 'S')
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * Say why step @step of the puppet failed (@what), and what became of
 * it: its exit status or signal, or its state; returns -1.
 */
static inline int puppet_why(struct puppet *p, unsigned char step,
			     const char *what)
{
	struct pgf_stat st;
	char state[64] = "gone";
	pid_t pid = p->pid;
	int status;

	if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
		if (WIFEXITED(status))
			snprintf(state, sizeof(state), "exited with %d",
				 WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			snprintf(state, sizeof(state), "killed by signal %d",
				 WTERMSIG(status));
		p->pid = -1;	/* reaped: puppet_end() must not wait */
	} else if (!pgf_read_stat(p->pid, &st)) {
		snprintf(state, sizeof(state), "state %c", st.state);
	}
#ifdef ktap_diag
	ktap_diag("puppet %d, step %u: %s; %s", (int)pid, step, what, state);
#else
	fprintf(stderr, "puppet %d, step %u: %s; %s\n", (int)pid, step, what,
		state);
#endif
	return -1;
}

/*
 * Fork a child that waits for a step number, runs fn(step), answers with
 * one byte, and exits when told step 0. The child is blocked in read()
 * whenever it is not running a step: it takes no faults then.
 */
static inline int puppet_spawn(struct puppet *p, puppet_fn fn)
{
	int to[2], from[2];
	unsigned char step;

	if (pipe(to) || pipe(from))
		return -1;
	/* A puppet that was killed must not kill us through its pipe. */
	signal(SIGPIPE, SIG_IGN);
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		close(to[1]);
		close(from[0]);
		step = 0xff;	/* ready */
		if (write(from[1], &step, 1) != 1)
			_exit(3);
		while (read(to[0], &step, 1) == 1 && step) {
			fn(step, from[1]);
			if (write(from[1], &step, 1) != 1)
				_exit(3);
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	p->to = to[1];
	p->from = from[0];
	if (read(p->from, &step, 1) != 1 || step != 0xff)
		return -1;
	return puppet_wait_idle(p);
}

/*
 * Read @len bytes the puppet reports: a step that writes its report in
 * parts (one write per figure) may not have written them all yet when
 * the first arrives, and a pipe's read() returns what is there.
 */
static inline int puppet_read(struct puppet *p, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = read(p->from, (char *)buf + got, len - got);

		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/* Run step @step in the puppet and wait for it; 0 or -1. */
static inline int puppet_step(struct puppet *p, unsigned char step)
{
	unsigned char ack;

	if (write(p->to, &step, 1) != 1 ||
	    read(p->from, &ack, 1) != 1 || ack != step)
		return puppet_why(p, step, "no answer");
	if (puppet_wait_idle(p))
		return puppet_why(p, step, "not asleep after 5 s");
	return 0;
}

/* Run a step that sends @len bytes (e.g. an address) before its ack. */
static inline int puppet_step_recv(struct puppet *p, unsigned char step,
				   void *buf, size_t len)
{
	unsigned char ack;

	if (write(p->to, &step, 1) != 1 ||
	    puppet_read(p, buf, len) ||
	    read(p->from, &ack, 1) != 1 || ack != step)
		return puppet_why(p, step, "no answer");
	if (puppet_wait_idle(p))
		return puppet_why(p, step, "not asleep after 5 s");
	return 0;
}

/* Tell the puppet to exit; return its wait status. */
static inline int puppet_end(struct puppet *p)
{
	unsigned char zero = 0;
	int status = -1;

	if (write(p->to, &zero, 1) != 1 && p->pid > 0)
		kill(p->pid, SIGKILL);
	close(p->to);
	close(p->from);
	if (p->pid > 0)
		waitpid(p->pid, &status, 0);
	return status;
}

/* ---- the trace --------------------------------------------------------- */

struct pgf_rec {
	char type[12];		/* a change record's: its kind, "move" ... */
	unsigned long long time;
	int tid;
	unsigned long addr, ip;
	char access;		/* r w x */
	int kernel;
	char result[8];
	/*
	 * lost: faults, other; exit: status, faults; child: pid, untraced;
	 * refs: runs; sample: pages scanned, referenced
	 */
	unsigned long long a, b;
	char text[256];		/* exec path, stop reason, file path */
	/* every number the tools' parser gave (pgftrace.h's n[]) */
	unsigned long long n[6];
	/* file: its id, device, inode; cache: its file's id, and HOW */
	unsigned long long id, inode;
	unsigned int major, minor;
	int cache;		/* enum pgft_cache */
	unsigned int flags;	/* exit: PGFT_EXIT_CACHE */
	/* fault: the frame it mapped, if has_frame (pgftrace.h's) */
	bool has_frame;
	unsigned long long pfn;
	int node;		/* PGFT_NO_NODE for none */
	unsigned int order;
	int level;		/* enum pgft_level */
	/*
	 * move, evict, split, collapse, mapped: addr, a the pages, text the cause,
	 * node and new_node always; pfn and new_pfn (PGFT_NO_PFN: none),
	 * order and level with has_frame
	 */
	int new_node;
	unsigned long long new_pfn;
};

struct pgf_trace {
	char header[128];
	int pid;		/* from the header */
	struct pgf_rec *rec;
	size_t nr, cap;
};

/* One line through the tools' own parser (tools/lib/pgftrace.c). */
static inline int pgf_parse_line(const char *l, struct pgf_rec *r)
{
	static const char * const types[] = {
		[PGFT_START] = "start", [PGFT_FAULT] = "fault",
		[PGFT_LOST] = "lost", [PGFT_EXEC] = "exec", [PGFT_STOP] = "stop",
		[PGFT_EXIT] = "exit", [PGFT_LAYOUT] = "layout", [PGFT_MAP] = "map",
		[PGFT_CHANGE] = "change", [PGFT_UNMAP] = "unmap",
		[PGFT_REMOTE] = "remote", [PGFT_REARM] = "rearm",
		[PGFT_CHILD] = "child", [PGFT_REFS] = "refs",
		[PGFT_SAMPLE] = "sample", [PGFT_FILE] = "file",
		[PGFT_CACHE] = "cache",
	};
	static const char * const results[] = {
		[PGFT_MINOR] = "minor", [PGFT_MAJOR] = "major",
		[PGFT_REREF] = "reref",
		[PGFT_SIGSEGV] = "SIGSEGV", [PGFT_SIGBUS] = "SIGBUS",
		[PGFT_OOM] = "OOM",
	};
	char line[4096];
	struct pgft_rec x;

	snprintf(line, sizeof(line), "%s", l);
	memset(r, 0, sizeof(*r));
	if (pgft_parse(line, &x))
		return -1;
	/* A change record is named by its kind: "move" ... */
	snprintf(r->type, sizeof(r->type), "%s", x.type == PGFT_PAGES ?
		 pgft_change_names[x.change] : types[x.type]);
	snprintf(r->result, sizeof(r->result), "%s", results[x.result]);
	/* the path of a file, or a region's name */
	snprintf(r->text, sizeof(r->text), "%s",
		 x.type == PGFT_FILE || x.type == PGFT_MAP ||
		 x.type == PGFT_CHANGE ? x.name : x.text);
	r->time = x.time;
	r->tid = x.tid;
	r->addr = x.type == PGFT_FAULT || x.type == PGFT_PAGES ? x.addr :
		  x.start;
	r->ip = x.ip;
	r->access = x.access;
	r->kernel = x.kernel;
	r->a = x.n[0];
	r->b = x.n[1];
	memcpy(r->n, x.n, sizeof(r->n));
	r->id = x.id;
	r->inode = x.inode;
	r->major = x.major;
	r->minor = x.minor;
	r->cache = x.cache;
	r->flags = x.flags;
	r->has_frame = x.has_frame;
	r->pfn = x.pfn;
	r->node = x.node;
	r->order = x.order;
	r->level = x.level;
	r->new_node = x.new_node;
	r->new_pfn = x.new_pfn;
	return 0;
}

static inline void pgf_trace_free(struct pgf_trace *t)
{
	free(t->rec);
	memset(t, 0, sizeof(*t));
}

/* More than any test makes: the sign of a runaway trace. */
#define PGF_TRACE_MAX_RECORDS	1000000

/*
 * Parse text into @t; lines may arrive in pieces across calls. Returns 0,
 * or -1 on a line that does not parse (printed as a diagnostic).
 */
static inline int pgf_trace_feed(struct pgf_trace *t, const char *buf,
				 size_t len, char *line, size_t *linelen,
				 size_t *lineno)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			if (*linelen < 4095)
				line[(*linelen)++] = buf[i];
			continue;
		}
		line[*linelen] = '\0';
		(*lineno)++;
		if (*lineno == 1) {
			size_t h = *linelen < sizeof(t->header) - 1 ?
				   *linelen : sizeof(t->header) - 1;

			memcpy(t->header, line, h);
			t->header[h] = '\0';
			/* 0 if the caller read the header itself. */
			if (sscanf(t->header, "pgfault_history %*d pid %d", &t->pid) != 1)
				t->pid = 0;
			*linelen = 0;
			continue;
		}
		*linelen = 0;
		/*
		 * A runaway trace (a fault that never completes, a layout sent
		 * over and over) would take the guest's memory: stop, and say
		 * what it was.
		 */
		if (t->nr >= PGF_TRACE_MAX_RECORDS) {
			printf("# over %d records: a runaway trace? line %zu: %.200s\n",
			       PGF_TRACE_MAX_RECORDS, *lineno, line);
			for (size_t k = t->nr - 3; k < t->nr; k++)
				printf("#   before it: %s %llu %d %lx %c %s\n",
				       t->rec[k].type, t->rec[k].time,
				       t->rec[k].tid, t->rec[k].addr,
				       t->rec[k].access ? t->rec[k].access : '-',
				       t->rec[k].result);
			fflush(stdout);
			return -1;
		}
		if (t->nr == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 1024;
			t->rec = realloc(t->rec, t->cap * sizeof(*t->rec));
			if (!t->rec)
				return -1;
		}
		if (pgf_parse_line(line, &t->rec[t->nr])) {
			printf("# trace line %zu does not parse: %.200s\n",
			       *lineno, line);
			return -1;
		}
		t->nr++;
	}
	return 0;
}

/* Read @fd to EOF (or, with @nonblock_stop, to EAGAIN) into @t. */
static inline int pgf_read_all(int fd, struct pgf_trace *t)
{
	static char buf[65536], line[4096];
	size_t linelen = 0, lineno = 0;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		/* Whole lines only, every time. */
		if (buf[n - 1] != '\n')
			return -2;
		if (pgf_trace_feed(t, buf, n, line, &linelen, &lineno))
			return -1;
	}
	return n < 0 ? -errno : 0;
}

/*
 * Read a trace saved in a file (tracepgfault's) from @fd into @t: a
 * read() of a file ends wherever its buffer does, not at a line's end as
 * one of /proc/<pid>/pgfault_history does (pgf_read_all() checks that).
 */
static inline int pgf_read_file(int fd, struct pgf_trace *t)
{
	static char buf[65536], line[4096];
	size_t linelen = 0, lineno = 0;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (pgf_trace_feed(t, buf, n, line, &linelen, &lineno))
			return -1;
	return n < 0 ? -errno : linelen ? -2 : 0;
}

/* Counting helpers. */
static inline size_t pgf_count(const struct pgf_trace *t, const char *type)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		n += !strcmp(t->rec[i].type, type);
	return n;
}

/*
 * Fault and remote records that succeeded: what min_flt + maj_flt count,
 * with the lost FAULTS.
 */
static inline size_t pgf_ok_faults(const struct pgf_trace *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		n += (!strcmp(t->rec[i].type, "fault") ||
		      !strcmp(t->rec[i].type, "remote")) &&
		     (!strcmp(t->rec[i].result, "minor") ||
		      !strcmp(t->rec[i].result, "major") ||
		      !strcmp(t->rec[i].result, "reref"));
	return n;
}

static inline unsigned long long pgf_lost_faults(const struct pgf_trace *t)
{
	unsigned long long n = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rec[i].type, "lost"))
			n += t->rec[i].a;
	return n;
}

/* The other records @t says were lost (lost OTHER). */
static inline unsigned long long pgf_lost_other(const struct pgf_trace *t)
{
	unsigned long long n = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rec[i].type, "lost"))
			n += t->rec[i].b;
	return n;
}

#endif
