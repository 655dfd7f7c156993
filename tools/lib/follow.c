// SPDX-License-Identifier: GPL-2.0
/*
 * follow - read the traces of a process tree into one output. See follow.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/pgfault_history.h>
#include "follow.h"
#include "zfile.h"

#define FOLLOW_READ	(64 * 1024)
#define FOLLOW_OUT	(1024 * 1024)

struct follow_proc {
	int fd;
	int pid;		/* from its header; 0 until read */
	bool eof;
	char *buf;		/* read, not yet written */
	size_t len, cap;
	size_t off;		/* the next line to write */
	size_t lines;		/* the end of the whole lines */
	unsigned long long last;	/* time of the last line written */
};

static int flush(struct follow *f)
{
	const char *p = f->obuf;
	size_t n = f->olen;
	ssize_t w;

	if (f->zw && n) {
		if (zwriter_write(f->zw, p, n)) {
			snprintf(f->error, sizeof(f->error), "writing %s: %s",
				 f->outname, strerror(errno));
			return -1;
		}
		n = 0;
	}
	while (n) {
		w = write(f->out, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			snprintf(f->error, sizeof(f->error), "writing %s: %s",
				 f->outname, strerror(errno));
			return -1;
		}
		p += w;
		n -= w;
	}
	f->olen = 0;
	return 0;
}

/* Lines are at most a few KiB: the buffer always has room after a flush. */
static int put(struct follow *f, const char *s, size_t n)
{
	if (f->olen + n > FOLLOW_OUT && flush(f))
		return -1;
	memcpy(f->obuf + f->olen, s, n);
	f->olen += n;
	return 0;
}

static int add(struct follow *f, int fd)
{
	struct follow_proc *p;

	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;

		p = realloc(f->p, cap * sizeof(*p));
		if (!p) {
			snprintf(f->error, sizeof(f->error), "out of memory");
			return -1;
		}
		f->p = p;
		f->cap = cap;
	}
	p = &f->p[f->n++];
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	f->processes++;
	return 0;
}

int follow_init(struct follow *f, int out, const char *outname, int fd,
		int root)
{
	char hdr[96];
	int n;

	memset(f, 0, sizeof(*f));
	f->out = out;
	f->outname = outname;
	f->obuf = malloc(FOLLOW_OUT);
	if (!f->obuf || add(f, fd))
		return -1;
	n = snprintf(hdr, sizeof(hdr), FOLLOW_TREE_MAGIC " %d root %d\n",
		     FOLLOW_TREE_VERSION, root);
	return put(f, hdr, n);
}

void follow_free(struct follow *f)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->p[i].fd >= 0)
			close(f->p[i].fd);
		free(f->p[i].buf);
	}
	free(f->p);
	free(f->obuf);
	memset(f, 0, sizeof(*f));
}

/* Claim the child @pid (0: any left) of trace @i; 1 if one was, 0 if none. */
static int claim(struct follow *f, size_t i, unsigned long pid)
{
	int fd = ioctl(f->p[i].fd, PGFAULT_HISTORY_IOC_CHILD, pid);

	if (fd < 0) {
		if (errno == ENOENT && !pid)
			return 0;
		/* EBUSY: someone else reads it; ENOENT: claimed already. */
		fprintf(stderr, "tracepgfault: cannot follow process %lu: %s\n",
			pid, strerror(errno));
		f->unfollowed++;
		return 0;
	}
	if (add(f, fd)) {
		close(fd);
		return -1;
	}
	return 1;
}

/* The time of a line: its second field; a "lost" line keeps the last. */
static unsigned long long line_time(struct follow_proc *p, const char *l)
{
	unsigned long long t = 0;
	const char *s = strchr(l, ' ');

	if (!strncmp(l, "lost ", 5) || !strncmp(l, "pgfault_history ", 16) ||
	    !s)
		return p->last;
	for (s++; *s >= '0' && *s <= '9'; s++)
		t = t * 10 + (*s - '0');
	return t;
}

/* Write the next line of trace @i; follow a child it records. */
static int write_line(struct follow *f, size_t i)
{
	struct follow_proc *p = &f->p[i];
	char *l = p->buf + p->off, *nl = memchr(l, '\n', p->lines - p->off);
	size_t n = nl - l + 1;
	unsigned long long t, tid, child;
	char sw[32], rest[16];
	int k;

	if (!p->pid && sscanf(l, "pgfault_history %*d pid %d", &p->pid) != 1) {
		snprintf(f->error, sizeof(f->error),
			 "a trace does not start with its header: \"%.60s\"", l);
		return -1;
	}
	if (f->cur != p->pid) {
		k = snprintf(sw, sizeof(sw), "pid %d\n", p->pid);
		if (put(f, sw, k))
			return -1;
		f->cur = p->pid;
	}
	p->last = line_time(p, l);
	if (put(f, l, n))
		return -1;
	p->off += n;
	if (f->line && strncmp(l, "pgfault_history ", 16))
		f->line(f->ctx, l, n - 1);
	if (!strncmp(l, "child ", 6)) {
		*nl = '\0';
		k = sscanf(l, "child %llu %llu %llu %15s", &t, &tid, &child, rest);
		*nl = '\n';
		if (k == 4)
			f->untraced++;
		else if (k == 3 && claim(f, i, child) < 0)
			return -1;
	}
	return 0;
}

/* Write every whole line read, merged by time. */
static int merge(struct follow *f)
{
	unsigned long long best_t, t;
	size_t i, best;

	for (;;) {
		best = f->n;
		best_t = 0;
		for (i = 0; i < f->n; i++) {
			struct follow_proc *p = &f->p[i];

			if (p->off == p->lines)
				continue;
			t = line_time(p, p->buf + p->off);
			if (best == f->n || t < best_t) {
				best = i;
				best_t = t;
			}
		}
		if (best == f->n)
			break;
		if (write_line(f, best))
			return -1;
	}
	/* Keep the partial lines. */
	for (i = 0; i < f->n; i++) {
		struct follow_proc *p = &f->p[i];

		if (!p->buf)
			continue;
		memmove(p->buf, p->buf + p->off, p->len - p->off);
		p->len -= p->off;
		p->off = 0;
		p->lines = 0;
	}
	return flush(f);
}

static void stop_all(struct follow *f)
{
	char path[64];
	int fd;

	f->stopping = true;
	for (size_t i = 0; i < f->n; i++) {
		if (f->p[i].eof || !f->p[i].pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/pgfault_history",
			 f->p[i].pid);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, "0", 1) != 1 && errno != ESRCH)
				fprintf(stderr, "tracepgfault: stopping the trace of %d: %s\n",
					f->p[i].pid, strerror(errno));
			close(fd);
		}
	}
}

/* Read what trace @i has; 0, or -1 on error. */
static int fill(struct follow *f, size_t i)
{
	struct follow_proc *p = &f->p[i];
	ssize_t n;
	char *nl;
	int r;

	if (p->cap - p->len < FOLLOW_READ) {
		char *b = realloc(p->buf, p->len + FOLLOW_READ);

		if (!b) {
			snprintf(f->error, sizeof(f->error), "out of memory");
			return -1;
		}
		p->buf = b;
		p->cap = p->len + FOLLOW_READ;
	}
	n = read(p->fd, p->buf + p->len, p->cap - p->len);
	if (n < 0 && errno == EAGAIN && f->stopping)
		n = 0;		/* stopped and drained */
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		snprintf(f->error, sizeof(f->error), "reading the trace of %d: %s",
			 p->pid, strerror(errno));
		return -1;
	}
	if (n == 0) {
		p->eof = true;
		if (p->len) {
			snprintf(f->error, sizeof(f->error),
				 "the trace of %d ends in a partial line", p->pid);
			return -1;
		}
		/* A child whose record was lost is still followed. */
		while ((r = claim(f, i, 0)) > 0)
			f->unrecorded++;
		if (r < 0)
			return -1;
		close(f->p[i].fd);
		f->p[i].fd = -1;
		free(f->p[i].buf);
		f->p[i].buf = NULL;
		f->p[i].cap = 0;
		return 0;
	}
	p->len += n;
	nl = memrchr(p->buf, '\n', p->len);
	p->lines = nl ? (size_t)(nl - p->buf) + 1 : 0;
	return 0;
}

int follow_run(struct follow *f, volatile sig_atomic_t *interrupted)
{
	struct pollfd *pfd = NULL;
	size_t *map = NULL, n, i, cap = 0;
	int ret = -1;

	for (;;) {
		if (interrupted && *interrupted && !f->stopping)
			stop_all(f);
		if (cap < f->n) {
			cap = f->cap;
			pfd = realloc(pfd, cap * sizeof(*pfd));
			map = realloc(map, cap * sizeof(*map));
			if (!pfd || !map) {
				snprintf(f->error, sizeof(f->error), "out of memory");
				goto out;
			}
		}
		n = 0;
		for (i = 0; i < f->n; i++) {
			if (f->p[i].eof)
				continue;
			pfd[n].fd = f->p[i].fd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			map[n++] = i;
		}
		if (!n)
			break;
		if (poll(pfd, n, f->stopping ? 0 : f->tick ? f->tick_ms : -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(f->error, sizeof(f->error), "poll: %s",
				 strerror(errno));
			goto out;
		}
		for (i = 0; i < n; i++)
			if ((pfd[i].revents || f->stopping) && fill(f, map[i]))
				goto out;
		if (merge(f))
			goto out;
		if (f->tick)
			f->tick(f->ctx, f);
	}
	ret = flush(f);
out:
	free(pfd);
	free(map);
	return ret;
}
