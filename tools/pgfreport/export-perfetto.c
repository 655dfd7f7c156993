// SPDX-License-Identifier: GPL-2.0
/*
 * export-perfetto - a trace as a Perfetto trace (the protobuf
 * Trace/TracePacket/TrackEvent format of Perfetto's
 * protos/perfetto/trace/perfetto_trace.proto, written with tools/lib/pb.h),
 * for ui.perfetto.dev and trace_processor:
 *
 * - a process track per process, a thread track per thread that faulted,
 *   every fault an instant on its thread's track (named by its result,
 *   with its address, access, mode, IP and region as arguments);
 * - a track per region (VMA) under its process, a slice for each span of
 *   its life: from its map record to its unmap, change (a new slice with
 *   the new range), exec, a new layout or the process's end;
 * - a track per file of a trace of file I/O (tracepgfault -c) under its
 *   process, every run of pages of a call an instant on it (named by how
 *   the pages fared: hit, miss, readahead, hole, direct; with the first
 *   page's index, the pages, the access and the thread as arguments);
 * - counters: counted faults per interval and the working set (pages
 *   faulted in the last window of intervals, tools/pgfreport/timeline.c),
 *   and the lost records so far.
 *
 * Times are the trace's, CLOCK_MONOTONIC (Perfetto's builtin clock 3).
 * Fault and region packets are one sequence, in the trace's order; the
 * counters another, written at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exit.h"
#include "export.h"
#include "timeline.h"
#include "../lib/pageid.h"
#include "../lib/pb.h"

/* TracePacket */
#define TP_PACKET		1	/* Trace.packet */
#define TP_TIMESTAMP		8
#define TP_SEQ_ID		10
#define TP_TRACK_EVENT		11
#define TP_SEQ_FLAGS		13
#define TP_CLOCK_ID		58
#define TP_TRACK_DESC		60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define CLOCK_MONOTONIC_ID	3
/* TrackDescriptor */
#define TD_UUID			1
#define TD_NAME			2
#define TD_PROCESS		3
#define TD_THREAD		4
#define TD_PARENT		5
#define TD_COUNTER		8
/* ProcessDescriptor, ThreadDescriptor */
#define PD_PID			1
#define PD_NAME			6
#define THD_PID			1
#define THD_TID			2
#define THD_NAME		5
/* CounterDescriptor */
#define CD_UNIT_NAME		6
/* TrackEvent */
#define TE_DEBUG		4
#define TE_TYPE			9
#define TE_TRACK		11
#define TE_CATEGORIES		22
#define TE_NAME			23
#define TE_COUNTER		30
#define TYPE_SLICE_BEGIN	1
#define TYPE_SLICE_END		2
#define TYPE_INSTANT		3
#define TYPE_COUNTER		4
/* DebugAnnotation */
#define DA_NAME			10
#define DA_UINT			3
#define DA_STRING		6
#define DA_POINTER		7

/* uuids: a kind in the top byte, then the pid or an index */
#define UUID(kind, n)	((uint64_t)(kind) << 56 | (uint64_t)(n))
enum { U_PROCESS = 1, U_THREAD, U_REGION, U_FAULTS, U_WS, U_LOST, U_FILE,
       U_FRAMES };

struct region {
	int pid;
	bool open;
};

struct perfetto {
	FILE *out;
	const char *path;
	uint64_t max, written;
	bool too_big;
	struct pb b;
	struct pgid_map pids, tids, regs;	/* seen: pid, (pid, tid), (pid, id) */
	struct pgid_map files;		/* (pid, file id) */
	struct pgid_map changed;	/* pids with a "frame changes" track */
	struct region *reg;
	size_t capreg;
	int first_pid;
	unsigned long long last_t, lost;
	struct timeline tl;
};

static const char *const result_names[] = {
	"minor", "major", "reref", "SIGSEGV", "SIGBUS", "OOM"
};

static int flush(struct perfetto *p)
{
	if (p->b.failed) {
		errno = ENOMEM;
		return -1;
	}
	p->written += p->b.n;
	if (p->written > p->max) {
		p->too_big = true;
		return -1;
	}
	if (fwrite(p->b.p, 1, p->b.n, p->out) != p->b.n)
		return -1;
	p->b.n = 0;
	return 0;
}

/* A packet begins: its sequence and, if @t, its time; returns its start. */
static size_t packet(struct perfetto *p, unsigned int seq, unsigned long long t)
{
	size_t m = pb_begin(&p->b, TP_PACKET);

	pb_uint(&p->b, TP_SEQ_ID, seq);
	if (t) {
		pb_uint(&p->b, TP_TIMESTAMP, t);
		pb_uint(&p->b, TP_CLOCK_ID, CLOCK_MONOTONIC_ID);
	}
	return m;
}

/* A track; with @unit, a counter track (its CounterDescriptor) of that unit. */
static void track_of(struct perfetto *p, uint64_t uuid, uint64_t parent,
		     const char *name, const char *unit)
{
	size_t m = packet(p, 1, 0), d = pb_begin(&p->b, TP_TRACK_DESC);

	pb_uint(&p->b, TD_UUID, uuid);
	if (parent)
		pb_uint(&p->b, TD_PARENT, parent);
	pb_str(&p->b, TD_NAME, name);
	if (unit) {
		/* trace_processor takes TYPE_COUNTER events on counter tracks only */
		size_t c = pb_begin(&p->b, TD_COUNTER);

		pb_str(&p->b, CD_UNIT_NAME, unit);
		pb_end(&p->b, c);
	}
	pb_end(&p->b, d);
	pb_end(&p->b, m);
}

static void track(struct perfetto *p, uint64_t uuid, uint64_t parent,
		  const char *name)
{
	track_of(p, uuid, parent, name, NULL);
}

static void process_track(struct perfetto *p, int pid, const char *name)
{
	size_t m = packet(p, 1, 0), d = pb_begin(&p->b, TP_TRACK_DESC), pd;

	pb_uint(&p->b, TD_UUID, UUID(U_PROCESS, pid));
	pd = pb_begin(&p->b, TD_PROCESS);
	pb_int(&p->b, PD_PID, pid);
	if (name)
		pb_str(&p->b, PD_NAME, name);
	pb_end(&p->b, pd);
	pb_end(&p->b, d);
	pb_end(&p->b, m);
}

/* Out of memory: the next flush() says so (ENOMEM), as the builder's. */
static void oom(struct perfetto *p)
{
	p->b.failed = true;
}

static void see_pid(struct perfetto *p, int pid)
{
	uint32_t had = p->pids.nr;

	if (pgid_get(&p->pids, pid) < 0) {
		oom(p);
		return;
	}
	if (p->pids.nr == had)
		return;
	if (!p->first_pid)
		p->first_pid = pid;
	process_track(p, pid, NULL);
}

/*
 * The track of thread @tid of process @pid: a tid can come back in
 * another process of a long tree, so the two make the key.
 */
static uint64_t see_tid(struct perfetto *p, int pid, int tid)
{
	uint32_t had = p->tids.nr;
	int64_t i = pgid_get(&p->tids, (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid);
	size_t m, d, t;
	char name[32];

	if (i < 0) {
		oom(p);
		return 0;
	}
	if (p->tids.nr == had)
		return UUID(U_THREAD, i);
	m = packet(p, 1, 0);
	d = pb_begin(&p->b, TP_TRACK_DESC);
	pb_uint(&p->b, TD_UUID, UUID(U_THREAD, i));
	t = pb_begin(&p->b, TD_THREAD);
	pb_int(&p->b, THD_PID, pid);
	pb_int(&p->b, THD_TID, tid);
	snprintf(name, sizeof(name), "thread %d", tid);
	pb_str(&p->b, THD_NAME, name);
	pb_end(&p->b, t);
	pb_end(&p->b, d);
	pb_end(&p->b, m);
	return UUID(U_THREAD, i);
}

static void event(struct perfetto *p, unsigned long long t, uint64_t uuid,
		  int type, const char *name)
{
	size_t m = packet(p, 1, t), e = pb_begin(&p->b, TP_TRACK_EVENT);

	pb_uint(&p->b, TE_TYPE, type);
	pb_uint(&p->b, TE_TRACK, uuid);
	if (name)
		pb_str(&p->b, TE_NAME, name);
	pb_end(&p->b, e);
	pb_end(&p->b, m);
}

/*
 * The index of region (@pid, @id), made if new (with its track); -1 out
 * of memory (oom()).
 */
static int64_t region(struct perfetto *p, int pid, unsigned long long id,
		      const char *name)
{
	uint32_t had = p->regs.nr;
	int64_t i = pgid_get(&p->regs, (uint64_t)pid << 40 ^ id);

	if (i < 0) {
		oom(p);
		return -1;
	}
	if (p->regs.nr != had) {
		if ((size_t)i >= p->capreg) {
			size_t cap = p->capreg ? 2 * p->capreg : 256;
			struct region *v = realloc(p->reg, cap * sizeof(*v));

			if (!v) {
				oom(p);
				return -1;
			}
			p->reg = v;
			p->capreg = cap;
		}
		p->reg[i] = (struct region){ pid, false };
		track(p, UUID(U_REGION, i), UUID(U_PROCESS, pid),
		      name && *name ? name : "[anon]");
	}
	return i;
}

static void close_region(struct perfetto *p, size_t i, unsigned long long t)
{
	if (!p->reg[i].open)
		return;
	event(p, t, UUID(U_REGION, i), TYPE_SLICE_END, NULL);
	p->reg[i].open = false;
}

/* Every open region of @pid ends at @t. */
static void close_all(struct perfetto *p, int pid, unsigned long long t)
{
	for (size_t i = 0; i < p->regs.nr; i++)
		if (p->reg[i].pid == pid || !pid)
			close_region(p, i, t);
}

struct perfetto *perfetto_new(FILE *out, const char *path, uint64_t max_bytes,
			      long interval_ms, long window)
{
	struct perfetto *p = calloc(1, sizeof(*p));
	size_t m;

	if (!p)
		return NULL;
	p->out = out;
	p->path = path;
	p->max = max_bytes;
	tl_init(&p->tl, interval_ms, window);
	/* the first packet of sequence 1 clears its (empty) state */
	m = packet(p, 1, 0);
	pb_uint(&p->b, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_end(&p->b, m);
	return p;
}

static void annotation_str(struct pb *b, const char *name, const char *v)
{
	size_t a = pb_begin(b, TE_DEBUG);

	pb_str(b, DA_NAME, name);
	pb_str(b, DA_STRING, v);
	pb_end(b, a);
}

static void annotation_uint(struct pb *b, const char *name, uint64_t v)
{
	size_t a = pb_begin(b, TE_DEBUG);

	pb_str(b, DA_NAME, name);
	pb_uint(b, DA_UINT, v);
	pb_end(b, a);
}

/* The track of file (@pid, @id), made with @path if new; 0: none. */
static uint64_t file_track(struct perfetto *p, int pid, unsigned long long id,
			   const char *path)
{
	uint32_t had = p->files.nr;
	int64_t i = pgid_get(&p->files, (uint64_t)(uint32_t)pid << 32 ^ id);

	if (i < 0) {
		oom(p);
		return 0;
	}
	if (p->files.nr != had || path)
		track(p, UUID(U_FILE, i), UUID(U_PROCESS, pid),
		      path && *path ? path : "(file)");
	return UUID(U_FILE, i);
}

/* A run of file pages one call used: an instant on its file's track. */
static void file_run(struct perfetto *p, int pid, const struct pgft_rec *r)
{
	uint64_t t = file_track(p, pid, r->id, NULL);
	char access[2] = { r->access, 0 };
	size_t m, e;

	if (!t)
		return;
	m = packet(p, 1, r->time);
	e = pb_begin(&p->b, TP_TRACK_EVENT);
	pb_uint(&p->b, TE_TYPE, TYPE_INSTANT);
	pb_uint(&p->b, TE_TRACK, t);
	pb_str(&p->b, TE_CATEGORIES, "pagecache");
	pb_str(&p->b, TE_NAME, pgft_cache_names[r->cache]);
	annotation_uint(&p->b, "index", r->start);
	annotation_uint(&p->b, "pages", r->n[0]);
	annotation_str(&p->b, "access", access);
	annotation_uint(&p->b, "tid", r->tid);
	pb_end(&p->b, e);
	pb_end(&p->b, m);
}

static void annotation_ptr(struct pb *b, const char *name, uint64_t v);

/*
 * A change the kernel made to the frames under pages (version 9): an
 * instant on its process's "frame changes" track, named by what changed
 * and why ("move numa"); address, pages, nodes, frames, tid as arguments.
 */
static void frame_change(struct perfetto *p, int pid, const struct pgft_rec *r)
{
	uint32_t had = p->changed.nr;
	char name[64];
	size_t m, e;

	if (pgid_get(&p->changed, (uint32_t)pid) < 0) {
		oom(p);
		return;
	}
	if (p->changed.nr != had)
		track(p, UUID(U_FRAMES, pid), UUID(U_PROCESS, pid), "frame changes");
	snprintf(name, sizeof(name), "%s %s", pgft_change_names[r->change], r->text);
	m = packet(p, 1, r->time);
	e = pb_begin(&p->b, TP_TRACK_EVENT);
	pb_uint(&p->b, TE_TYPE, TYPE_INSTANT);
	pb_uint(&p->b, TE_TRACK, UUID(U_FRAMES, pid));
	pb_str(&p->b, TE_CATEGORIES, "frames");
	pb_str(&p->b, TE_NAME, name);
	annotation_ptr(&p->b, "address", r->addr);
	annotation_uint(&p->b, "pages", r->n[0]);
	if (r->node != PGFT_NO_NODE)
		annotation_uint(&p->b, "node", r->node);
	if (r->new_node != PGFT_NO_NODE)
		annotation_uint(&p->b, "new_node", r->new_node);
	if (r->has_frame && r->pfn != PGFT_NO_PFN)
		annotation_uint(&p->b, "pfn", r->pfn);
	if (r->has_frame && r->new_pfn != PGFT_NO_PFN)
		annotation_uint(&p->b, "new_pfn", r->new_pfn);
	annotation_uint(&p->b, "tid", r->tid);
	pb_end(&p->b, e);
	pb_end(&p->b, m);
}

int perfetto_rec(struct perfetto *p, int pid, const struct pgft_rec *r)
{
	char name[96];
	int64_t i;

	if (r->time)
		p->last_t = r->time;
	see_pid(p, pid);
	switch (r->type) {
	case PGFT_FILE:
		file_track(p, pid, r->id, r->name);
		break;
	case PGFT_CACHE:
		file_run(p, pid, r);
		break;
	case PGFT_PAGES:
		frame_change(p, pid, r);
		break;
	case PGFT_MAP:
	case PGFT_CHANGE:
		i = region(p, pid, r->id, r->name);
		if (i < 0)
			break;
		close_region(p, i, r->time);
		snprintf(name, sizeof(name), "%llx-%llx %s", r->start, r->end,
			 r->perms);
		event(p, r->time, UUID(U_REGION, i), TYPE_SLICE_BEGIN, name);
		p->reg[i].open = true;
		break;
	case PGFT_UNMAP:
		i = region(p, pid, r->id, NULL);
		if (i >= 0)
			close_region(p, i, r->time);
		break;
	case PGFT_LAYOUT:
	case PGFT_EXIT:
		close_all(p, pid, r->time);
		break;
	case PGFT_EXEC: {
		const char *base = strrchr(r->text, '/');

		close_all(p, pid, r->time);
		process_track(p, pid, base ? base + 1 : r->text);
		break;
	}
	case PGFT_LOST: {
		size_t m, e;

		p->lost += r->n[0] + r->n[1];
		if (!p->last_t)
			break;
		track_of(p, UUID(U_LOST, pid), UUID(U_PROCESS, pid), "lost records",
			 "records");
		m = packet(p, 1, p->last_t);
		e = pb_begin(&p->b, TP_TRACK_EVENT);
		pb_uint(&p->b, TE_TYPE, TYPE_COUNTER);
		pb_uint(&p->b, TE_TRACK, UUID(U_LOST, pid));
		pb_int(&p->b, TE_COUNTER, p->lost);
		pb_end(&p->b, e);
		pb_end(&p->b, m);
		break;
	}
	default:
		break;
	}
	return flush(p);
}


static void annotation_ptr(struct pb *b, const char *name, uint64_t v)
{
	size_t a = pb_begin(b, TE_DEBUG);

	pb_str(b, DA_NAME, name);
	pb_uint(b, DA_POINTER, v);
	pb_end(b, a);
}

int perfetto_fault(struct perfetto *p, int pid, const struct pgft_rec *r,
		   const struct pgft_region *g, unsigned long page_size)
{
	uint64_t thread = see_tid(p, pid, r->tid);
	char access[2] = { r->access, 0 };
	size_t m, e;

	if (pgft_counted(r->result))
		tl_fault(&p->tl, r->time, (uint64_t)pid << 44 ^ r->addr / page_size);
	m = packet(p, 1, r->time);
	e = pb_begin(&p->b, TP_TRACK_EVENT);
	pb_uint(&p->b, TE_TYPE, TYPE_INSTANT);
	pb_uint(&p->b, TE_TRACK, thread);
	pb_str(&p->b, TE_CATEGORIES, "pgfault");
	pb_str(&p->b, TE_NAME, result_names[r->result]);
	annotation_ptr(&p->b, "address", r->addr);
	annotation_str(&p->b, "access", access);
	annotation_str(&p->b, "mode", r->kernel ? "kernel" : "user");
	annotation_ptr(&p->b, "ip", r->ip);
	annotation_str(&p->b, "region", g ? (*g->name ? g->name : "[anon]") : "-");
	if (r->has_frame) {
		annotation_uint(&p->b, "pfn", r->pfn);
		if (r->node != PGFT_NO_NODE)
			annotation_uint(&p->b, "node", r->node);
		annotation_uint(&p->b, "page_size", (uint64_t)page_size << r->order);
		annotation_str(&p->b, "level", pgft_level_names[r->level]);
	}
	pb_end(&p->b, e);
	pb_end(&p->b, m);
	p->last_t = r->time;
	return flush(p);
}

/* The counters of the timeline, on sequence 2. */
static int counters(struct perfetto *p)
{
	char name[64];

	if (!p->tl.nrow)
		return 0;
	snprintf(name, sizeof(name), "faults per %ld ms", p->tl.interval_ms);
	track_of(p, UUID(U_FAULTS, 0), UUID(U_PROCESS, p->first_pid), name,
		 "faults");
	snprintf(name, sizeof(name), "working set (pages, %ld intervals)",
		 p->tl.window);
	track_of(p, UUID(U_WS, 0), UUID(U_PROCESS, p->first_pid), name, "pages");
	for (size_t i = 0; i < p->tl.nrow; i++) {
		unsigned long long t = p->tl.t0 +
			(unsigned long long)(p->tl.row[TL_T][i] * 1e6);

		for (int k = 0; k < 2; k++) {
			size_t m = packet(p, 2, t ? t : 1);
			size_t e = pb_begin(&p->b, TP_TRACK_EVENT);

			pb_uint(&p->b, TE_TYPE, TYPE_COUNTER);
			pb_uint(&p->b, TE_TRACK, UUID(k ? U_WS : U_FAULTS, 0));
			pb_int(&p->b, TE_COUNTER,
			       (int64_t)p->tl.row[k ? TL_WS : TL_FAULTS][i]);
			pb_end(&p->b, e);
			pb_end(&p->b, m);
		}
		if (flush(p))
			return -1;
	}
	return 0;
}

int perfetto_end(struct perfetto *p)
{
	close_all(p, 0, p->last_t);
	if (flush(p))
		return -1;
	tl_end(&p->tl);
	if (p->tl.nomem) {
		errno = ENOMEM;
		return -1;
	}
	return counters(p);
}

bool perfetto_too_big(const struct perfetto *p)
{
	return p->too_big;
}

void perfetto_free(struct perfetto *p)
{
	if (!p)
		return;
	free(p->b.p);
	pgid_free(&p->pids);
	pgid_free(&p->tids);
	pgid_free(&p->regs);
	pgid_free(&p->files);
	pgid_free(&p->changed);
	free(p->reg);
	tl_free(&p->tl);
	free(p);
}
