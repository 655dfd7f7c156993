// SPDX-License-Identifier: GPL-2.0
/*
 * The trace as text: one line per record, in the format of
 * include/uapi/linux/pgfault_history.h. The reader of
 * /proc/<pid>/pgfault_history (proc.c) formats each record it takes with
 * pgf_format_rec().
 */
#ifdef PGF_STAGE_PHYS
#include <linux/bitfield.h>
#endif
#include <linux/bug.h>
#include <linux/hex.h>
#include <linux/kernel.h>
#ifdef PGF_STAGE_CHANGES
#include <linux/migrate_mode.h>
#endif
#include <linux/sprintf.h>
#include <linux/string.h>
#include <uapi/linux/pgfault_history.h>

#include "internal.h"

static const char * const pgf_access[] = { "r", "w", "x", "?" };
static const char * const pgf_results[] = {
	[PGF_RESULT_MINOR]	= "minor",
	[PGF_RESULT_MAJOR]	= "major",
#ifdef PGF_STAGE_REARM
	[PGF_RESULT_REREF]	= "reref",
#endif
	[PGF_RESULT_SIGSEGV]	= "SIGSEGV",
	[PGF_RESULT_SIGBUS]	= "SIGBUS",
	[PGF_RESULT_OOM]	= "OOM",
};

#ifdef PGF_STAGE_REARM
static const char * const pgf_rearm_hows[] = {
	[PGF_REARM_USER]	= "user",
	[PGF_REARM_INTERVAL]	= "interval",
#ifdef PGF_STAGE_WINDOW
	[PGF_REARM_WINDOW]	= "window",
#endif
};
#endif

static const char * const pgf_stop_reasons[] = {
	[PGF_STOP_USER]		= "user",
	[PGF_STOP_CREDENTIALS]	= "credentials",
};

/* Escape newlines in @src as \012, as /proc/<pid>/maps does. */
static int pgf_escape(char *dst, size_t size, const char *src)
{
	size_t n = 0;

	for (; *src && n + 5 < size; src++) {
		if (*src == '\n') {
			memcpy(dst + n, "\\012", 4);
			n += 4;
		} else {
			dst[n++] = *src;
		}
	}
	dst[n] = '\0';
	return n;
}

static const char *pgf_name(const char * const *names, size_t nr,
			    unsigned int i)
{
	return i < nr && names[i] ? names[i] : "?";
}

#ifdef PGF_STAGE_REGIONS
/* map|change TIME ID START END PERMS OFFSET MAJ:MIN INODE [NAME] */
static int pgf_format_region(const struct pgf_rec *r, char *s, size_t size)
{
	const struct pgf_region_rec *rr =
		container_of(r, struct pgf_region_rec, rec);
	int n;

	n = scnprintf(s, size, "%s %llu %llu %llx %llx %c%c%c%c %llx %02x:%02x %llu",
		      r->type == PGF_REC_MAP ? "map" : "change", r->time,
		      rr->id, r->a, r->b,
		      r->flags & PGF_PROT_READ ? 'r' : '-',
		      r->flags & PGF_PROT_WRITE ? 'w' : '-',
		      r->flags & PGF_PROT_EXEC ? 'x' : '-',
		      r->flags & PGF_PROT_SHARED ? 's' : 'p',
		      rr->offset, rr->major, rr->minor, rr->ino);
	if (rr->name[0]) {
		s[n++] = ' ';
		n += pgf_escape(s + n, size - n - 1, rr->name);
	}
	s[n++] = '\n';
	return n;
}
#endif

/*
 * Fault lines are nearly the whole trace, and the reader's time goes into
 * formatting them: they are put together by hand rather than through
 * vsnprintf(), into a buffer known to hold the longest one.
 */
#define PGF_FAULT_LINE_MAX	128

static char *pgf_put_dec(char *p, u64 v)
{
	return p + num_to_str(p, 21, v, 0);
}

static char *pgf_put_hex(char *p, u64 v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = hex_asc[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *pgf_put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

#ifdef PGF_STAGE_PHYS
static const char * const pgf_levels[] = {
	[PGF_LEVEL_PTE]		= "pte",
	[PGF_LEVEL_PMD]		= "pmd",
	[PGF_LEVEL_PUD]		= "pud",
};

/* " PFN NODE ORDER LEVEL" of a fault's frame */
static char *pgf_put_frame(char *p, u64 frame)
{
	u64 node = FIELD_GET(PGF_FRAME_NODE, frame);

	*p++ = ' ';
	p = pgf_put_hex(p, FIELD_GET(PGF_FRAME_PFN, frame));
	*p++ = ' ';
	if (node == PGF_FRAME_NO_NODE)
		*p++ = '-';
	else
		p = pgf_put_dec(p, node);
	*p++ = ' ';
	p = pgf_put_dec(p, FIELD_GET(PGF_FRAME_ORDER, frame));
	*p++ = ' ';
	return pgf_put_str(p, pgf_name(pgf_levels, ARRAY_SIZE(pgf_levels),
				       FIELD_GET(PGF_FRAME_LEVEL, frame)));
}

/*
 * "fault TIME TID ADDR ACCESS MODE RESULT IP [PFN NODE ORDER LEVEL]\n",
 * the frame if the record has one and @frames says the reader may see it
 */
static int pgf_format_fault(const struct pgf_rec *r, char *s, bool frames)
#else
/* "fault TIME TID ADDR ACCESS MODE RESULT IP\n" */
static int pgf_format_fault(const struct pgf_rec *r, char *s)
#endif
{
	char *p = pgf_put_str(s, "fault ");

	p = pgf_put_dec(p, r->time);
	*p++ = ' ';
	p = pgf_put_dec(p, r->tid);
	*p++ = ' ';
	p = pgf_put_hex(p, r->a);
	*p++ = ' ';
	p = pgf_put_str(p, pgf_access[r->flags & PGF_ACCESS_MASK]);
	p = pgf_put_str(p, r->flags & PGF_FAULT_KERNEL ? " kernel " : " user ");
	p = pgf_put_str(p, pgf_name(pgf_results, ARRAY_SIZE(pgf_results),
				    r->flags >> PGF_FAULT_RESULT_SHIFT));
	*p++ = ' ';
	p = pgf_put_hex(p, r->b);
#ifdef PGF_STAGE_PHYS
	if (frames && r->len == sizeof(struct pgf_fault_rec))
		p = pgf_put_frame(p, container_of(r, struct pgf_fault_rec,
						  rec)->frame);
#endif
	*p++ = '\n';
	return p - s;
}

#ifdef PGF_STAGE_CHANGES
static const char * const pgf_change_kinds[] = {
	[PGF_CHANGE_MOVE]	= "move",
	[PGF_CHANGE_EVICT]	= "evict",
	[PGF_CHANGE_SPLIT]	= "split",
	[PGF_CHANGE_COLLAPSE]	= "collapse",
	[PGF_CHANGE_MAPPED]	= "mapped",
};

static const char * const pgf_move_causes[] = {
	[MR_COMPACTION]		= "compaction",
	[MR_MEMORY_FAILURE]	= "memory_failure",
	[MR_MEMORY_HOTPLUG]	= "hotplug",
	[MR_SYSCALL]		= "syscall",
	[MR_MEMPOLICY_MBIND]	= "mbind",
	[MR_NUMA_MISPLACED]	= "numa",
	[MR_CONTIG_RANGE]	= "contig",
	[MR_LONGTERM_PIN]	= "longterm_pin",
	[MR_DEMOTION]		= "demotion",
	[MR_DAMON]		= "damon",
	[PGF_MOVE_KSM]		= "ksm",
	[PGF_MOVE_ZERO]		= "zero",
	[PGF_MOVE_DEVICE]	= "device",
};

static const char * const pgf_evict_causes[] = {
	[PGF_EVICT_KSWAPD]	= "kswapd",
	[PGF_EVICT_DIRECT]	= "direct",
	[PGF_EVICT_PAGEOUT]	= "pageout",
	[PGF_EVICT_SPLIT]	= "split",
	[PGF_EVICT_COLLAPSE]	= "collapse",
	[PGF_EVICT_TRUNCATE]	= "truncate",
	[PGF_EVICT_HWPOISON]	= "hwpoison",
};

static const char * const pgf_collapse_causes[] = {
	[PGF_COLLAPSE_KHUGEPAGED]	= "khugepaged",
	[PGF_COLLAPSE_MADVISE]		= "madvise",
};

static const char * const pgf_mapped_causes[] = {
	[PGF_MAPPED_REMOTE]	= "remote",
	[PGF_MAPPED_AROUND]	= "around",
};

static const char *pgf_change_cause(unsigned int kind, unsigned int cause)
{
	switch (kind) {
	case PGF_CHANGE_MOVE:
		return pgf_name(pgf_move_causes, ARRAY_SIZE(pgf_move_causes),
				cause);
	case PGF_CHANGE_EVICT:
		return pgf_name(pgf_evict_causes, ARRAY_SIZE(pgf_evict_causes),
				cause);
	case PGF_CHANGE_COLLAPSE:
		return pgf_name(pgf_collapse_causes,
				ARRAY_SIZE(pgf_collapse_causes), cause);
	case PGF_CHANGE_MAPPED:
		return pgf_name(pgf_mapped_causes,
				ARRAY_SIZE(pgf_mapped_causes), cause);
	default:
		return "-";
	}
}

/* A change record's frame field: its node, or its frame number. */
static int pgf_put_frame_field(char *s, size_t size, u64 frame, bool pfn)
{
	u64 node = FIELD_GET(PGF_FRAME_NODE, frame);

	if (!frame || (!pfn && node == PGF_FRAME_NO_NODE))
		return scnprintf(s, size, " -");
	if (!pfn)
		return scnprintf(s, size, " %llu", node);
	return scnprintf(s, size, " %llx", FIELD_GET(PGF_FRAME_PFN, frame));
}

/*
 * "KIND TIME TID ADDR PAGES CAUSE NODE NEWNODE [PFN NEWPFN ORDER LEVEL]":
 * the frame numbers, and the order and level of the new mapping (the old
 * one's for an eviction), if the record has them and @frames says the
 * reader may see them.
 */
static int pgf_format_change(const struct pgf_rec *r, char *s, size_t size,
			     bool frames)
{
	const struct pgf_change_rec *cr =
		container_of(r, struct pgf_change_rec, rec);
	unsigned int kind = FIELD_GET(PGF_CHANGE_KIND, r->flags);
	u64 last = cr->new ?: cr->old;
	int n;

	n = scnprintf(s, size, "%s %llu %u %llx %llu %s",
		      pgf_name(pgf_change_kinds, ARRAY_SIZE(pgf_change_kinds),
			       kind),
		      r->time, r->tid, r->a, r->b,
		      pgf_change_cause(kind,
				       FIELD_GET(PGF_CHANGE_CAUSE, r->flags)));
	n += pgf_put_frame_field(s + n, size - n, cr->old, false);
	n += pgf_put_frame_field(s + n, size - n, cr->new, false);
	if (frames && !((cr->old | cr->new) & PGF_FRAME_HIDDEN)) {
		n += pgf_put_frame_field(s + n, size - n, cr->old, true);
		n += pgf_put_frame_field(s + n, size - n, cr->new, true);
		n += scnprintf(s + n, size - n, " %llu %s",
			       FIELD_GET(PGF_FRAME_ORDER, last),
			       pgf_name(pgf_levels, ARRAY_SIZE(pgf_levels),
					FIELD_GET(PGF_FRAME_LEVEL, last)));
	}
	return n + scnprintf(s + n, size - n, "\n");
}
#endif

#ifdef PGF_STAGE_SAMPLE
/* "refs TIME TID START+PAGES..." */
static int pgf_format_refs(const struct pgf_rec *r, char *s, size_t size)
{
	const struct pgf_run *run = (const struct pgf_run *)r->data;
	u64 i, nr = min_t(u64, r->a, (r->len - sizeof(*r)) / sizeof(*run));
	int n;

	n = scnprintf(s, size, "refs %llu %u", r->time, r->tid);
	for (i = 0; i < nr; i++)
		n += scnprintf(s + n, size - n, " %llx+%llu", run[i].start,
			       run[i].pages);
	s[n++] = '\n';
	return n;
}

/* "sample TIME TID SCANNED REFERENCED NS [baseline] [incomplete] [stopped]" */
static int pgf_format_sample(const struct pgf_rec *r, char *s, size_t size)
{
	const struct pgf_sample_rec *sr =
		container_of(r, struct pgf_sample_rec, rec);

	return scnprintf(s, size, "sample %llu %u %llu %llu %llu%s%s%s\n",
			 r->time, r->tid, r->a, r->b, sr->ns,
			 r->flags & PGF_SAMPLE_BASELINE ? " baseline" : "",
			 r->flags & PGF_SAMPLE_INCOMPLETE ? " incomplete" : "",
			 r->flags & PGF_SAMPLE_STOPPED ? " stopped" : "");
}
#endif

#ifdef PGF_STAGE_FILES
static const char * const pgf_cache_hows[] = {
	[PGF_CACHE_HIT]		= "hit",
	[PGF_CACHE_MISS]	= "miss",
	[PGF_CACHE_READAHEAD]	= "readahead",
	[PGF_CACHE_HOLE]	= "hole",
	[PGF_CACHE_DIRECT]	= "direct",
};

/* "file TIME ID MAJOR:MINOR INODE [PATH]" */
static int pgf_format_file(const struct pgf_rec *r, char *s, size_t size)
{
	const struct pgf_file_rec *fr =
		container_of(r, struct pgf_file_rec, rec);
	int n;

	n = scnprintf(s, size, "file %llu %llu %02x:%02x %llu", r->time, r->a,
		      fr->major, fr->minor, r->b);
	if (fr->name[0]) {
		s[n++] = ' ';
		n += pgf_escape(s + n, size - n - 1, fr->name);
	}
	s[n++] = '\n';
	return n;
}

/* "cache TIME TID FILE INDEX PAGES ACCESS HOW" */
static int pgf_format_cache(const struct pgf_rec *r, char *s, size_t size)
{
	const struct pgf_cache_rec *cr =
		container_of(r, struct pgf_cache_rec, rec);

	return scnprintf(s, size, "cache %llu %u %llu %llu %llu %s %s\n",
			 r->time, r->tid, r->a, r->b, cr->pages,
			 r->flags & PGF_CACHE_WRITE ? "w" : "r",
			 pgf_name(pgf_cache_hows, ARRAY_SIZE(pgf_cache_hows),
				  r->flags >> PGF_CACHE_SHIFT));
}
#endif

/* "start TIME MODE" and the options, as the uapi header says */
static int pgf_format_start(const struct pgf_rec *r, char *s, size_t size)
{
	int n = 0;

#ifdef PGF_STAGE_SAMPLE
	if (r->flags & PGF_START_SAMPLE)
		n = scnprintf(s, size, "start %llu sample=%llu", r->time, r->a);
#endif
#ifdef PGF_STAGE_REARM
	if (!n && r->a)
		n = scnprintf(s, size, "start %llu interval=%llu", r->time,
			      r->a);
#endif
#ifdef PGF_STAGE_WINDOW
	if (!n && r->b)
		n = scnprintf(s, size, "start %llu window=%llu", r->time, r->b);
#endif
	if (!n)
		n = scnprintf(s, size, "start %llu first", r->time);
#ifdef PGF_STAGE_INHERIT
	if (r->flags & PGF_START_INHERIT)
		n += scnprintf(s + n, size - n, " inherit");
#endif
#ifdef PGF_STAGE_FILES
	if (r->flags & PGF_START_FILES)
		n += scnprintf(s + n, size - n, " files");
#endif
	return n + scnprintf(s + n, size - n, "\n");
}

#ifdef PGF_STAGE_PHYS
/**
 * pgf_format_rec() - format one record as a line of the trace
 * @r: the record
 * @s: where the line goes
 * @size: the room at @s: %PGF_LINE_MAX holds the longest line
 * @frames: the reader may see frames (pgf_cred_sees_frames())
 *
 * Return: the length of the line, its newline included, or 0 for a record
 * of a type this kernel does not write.
 */
int pgf_format_rec(const struct pgf_rec *r, char *s, size_t size,
		   bool frames)
#else
/**
 * pgf_format_rec() - format one record as a line of the trace
 * @r: the record
 * @s: where the line goes
 * @size: the room at @s: %PGF_LINE_MAX holds the longest line
 *
 * Return: the length of the line, its newline included, or 0 for a record
 * of a type this kernel does not write.
 */
int pgf_format_rec(const struct pgf_rec *r, char *s, size_t size)
#endif
{
	const struct pgf_exit_rec *ex;
#ifdef PGF_STAGE_PHYS
	char line[PGF_FAULT_LINE_MAX];
#endif
	int n;

	switch (r->type) {
	case PGF_REC_FAULT:
#ifdef PGF_STAGE_PHYS
		if (size >= PGF_FAULT_LINE_MAX)
			return pgf_format_fault(r, s, frames);
		n = pgf_format_fault(r, line, frames);
		return scnprintf(s, size, "%.*s", n, line);
#else
		if (size >= PGF_FAULT_LINE_MAX)
			return pgf_format_fault(r, s);
		return scnprintf(s, size, "fault %llu %u %llx %s %s %s %llx\n",
				 r->time, r->tid, r->a,
				 pgf_access[r->flags & PGF_ACCESS_MASK],
				 r->flags & PGF_FAULT_KERNEL ? "kernel" : "user",
				 pgf_name(pgf_results, ARRAY_SIZE(pgf_results),
					  r->flags >> PGF_FAULT_RESULT_SHIFT),
				 r->b);
#endif
	case PGF_REC_LOST:
		return scnprintf(s, size, "lost %llu %llu\n", r->a, r->b);
	case PGF_REC_START:
		return pgf_format_start(r, s, size);
#ifdef PGF_STAGE_INHERIT
	case PGF_REC_CHILD:
		return scnprintf(s, size, "child %llu %u %llu%s\n", r->time,
				 r->tid, r->a,
				 r->flags & PGF_CHILD_UNTRACED ? " untraced" : "");
#endif
	case PGF_REC_STOP:
		return scnprintf(s, size, "stop %llu %s\n", r->time,
				 pgf_name(pgf_stop_reasons,
					  ARRAY_SIZE(pgf_stop_reasons), r->flags));
	case PGF_REC_EXEC:
		n = scnprintf(s, size, "exec %llu %u ", r->time, r->tid);
		n += pgf_escape(s + n, size - n - 1, (const char *)r->data);
		s[n++] = '\n';
		return n;
	case PGF_REC_EXIT:
		ex = container_of(r, struct pgf_exit_rec, rec);
#ifdef PGF_STAGE_FILES
		if (r->flags & PGF_EXIT_CACHE)
			return scnprintf(s, size,
					 "exit %llu %llu %llu %llu %llu cache %llu %llu\n",
					 r->time, r->a, r->b, ex->lost,
					 ex->regions, ex->cache, ex->cache_lost);
#endif
		return scnprintf(s, size, "exit %llu %llu %llu %llu %llu\n",
				 r->time, r->a, r->b, ex->lost, ex->regions);
#ifdef PGF_STAGE_REGIONS
	case PGF_REC_MAP:
	case PGF_REC_CHANGE:
		return pgf_format_region(r, s, size);
	case PGF_REC_UNMAP:
		return scnprintf(s, size, "unmap %llu %llu\n", r->time, r->a);
	case PGF_REC_LAYOUT:
		return scnprintf(s, size, "layout %llu %llu\n", r->time, r->a);
#endif
	case PGF_REC_REMOTE:
		return scnprintf(s, size, "remote %llu %u %s %s\n", r->time,
				 r->tid, pgf_access[r->flags & PGF_ACCESS_MASK],
				 pgf_name(pgf_results, ARRAY_SIZE(pgf_results),
					  r->flags >> PGF_FAULT_RESULT_SHIFT));
#ifdef PGF_STAGE_REARM
	case PGF_REC_REARM:
		return scnprintf(s, size, "rearm %llu %llu %s\n", r->time, r->a,
				 pgf_name(pgf_rearm_hows,
					  ARRAY_SIZE(pgf_rearm_hows), r->flags));
#endif
#ifdef PGF_STAGE_SAMPLE
	case PGF_REC_REFS:
		return pgf_format_refs(r, s, size);
	case PGF_REC_SAMPLE:
		return pgf_format_sample(r, s, size);
#endif
#ifdef PGF_STAGE_FILES
	case PGF_REC_FILE:
		return pgf_format_file(r, s, size);
	case PGF_REC_CACHE:
		return pgf_format_cache(r, s, size);
#endif
#ifdef PGF_STAGE_CHANGES
	case PGF_REC_PAGES:
		return pgf_format_change(r, s, size, frames);
#endif
	default:
		WARN_ONCE(1, "unknown record type %u\n", r->type);
		return 0;
	}
}
