// SPDX-License-Identifier: GPL-2.0
/*
 * pgftrace - read and replay pgfault_history traces. See pgftrace.h.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ahead.h"
#include "pgfbin.h"
#include "pgfline.h"
#include "pgftrace.h"

const char *pgft_prog = "pgfreport";

/* Bytes of a binary trace read ahead at once: the longest record too. */
#define PGFB_BUF	(1 << 20)
/*
 * Bytes of a text trace read ahead at once, at first: room for a longer
 * line is made as it comes.
 */
#define TEXT_BUF	(1 << 18)

/* Digit values: 0-9, a-f and A-F; 0xff for anything else. */
static unsigned char digit[256];
static bool digits_ready;

static void init_digits(void)
{
	if (digits_ready)
		return;
	digits_ready = true;
	memset(digit, 0xff, sizeof(digit));
	for (int i = 0; i < 10; i++)
		digit['0' + i] = i;
	for (int i = 0; i < 6; i++)
		digit['a' + i] = digit['A' + i] = 10 + i;
}

/*
 * Reading the file failed (errno): the system's failure (no memory, an
 * I/O error), or the trace's (EBADMSG: a compressed stream cut short or
 * corrupt, zfile.h).
 */
static void read_error(struct pgft_reader *rd)
{
	int e = errno ? errno : EIO;

	rd->sys_errno = e == EBADMSG ? 0 : e;
	snprintf(rd->error, sizeof(rd->error), "%s: read error: %s", rd->fname,
		 strerror(e));
}

/* Binary bytes read ahead: ensure @need of them; 0 at a clean end. */
static int bin_fill(struct pgft_reader *rd, size_t need)
{
	size_t n;

	if (rd->blen - rd->bpos >= need)
		return 1;
	if (rd->bpos) {
		memmove(rd->bbuf, rd->bbuf + rd->bpos, rd->blen - rd->bpos);
		rd->blen -= rd->bpos;
		rd->bpos = 0;
	}
	while (rd->blen < need && !rd->beof) {
		n = fread(rd->bbuf + rd->blen, 1, PGFB_BUF - rd->blen, rd->f);
		rd->blen += n;
		if (!n) {
			if (ferror(rd->f)) {
				read_error(rd);
				return -1;
			}
			rd->beof = true;
		}
	}
	if (rd->blen >= need)
		return 1;
	if (!rd->blen)
		return 0;
	snprintf(rd->error, sizeof(rd->error),
		 "%s: record %llu: truncated: the file ends inside it",
		 rd->fname, rd->line + 1);
	return -1;
}

/*
 * The next binary record: 1 and its text in *@line (a line record), 2
 * and @r filled (a fault or cache record, where @r is not NULL), 0 at the
 * end, -1 with rd->error set.
 */
static int bin_next(struct pgft_reader *rd, char **line, struct pgft_rec *r)
{
	unsigned char *p;
	uint32_t len;
	size_t bytes;
	bool fixed;
	int ret = bin_fill(rd, 8);

	if (ret <= 0)
		return ret;
	p = rd->bbuf + rd->bpos;
	fixed = p[0] == PGFB_FAULT ||
		(p[0] == PGFB_CACHE && rd->bin_version >= 2) ||
		(p[0] == PGFB_FRAME && rd->bin_version >= 3);
	if (fixed && r) {
		bytes = pgfb_fixed_bytes(p[0]);
		if (bin_fill(rd, bytes) < 0)
			return -1;
		p = rd->bbuf + rd->bpos;
		if (!pgfb_get_fixed(p, r)) {
			snprintf(rd->error, sizeof(rd->error),
				 "%s: record %llu: malformed %s record",
				 rd->fname, rd->line + 1,
				 p[0] == PGFB_FAULT ? "fault" :
				 p[0] == PGFB_FRAME ? "frame" : "cache");
			return -1;
		}
		rd->bpos += bytes;
		rd->line++;
		if (rd->tap)
			rd->tap(rd->tap_arg, NULL, 0, p);
		return 2;
	}
	memcpy(&len, p + 4, 4);
	len = le32toh(len);
	if (p[0] != PGFB_LINE || p[1] || p[2] || p[3] ||
	    pgfb_line_bytes(len) > PGFB_BUF) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s: record %llu: %s", rd->fname, rd->line + 1,
			 fixed ? "a fault, frame or cache record where a header was due" :
			 "malformed record (type, length)");
		return -1;
	}
	bytes = pgfb_line_bytes(len);
	if (bin_fill(rd, bytes) < 0)
		return -1;
	p = rd->bbuf + rd->bpos;
	for (size_t i = 8; i < bytes; i++) {
		/* No NUL or newline in the text, zeros after it. */
		if (i < 8 + len ? !p[i] || p[i] == '\n' : p[i] != 0) {
			snprintf(rd->error, sizeof(rd->error),
				 "%s: record %llu: malformed line record",
				 rd->fname, rd->line + 1);
			return -1;
		}
	}
	if (rd->cap < len + 1) {
		char *b = realloc(rd->buf, len + 1);

		if (!b) {
			snprintf(rd->error, sizeof(rd->error), "out of memory");
			rd->sys_errno = ENOMEM;
			return -1;
		}
		rd->buf = b;
		rd->cap = len + 1;
	}
	memcpy(rd->buf, p + 8, len);
	rd->buf[len] = '\0';
	rd->bpos += bytes;
	rd->line++;
	if (rd->tap)
		rd->tap(rd->tap_arg, rd->buf, len, NULL);
	*line = rd->buf;
	return 1;
}

/*
 * Text read ahead: more bytes after the @keep from rd->bpos on, the line
 * begun there, which moves to the front (the buffer doubles if it is
 * that line whole). 1 if some came, 0 at the file's end, -1 out of
 * memory (rd->error set). A read error ends the file early, with
 * rd->text_errno set.
 */
static int text_fill(struct pgft_reader *rd, size_t keep)
{
	size_t n, want;

	if (rd->bpos) {
		memmove(rd->bbuf, rd->bbuf + rd->bpos, keep);
		rd->bpos = 0;
		rd->blen = keep;
		/* a NUL ends the bytes read for pgft_scan_fault() */
		rd->bbuf[rd->blen] = '\0';
	}
	if (rd->beof)
		return 0;
	if (rd->blen == rd->bcap) {
		unsigned char *b = realloc(rd->bbuf, 2 * rd->bcap + PGFT_SCAN_SLACK);

		if (!b) {
			errno = ENOMEM;
			read_error(rd);
			return -1;
		}
		/* zeros where pgft_scan_fault() may look past what is read */
		memset(b + rd->bcap + PGFT_SCAN_SLACK, 0, rd->bcap);
		rd->bbuf = b;
		rd->bcap *= 2;
	}
	want = rd->bcap - rd->blen;
	errno = 0;
	n = fread(rd->bbuf + rd->blen, 1, want, rd->f);
	rd->blen += n;
	/* a NUL ends the bytes read for pgft_scan_fault() */
	rd->bbuf[rd->blen] = '\0';
	if (n < want) {
		/* what it read comes first, as getline() would give it */
		rd->beof = true;
		if (ferror(rd->f))
			rd->text_errno = errno ? errno : EIO;
	}
	return n > 0;
}

/*
 * The next line of a text trace, without its newline: 1 and *@line (NUL
 * in place of the newline, valid until the next read), 0 at the end, -1
 * with rd->error set.
 */
static int text_line(struct pgft_reader *rd, char **line)
{
	size_t seen = 0, len;
	char *s, *nl;
	int ret;

	for (;;) {
		s = (char *)rd->bbuf + rd->bpos;
		nl = memchr(s + seen, '\n', rd->blen - rd->bpos - seen);
		if (nl)
			break;
		seen = rd->blen - rd->bpos;
		ret = text_fill(rd, seen);
		if (ret < 0)
			return -1;
		if (ret)
			continue;
		if (seen) {
			snprintf(rd->error, sizeof(rd->error),
				 "%s:%llu: truncated: the last line has no newline",
				 rd->fname, rd->line + 1);
			return -1;
		}
		if (rd->text_errno) {
			errno = rd->text_errno;
			read_error(rd);
			return -1;
		}
		return 0;
	}
	len = nl - s;
	*nl = '\0';
	rd->bpos += len + 1;
	rd->line++;
	if (rd->tap)
		rd->tap(rd->tap_arg, s, len, NULL);
	*line = s;
	return 1;
}

static int next_line(struct pgft_reader *rd, char **line)
{
	return rd->bin ? bin_next(rd, line, NULL) : text_line(rd, line);
}

/* A process's header in a tree file: the line after its first "pid". */
static int tree_header(struct pgft_reader *rd, int pid)
{
	unsigned long page_size;
	int version, hpid, ret;
	char *line;

	ret = next_line(rd, &line);
	if (ret <= 0) {
		if (!ret)
			snprintf(rd->error, sizeof(rd->error),
				 "%s:%llu: process %d has no header", rd->fname,
				 rd->line, pid);
		return -1;
	}
	if (sscanf(line, "pgfault_history %d pid %d page_size %lu", &version,
		   &hpid, &page_size) != 3 || hpid != pid) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:%llu: expected the header of process %d: \"%.80s\"",
			 rd->fname, rd->line, pid, line);
		return -1;
	}
	if (version < 1 || version > PGFT_VERSION) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:%llu: trace format version %d; this program reads versions 1 to %d",
			 rd->fname, rd->line, version, PGFT_VERSION);
		return -1;
	}
	if (rd->page_size && page_size != rd->page_size) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:%llu: process %d has page size %lu, the tree %lu",
			 rd->fname, rd->line, pid, page_size, rd->page_size);
		return -1;
	}
	if (!rd->page_size) {
		rd->version = version;
		rd->page_size = page_size;
	}
	if (rd->npids == rd->cap_pids) {
		size_t cap = rd->cap_pids ? 2 * rd->cap_pids : 16;
		int *p = realloc(rd->pids, cap * sizeof(*p));

		if (!p) {
			snprintf(rd->error, sizeof(rd->error), "out of memory");
			rd->sys_errno = ENOMEM;
			return -1;
		}
		rd->pids = p;
		rd->cap_pids = cap;
	}
	rd->pids[rd->npids++] = pid;
	return 0;
}

/* Where @pid's index + 1 is in rd->pid_slots, or the empty slot for it. */
static uint32_t *pid_slot(const struct pgft_reader *rd, int pid)
{
	size_t mask = rd->pid_nslots - 1, i = ((uint32_t)pid * 0x9e3779b9U) >> 7 & mask;

	while (rd->pid_slots[i] && rd->pids[rd->pid_slots[i] - 1] != pid)
		i = (i + 1) & mask;
	return &rd->pid_slots[i];
}

/* rd->pids[rd->npids - 1], just added, in the table: 0, or -1. */
static int pid_add(struct pgft_reader *rd)
{
	if (2 * rd->npids > rd->pid_nslots) {
		size_t n = rd->pid_nslots ? 2 * rd->pid_nslots : 64;
		uint32_t *v = calloc(n, sizeof(*v));

		if (!v) {
			snprintf(rd->error, sizeof(rd->error), "out of memory");
			rd->sys_errno = ENOMEM;
			return -1;
		}
		free(rd->pid_slots);
		rd->pid_slots = v;
		rd->pid_nslots = n;
		for (size_t i = 0; i + 1 < rd->npids; i++)
			*pid_slot(rd, rd->pids[i]) = i + 1;
	}
	*pid_slot(rd, rd->pids[rd->npids - 1]) = rd->npids;
	return 0;
}

/* "pid N": the lines after it are process N's. */
static int tree_switch(struct pgft_reader *rd, const char *line)
{
	char *end;
	long pid = strtol(line + 4, &end, 10);

	if (*end || pid <= 0 || pid > 0x7fffffff) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:%llu: malformed block: \"%.80s\"", rd->fname,
			 rd->line, line);
		return -1;
	}
	rd->cur = pid;
	if (rd->pid_nslots && *pid_slot(rd, pid))
		return 0;
	if (tree_header(rd, pid))
		return -1;
	return pid_add(rd);
}

static int open_tree(struct pgft_reader *rd, char *line)
{
	int version, n = 0;

	if (sscanf(line, "pgfault_history_tree %d root %d%n", &version,
		   &rd->pid, &n) != 2 || line[n] || rd->pid <= 0) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:1: malformed tree header", rd->fname);
		return -1;
	}
	if (version != 1) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:1: tree format version %d; this program reads version 1",
			 rd->fname, version);
		return -1;
	}
	rd->tree = true;
	if (next_line(rd, &line) <= 0 || strncmp(line, "pid ", 4) ||
	    tree_switch(rd, line) || rd->cur != rd->pid) {
		if (!rd->error[0])
			snprintf(rd->error, sizeof(rd->error),
				 "%s:2: the tree does not start with its root's trace",
				 rd->fname);
		return -1;
	}
	return 0;
}

/* The binary form's header, its first byte seen: 0, or -1. */
static int open_bin(struct pgft_reader *rd)
{
	const char *msg;
	int ret;

	rd->bin = true;
	rd->bbuf = malloc(PGFB_BUF);
	if (!rd->bbuf) {
		snprintf(rd->error, sizeof(rd->error), "out of memory");
		rd->sys_errno = ENOMEM;
		return -1;
	}
	rd->bcap = PGFB_BUF;
	ret = bin_fill(rd, PGFB_HEADER);
	if (ret < 0 && !rd->beof)
		return -1;
	msg = pgfb_check_header(rd->bbuf, rd->blen);
	if (msg) {
		snprintf(rd->error, sizeof(rd->error), "%s: %s", rd->fname, msg);
		return -1;
	}
	rd->bin_version = rd->bbuf[8] | rd->bbuf[9] << 8;	/* checked: 1 or 2 */
	rd->bpos = PGFB_HEADER;
	return 0;
}

int pgft_open(struct pgft_reader *rd, FILE *f, const char *fname)
{
	return pgft_open_tap(rd, f, fname, NULL, NULL);
}

int pgft_open_tap(struct pgft_reader *rd, FILE *f, const char *fname,
		  pgft_tap_fn tap, void *arg)
{
	char *line;
	int ret, c;

	memset(rd, 0, sizeof(*rd));
	init_digits();
	rd->f = f;
	rd->fname = fname;
	rd->tap = tap;
	rd->tap_arg = arg;
	c = getc(f);
	if (c == EOF && ferror(f)) {
		read_error(rd);
		return -1;
	}
	if (c != EOF && ungetc(c, f) == EOF) {
		rd->sys_errno = EIO;
		snprintf(rd->error, sizeof(rd->error), "%s: read error", fname);
		return -1;
	}
	if (c == (unsigned char)PGFB_MAGIC[0]) {
		if (open_bin(rd))
			return -1;
	} else {
		/* zeros after the bytes read, where pgft_scan_fault() looks */
		rd->bbuf = calloc(1, TEXT_BUF + PGFT_SCAN_SLACK);
		if (!rd->bbuf) {
			snprintf(rd->error, sizeof(rd->error), "out of memory");
			rd->sys_errno = ENOMEM;
			return -1;
		}
		rd->bcap = TEXT_BUF;
	}
	ret = next_line(rd, &line);
	if (ret <= 0) {
		if (!ret)
			snprintf(rd->error, sizeof(rd->error),
				 "%s: empty: no pgfault_history header", fname);
		return -1;
	}
	if (!strncmp(line, "pgfault_history_tree ", 21))
		return open_tree(rd, line);
	if (sscanf(line, "pgfault_history %d pid %d page_size %lu", &rd->version,
		   &rd->pid, &rd->page_size) != 3) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:1: not a pgfault_history trace (expected a header "
			 "\"pgfault_history VERSION pid PID page_size BYTES\")", fname);
		return -1;
	}
	if (rd->version < 1 || rd->version > PGFT_VERSION) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:1: trace format version %d; this program reads versions 1 to %d",
			 fname, rd->version, PGFT_VERSION);
		return -1;
	}
	return 0;
}

int pgft_tally_check(const struct pgft_tally *t, char *why, size_t size)
{
	if (t->end == PGFT_GOING) {
		snprintf(why, size, "has no exit or stop record: it was cut short "
			 "(a file copied while it was written, or a reader that "
			 "stopped before the end)");
		return 1;
	}
	if (t->end == PGFT_EXITED &&
	    (t->exit_kept != t->kept || t->exit_lost != t->lost)) {
		snprintf(why, size, "holds %llu faults and counts %llu lost where "
			 "its exit record says %llu and %llu: records are missing",
			 t->kept, t->lost, t->exit_kept, t->exit_lost);
		return 1;
	}
	if (t->end == PGFT_EXITED && t->exit_has_cache &&
	    t->exit_cache != t->cache) {
		snprintf(why, size, "holds %llu cache records where its exit "
			 "record says %llu: records are missing",
			 t->cache, t->exit_cache);
		return 1;
	}
	return 0;
}

void pgft_close(struct pgft_reader *rd)
{
	pgft_ahead_close(rd);
	free(rd->buf);
	rd->buf = NULL;
	free(rd->bbuf);
	rd->bbuf = NULL;
	free(rd->pids);
	rd->pids = NULL;
	free(rd->pid_slots);
	rd->pid_slots = NULL;
}

/* Split off the next space-separated field; NULL if none. */
static char *field(char **p)
{
	char *s = *p, *e;

	if (!s || !*s)
		return NULL;
	e = strchr(s, ' ');
	if (e) {
		*e = '\0';
		*p = e + 1;
	} else {
		*p = NULL;
	}
	return s;
}

/* A decimal or hex number ending at a space or the end; the hot path. */
static int num(char **p, int base, unsigned long long *v)
{
	const unsigned char *s = (const unsigned char *)*p, *start;
	unsigned long long x = 0;
	unsigned int d;

	if (!s)
		return -1;
	for (start = s; (d = digit[*s]) < (unsigned int)base; s++)
		x = x * base + d;
	/* Empty, not ending at a space, or too long to fit. */
	if (s == start || (*s && *s != ' ') ||
	    s - start > (base == 16 ? 16 : 19))
		return -1;
	*v = x;
	*p = *s ? (char *)s + 1 : NULL;
	return 0;
}

/*
 * One run of a refs record at *@p, "START+PAGES" then a space or the end;
 * 1 and the run, 0 at the end, -1 if malformed.
 */
static int parse_run(const char **p, unsigned long long *start,
		     unsigned long long *pages)
{
	const unsigned char *s = (const unsigned char *)*p, *b;
	unsigned long long a = 0, n = 0;

	if (!s || !*s)
		return 0;
	for (b = s; digit[*s] < 16; s++)
		a = a * 16 + digit[*s];
	if (s == b || s - b > 16 || *s != '+')
		return -1;
	for (b = ++s; digit[*s] < 10; s++)
		n = n * 10 + digit[*s];
	if (s == b || s - b > 19 || !n || (*s && *s != ' '))
		return -1;
	*start = a;
	*pages = n;
	*p = *s ? (const char *)s + 1 : NULL;
	return 1;
}

/* Every run of a refs record well formed, in address order; at least one. */
static int check_runs(const char *p, unsigned long long *nr)
{
	unsigned long long start, pages, prev = 0;
	int ret;

	*nr = 0;
	while ((ret = parse_run(&p, &start, &pages)) > 0) {
		if (*nr && start <= prev)
			return -1;
		prev = start;
		(*nr)++;
	}
	return ret < 0 || !*nr ? -1 : 0;
}

int pgft_run(const char **p, unsigned long long *start,
	     unsigned long long *pages)
{
	return parse_run(p, start, pages) > 0;
}

static int region(char **p, struct pgft_rec *r)
{
	char *perms, *dev;

	if (num(p, 10, &r->time) || num(p, 10, &r->id) || num(p, 16, &r->start) ||
	    num(p, 16, &r->end))
		return -1;
	perms = field(p);
	if (!perms || strlen(perms) != 4)
		return -1;
	memcpy(r->perms, perms, 5);
	if (num(p, 16, &r->offset))
		return -1;
	dev = field(p);
	if (!dev || sscanf(dev, "%x:%x", &r->major, &r->minor) != 2)
		return -1;
	if (num(p, 10, &r->inode))
		return -1;
	r->name = *p ? *p : "";
	return r->end > r->start ? 0 : -1;
}

/* The index of @s in @names (@n of them), or -1. */
static int name_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char * const pgft_level_names[PGFT_NLEVEL] = {
	[PGFT_PTE] = "pte", [PGFT_PMD] = "pmd", [PGFT_PUD] = "pud",
};

/* The end of a frame: ORDER LEVEL, the line's last fields; 0 or -1. */
static int order_level(char **p, struct pgft_rec *r)
{
	unsigned long long v;
	char *s;
	int k;

	if (num(p, 10, &v) || v > 63)
		return -1;
	r->order = v;
	s = field(p);
	k = s ? name_index(pgft_level_names, PGFT_NLEVEL, s) : -1;
	if (k < 0 || *p)
		return -1;
	r->level = k;
	r->has_frame = true;
	return 0;
}

/*
 * A fault's frame (version 8), after its IP: PFN NODE ORDER LEVEL; 0, or
 * -1 if it is not that. Only a fault /proc/<pid>/stat counts has one.
 */
static int frame(char **p, struct pgft_rec *r)
{
	unsigned long long v;

	if (!pgft_counted(r->result) || num(p, 16, &r->pfn) ||
	    r->pfn >= 1ULL << 40)
		return -1;
	if (*p && (*p)[0] == '-' && (*p)[1] == ' ') {
		r->node = PGFT_NO_NODE;
		*p += 2;
	} else if (num(p, 10, &v) || v >= 0x7ff) {
		return -1;
	} else {
		r->node = v;
	}
	return order_level(p, r);
}

const char * const pgft_change_names[PGFT_NCHANGE] = {
	[PGFT_MOVE] = "move", [PGFT_EVICT] = "evict", [PGFT_SPLIT] = "split",
	[PGFT_COLLAPSE] = "collapse", [PGFT_MAPPED] = "mapped",
};

/* A node field: a number below 0x7ff, or "-" for none. */
static int node_field(char **p, int *node)
{
	unsigned long long v;

	if (*p && (*p)[0] == '-' && ((*p)[1] == ' ' || !(*p)[1])) {
		*node = PGFT_NO_NODE;
		*p = (*p)[1] ? *p + 2 : NULL;
		return 0;
	}
	if (num(p, 10, &v) || v >= 0x7ff)
		return -1;
	*node = v;
	return 0;
}

/* A frame number field: below 2^40, or "-" for none. */
static int pfn_field(char **p, unsigned long long *pfn)
{
	if (*p && (*p)[0] == '-' && (*p)[1] == ' ') {
		*pfn = PGFT_NO_PFN;
		*p += 2;
		return 0;
	}
	return num(p, 16, pfn) || *pfn >= 1ULL << 40 ? -1 : 0;
}

/*
 * KIND T TID ADDR PAGES CAUSE NODE NEWNODE [PFN NEWPFN ORDER LEVEL]
 * (version 9), KIND read.
 */
static int change(char **p, struct pgft_rec *r)
{
	unsigned long long v;
	char *s;

	if (num(p, 10, &r->time) || num(p, 10, &v) || num(p, 16, &r->addr) ||
	    num(p, 10, &r->n[0]) || !r->n[0])
		return -1;
	r->tid = v;
	s = field(p);
	if (!s || node_field(p, &r->node) || node_field(p, &r->new_node))
		return -1;
	r->text = s;
	r->pfn = r->new_pfn = PGFT_NO_PFN;
	if (!*p)
		return 0;
	if (pfn_field(p, &r->pfn) || pfn_field(p, &r->new_pfn))
		return -1;
	return order_level(p, r);
}

const char * const pgft_cache_names[PGFT_NCACHE] = {
	[PGFT_HIT] = "hit", [PGFT_MISS] = "miss",
	[PGFT_READAHEAD] = "readahead", [PGFT_HOLE] = "hole",
	[PGFT_DIRECT] = "direct",
};

int pgft_parse(char *line, struct pgft_rec *r)
{
	static const char * const results[] = {
		[PGFT_MINOR] = "minor", [PGFT_MAJOR] = "major",
		[PGFT_REREF] = "reref",
		[PGFT_SIGSEGV] = "SIGSEGV", [PGFT_SIGBUS] = "SIGBUS",
		[PGFT_OOM] = "OOM",
	};
	char *p = line, *type = field(&p), *s;
	unsigned long long v;
	int k;

	init_digits();
	memset(r, 0, sizeof(*r));
	r->name = r->text = "";
	if (!type)
		return -1;
	if (type[0] == 'f' && !strcmp(type, "fault")) {
		/* The hot path: fault T TID ADDR r|w|x user|kernel RESULT IP */
		r->type = PGFT_FAULT;
		if (num(&p, 10, &r->time) || num(&p, 10, &v) || num(&p, 16, &r->addr) ||
		    !p || !strchr("rwx", p[0]) || !p[0] || p[1] != ' ')
			return -1;
		r->tid = v;
		r->access = p[0];
		p += 2;
		if (!strncmp(p, "user ", 5)) {
			p += 5;
		} else if (!strncmp(p, "kernel ", 7)) {
			r->kernel = true;
			p += 7;
		} else {
			return -1;
		}
		if (!strncmp(p, "minor ", 6)) {
			r->result = PGFT_MINOR;
			p += 6;
		} else {
			s = field(&p);
			k = s ? name_index(results, sizeof(results) / sizeof(results[0]), s) : -1;
			if (k < 0)
				return -1;
			r->result = k;
		}
		if (num(&p, 16, &r->ip))
			return -1;
		return p ? frame(&p, r) : 0;
	}
	if (!strcmp(type, "map") || !strcmp(type, "change")) {
		r->type = *type == 'm' ? PGFT_MAP : PGFT_CHANGE;
		return region(&p, r);
	}
	if (!strcmp(type, "unmap")) {
		r->type = PGFT_UNMAP;
		return num(&p, 10, &r->time) || num(&p, 10, &r->id) || p ? -1 : 0;
	}
	if (!strcmp(type, "layout")) {
		r->type = PGFT_LAYOUT;
		return num(&p, 10, &r->time) || num(&p, 10, &r->n[0]) || p ? -1 : 0;
	}
	if (!strcmp(type, "lost")) {
		r->type = PGFT_LOST;
		return num(&p, 10, &r->n[0]) || num(&p, 10, &r->n[1]) || p ? -1 : 0;
	}
	if (!strcmp(type, "start")) {
		/* start T, and since version 3 start T MODE */
		r->type = PGFT_START;
		if (num(&p, 10, &r->time))
			return -1;
		if (!p)
			return 0;
		r->text = field(&p);
		if (!r->text)
			return -1;
		/* "inherit" (version 5), "files" (version 7), in that order */
		while ((s = field(&p)) != NULL) {
			if (!strcmp(s, "inherit") && !r->n[0] && !r->n[2])
				r->n[0] = 1;
			else if (!strcmp(s, "files") && !r->n[2])
				r->n[2] = 1;
			else
				return -1;
		}
		if (!strcmp(r->text, "first"))
			return 0;
		/*
		 * interval=MS (version 3), window=PAGES (version 4), sample=MS
		 * (version 6)
		 */
		v = !strncmp(r->text, "interval=", 9) ? 9 :
		    !strncmp(r->text, "window=", 7) ? 7 :
		    !strncmp(r->text, "sample=", 7) ? 7 : 0;
		if (!v || !r->text[v] ||
		    strspn(r->text + v, "0123456789") != strlen(r->text + v))
			return -1;
		if (r->text[0] == 's') {
			r->n[1] = strtoull(r->text + v, NULL, 10);
			if (!r->n[1])
				return -1;
		}
		return 0;
	}
	if (!strcmp(type, "stop")) {
		r->type = PGFT_STOP;
		if (num(&p, 10, &r->time) || !p)
			return -1;
		r->text = p;
		return 0;
	}
	if (!strcmp(type, "exec")) {
		r->type = PGFT_EXEC;
		if (num(&p, 10, &r->time) || num(&p, 10, &v) || !p)
			return -1;
		r->tid = v;
		r->text = p;
		return 0;
	}
	if (!strcmp(type, "remote")) {
		/* remote T TID r|w RESULT: a fault on another address space */
		r->type = PGFT_REMOTE;
		if (num(&p, 10, &r->time) || num(&p, 10, &v) || !p ||
		    !strchr("rwx", p[0]) || !p[0] || p[1] != ' ')
			return -1;
		r->tid = v;
		r->access = p[0];
		p += 2;
		s = field(&p);
		k = s && !p ? name_index(results, sizeof(results) / sizeof(results[0]), s) : -1;
		if (k < 0)
			return -1;
		r->result = k;
		return 0;
	}
	if (!strcmp(type, "rearm")) {
		/* rearm T PAGES HOW */
		r->type = PGFT_REARM;
		if (num(&p, 10, &r->time) || num(&p, 10, &r->n[0]) || !p)
			return -1;
		r->text = field(&p);
		return !r->text || p ? -1 : 0;
	}
	if (!strcmp(type, "child")) {
		/* child T TID PID [untraced] (version 5) */
		r->type = PGFT_CHILD;
		if (num(&p, 10, &r->time) || num(&p, 10, &v) ||
		    num(&p, 10, &r->n[0]) || !r->n[0])
			return -1;
		r->tid = v;
		if (p) {
			if (strcmp(p, "untraced"))
				return -1;
			r->n[1] = 1;
		}
		return 0;
	}
	if (!strcmp(type, "refs")) {
		/* refs T TID START+PAGES... (version 6) */
		r->type = PGFT_REFS;
		if (num(&p, 10, &r->time) || num(&p, 10, &v) || !p)
			return -1;
		r->tid = v;
		r->text = p;
		return check_runs(p, &r->n[0]);
	}
	if (!strcmp(type, "sample")) {
		/* sample T TID SCANNED REFERENCED NS [flags] (version 6) */
		static const char * const flags[] = {
			"baseline", "incomplete", "stopped",
		};

		r->type = PGFT_SAMPLE;
		if (num(&p, 10, &r->time) || num(&p, 10, &v) ||
		    num(&p, 10, &r->n[0]) || num(&p, 10, &r->n[1]) ||
		    num(&p, 10, &r->n[2]) || r->n[1] > r->n[0])
			return -1;
		r->tid = v;
		while ((s = field(&p)) != NULL) {
			for (v = 0; v < 3; v++)
				if (!strcmp(s, flags[v]))
					break;
			/* Each once, in this order. */
			if (v == 3 || r->flags >> v)
				return -1;
			r->flags |= 1u << v;
		}
		return 0;
	}
	if (!strcmp(type, "cache")) {
		/* cache T TID FILE INDEX PAGES r|w HOW (version 7) */
		r->type = PGFT_CACHE;
		if (num(&p, 10, &r->time) || num(&p, 10, &v) ||
		    num(&p, 10, &r->id) || num(&p, 10, &r->start) ||
		    num(&p, 10, &r->n[0]) || !r->n[0] || !p ||
		    (p[0] != 'r' && p[0] != 'w') || p[1] != ' ')
			return -1;
		r->tid = v;
		r->access = p[0];
		p += 2;
		s = field(&p);
		k = s && !p ? name_index(pgft_cache_names, PGFT_NCACHE, s) : -1;
		if (k < 0)
			return -1;
		r->cache = k;
		return 0;
	}
	k = name_index(pgft_change_names, PGFT_NCHANGE, type);
	if (k >= 0) {
		r->type = PGFT_PAGES;
		r->change = k;
		return change(&p, r);
	}
	if (!strcmp(type, "file")) {
		/* file T ID MAJ:MIN INODE [PATH] (version 7) */
		r->type = PGFT_FILE;
		if (num(&p, 10, &r->time) || num(&p, 10, &r->id))
			return -1;
		s = field(&p);
		if (!s || sscanf(s, "%x:%x", &r->major, &r->minor) != 2 ||
		    num(&p, 10, &r->inode))
			return -1;
		r->name = p ? p : "";
		return 0;
	}
	if (!strcmp(type, "exit")) {
		/* exit T STATUS FAULTS LOST REGIONS [cache KEPT LOST] */
		r->type = PGFT_EXIT;
		if (num(&p, 10, &r->time) || num(&p, 10, &r->n[0]) ||
		    num(&p, 10, &r->n[1]) || num(&p, 10, &r->n[2]) ||
		    num(&p, 10, &r->n[3]))
			return -1;
		if (!p)
			return 0;
		s = field(&p);
		if (!s || strcmp(s, "cache") || num(&p, 10, &r->n[4]) ||
		    num(&p, 10, &r->n[5]) || p)
			return -1;
		r->flags |= PGFT_EXIT_CACHE;
		return 0;
	}
	return -1;
}

/*
 * @r zero but for the fields pgft_scan_fault() sets, as pgft_parse()
 * leaves them, field by field: a memset() of the whole record is a "rep
 * stos", a good part of the cost of a line.
 */
static inline void scan_clear(struct pgft_rec *r)
{
	r->pid = 0;
	r->change = 0;
	r->new_node = 0;
	r->new_pfn = 0;
	r->id = r->start = r->end = r->offset = r->inode = 0;
	r->major = r->minor = 0;
	memset(r->perms, 0, sizeof(r->perms));
	r->name = "";
	r->cache = 0;
	memset(r->n, 0, sizeof(r->n));
	r->flags = 0;
	r->text = "";
}

int pgft_next(struct pgft_reader *rd, struct pgft_rec *r)
{
	char *line;
	int ret;

	/* @r is written whole, perhaps not as a fault */
	rd->fault_in = rd->line_in = rd->ahead_in = NULL;
	if (rd->ahead)
		return pgft_ahead_next(rd, r);
	/* The hot path: a fault record read ahead, and nobody tapping. */
	if (rd->bin && !rd->tap && rd->blen - rd->bpos >= PGFB_FAULT_BYTES &&
	    pgfb_get_fault(rd->bbuf + rd->bpos, r)) {
		rd->bpos += PGFB_FAULT_BYTES;
		rd->line++;
		r->pid = rd->tree ? rd->cur : rd->pid;
		return 1;
	}
	/* A fault or cache line read ahead, read where it lies (pgfline.h). */
	if (!rd->bin && !rd->tap && rd->bpos < rd->blen) {
		const char *s = (const char *)rd->bbuf + rd->bpos;
		size_t n;

		scan_clear(r);
		n = pgft_scan_fault(s, r);
		if (!n)
			n = pgft_scan_cache(s, r);
		if (n) {
			rd->bpos += n;
			rd->line++;
			r->pid = rd->tree ? rd->cur : rd->pid;
			return 1;
		}
	}
	for (;;) {
		ret = rd->bin ? bin_next(rd, &line, r) : next_line(rd, &line);
		if (ret == 2) {
			r->pid = rd->tree ? rd->cur : rd->pid;
			return 1;
		}
		if (ret <= 0 || !rd->tree || line[0] != 'p' ||
		    strncmp(line, "pid ", 4))
			break;
		if (tree_switch(rd, line))
			return -1;
	}
	if (ret <= 0)
		return ret;
	if (pgft_parse(line, r)) {
		snprintf(rd->error, sizeof(rd->error),
			 "%s:%llu: malformed record: \"%.200s\"", rd->fname,
			 rd->line, line);
		return -1;
	}
	r->pid = rd->tree ? rd->cur : rd->pid;
	return 1;
}

/* ---- replay ---------------------------------------------------------- */

/*
 * Regions by id: an open-addressed table of indices into s->v, so that a
 * replay is O(1) a record at any number of regions. Sorting s->v moves
 * every index: the table is rebuilt at the next lookup.
 */
static size_t *id_slot(struct pgft_space *s, unsigned long long id)
{
	size_t mask = s->slots - 1, i = (id * 0x9e3779b97f4a7c15ULL) >> 17 & mask;

	while (s->slot[i] && s->v[s->slot[i] - 1].id != id)
		i = (i + 1) & mask;
	return &s->slot[i];
}

/* The table by id, for @want regions: 0, or -1 out of memory (as it was). */
static int id_rebuild(struct pgft_space *s, size_t want)
{
	size_t slots = s->slots ? s->slots : 256;

	while (slots < 2 * want)
		slots *= 2;
	if (slots != s->slots) {
		size_t *n = malloc(slots * sizeof(*n));

		if (!n)
			return -1;
		free(s->slot);
		s->slot = n;
		s->slots = slots;
	}
	memset(s->slot, 0, slots * sizeof(*s->slot));
	for (size_t i = 0; i < s->nr; i++)
		*id_slot(s, s->v[i].id) = i + 1;
	s->slots_stale = false;
	return 0;
}

/* The slot of @id, the table fit for one more region; NULL out of memory. */
static size_t *by_id_slot(struct pgft_space *s, unsigned long long id)
{
	if ((s->slots_stale || s->slots < 2 * (s->nr + 1)) &&
	    id_rebuild(s, s->nr + 1))
		return NULL;
	return id_slot(s, id);
}

/* Empty @slot, and move up the run of slots after it that it held back. */
static void id_remove(struct pgft_space *s, size_t *slot)
{
	size_t mask = s->slots - 1, i = slot - s->slot, j = i, k;

	s->slot[i] = 0;
	for (;;) {
		j = (j + 1) & mask;
		if (!s->slot[j])
			return;
		k = (s->v[s->slot[j] - 1].id * 0x9e3779b97f4a7c15ULL) >> 17 & mask;
		/* Leave it if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->slot[i] = s->slot[j];
		s->slot[j] = 0;
		i = j;
	}
}

/* 0, or -1 when its name finds no memory (the region is then nameless). */
static int set_region(struct pgft_region *g, const struct pgft_rec *r)
{
	free(g->name);
	g->id = r->id;
	g->start = r->start;
	g->end = r->end;
	g->offset = r->offset;
	g->inode = r->inode;
	g->major = r->major;
	g->minor = r->minor;
	memcpy(g->perms, r->perms, 5);
	g->name = strdup(r->name);
	return g->name ? 0 : -1;
}

static void clear(struct pgft_space *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].name);
	s->nr = 0;
	s->slots_stale = true;
	memset(s->memo, 0, sizeof(s->memo));
}

int pgft_apply(struct pgft_space *s, const struct pgft_rec *r)
{
	struct pgft_region *g;
	size_t *slot;

	switch (r->type) {
	case PGFT_LAYOUT:
		clear(s);
		s->layout_left = r->n[0];
		break;
	case PGFT_EXEC:
		clear(s);
		break;
	case PGFT_MAP:
	case PGFT_CHANGE:
		if (s->layout_left)
			s->layout_left--;
		slot = by_id_slot(s, r->id);
		if (!slot)
			return -1;
		if (!*slot) {
			if (s->nr == s->cap) {
				size_t cap = s->cap ? 2 * s->cap : 64;
				struct pgft_region *v = realloc(s->v, cap * sizeof(*v));

				if (!v)
					return -1;
				s->v = v;
				s->cap = cap;
			}
			g = &s->v[s->nr++];
			g->name = NULL;
			g->id = r->id;
			*slot = s->nr;
		}
		s->dirty = true;
		return set_region(&s->v[*slot - 1], r);
	case PGFT_UNMAP:
		slot = by_id_slot(s, r->id);
		if (!slot)
			return -1;
		if (*slot) {
			size_t i = *slot - 1;

			free(s->v[i].name);
			id_remove(s, slot);
			if (i != --s->nr) {
				s->v[i] = s->v[s->nr];
				*id_slot(s, s->v[i].id) = i + 1;
			}
			s->dirty = true;
		}
		break;
	default:
		break;
	}
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct pgft_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void pgft_sort(struct pgft_space *s)
{
	if (s->dirty) {
		qsort(s->v, s->nr, sizeof(*s->v), cmp_start);
		s->slots_stale = true;
		memset(s->memo, 0, sizeof(s->memo));
	}
	s->dirty = false;
}

void pgft_space_free(struct pgft_space *s)
{
	clear(s);
	free(s->v);
	s->v = NULL;
	s->cap = 0;
	free(s->slot);
	s->slot = NULL;
	s->slots = 0;
}
