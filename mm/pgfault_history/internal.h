/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfault_history's internals: the trace, its records, rings and regions,
 * and what the files of mm/pgfault_history/ call in one another. The
 * hooks the rest of the kernel calls are in <linux/pgfault_history.h>,
 * Documentation/mm/pgfault_history.rst is the design.
 *
 * Names: a __pgf_ function is called with a lock held, which its comment
 * names (&pgf_trace.mutex, &pgf_trace.lock, a ring's or a window's lock,
 * the mmap lock, the process's exec_update_lock); the out-of-line bodies
 * of the hooks of <linux/pgfault_history.h> (pgf_record_fault(),
 * pgf_fork(), pgf_exit() and the others) are plain pgf_ functions.
 */
#ifndef _MM_PGFAULT_HISTORY_INTERNAL_H
#define _MM_PGFAULT_HISTORY_INTERNAL_H

#include <linux/atomic.h>
#ifdef PGF_STAGE_PHYS
#include <linux/bits.h>
#endif
#include <linux/cleanup.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/pgfault_history.h>
#include <linux/pgtable.h>
#include <linux/pid_namespace.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct cred;
struct linux_binprm;
struct mem_cgroup;
#ifdef PGF_STAGE_WINDOW
struct pgf_window;
#endif
struct pid;
struct pid_namespace;

/*
 * Records as the kernel stores them (see the DOC: in
 * mm/pgfault_history/ring.c); format.c turns them into the text format
 * described in include/uapi/linux/pgfault_history.h when they are read.
 */
enum pgf_rec_type {
	PGF_REC_PAD,		/* filler at the end of the ring */
	PGF_REC_FAULT,		/* a: address, b: user IP */
	PGF_REC_LOST,		/* a: counted faults lost, b: other records lost */
#ifdef PGF_STAGE_REARM
	PGF_REC_START,		/* a: interval ms, b: window pages (0: off) */
#else
	PGF_REC_START,
#endif
	PGF_REC_STOP,		/* flags: enum pgf_stop_reason */
	PGF_REC_EXEC,		/* data: the path, NUL-terminated */
	PGF_REC_EXIT,		/* a: wait status, b: faults, &pgf_exit_rec */
	PGF_REC_REMOTE,		/* a fault on another mm; flags as a fault */
#ifdef PGF_STAGE_REGIONS
	PGF_REC_MAP,		/* &pgf_region_rec: a new region */
	PGF_REC_CHANGE,		/* &pgf_region_rec: a region's new state */
	PGF_REC_UNMAP,		/* a: region id */
	PGF_REC_LAYOUT,		/* a: number of MAP records that follow */
#endif
#ifdef PGF_STAGE_REARM
	PGF_REC_REARM,		/* a: pages re-armed; flags: enum pgf_rearm_how */
#endif
#ifdef PGF_STAGE_SAMPLE
	PGF_REC_REFS,		/* a: runs that follow, &struct pgf_run each */
	PGF_REC_SAMPLE,		/* &pgf_sample_rec: the end of a scan */
#endif
#ifdef PGF_STAGE_INHERIT
	PGF_REC_CHILD,		/* a: the new process's pid; flags: PGF_CHILD_* */
#endif
#ifdef PGF_STAGE_FILES
	PGF_REC_FILE,		/* &pgf_file_rec: a file's id and name */
	PGF_REC_CACHE,		/* &pgf_cache_rec: a run of page cache pages */
#endif
#ifdef PGF_STAGE_CHANGES
	PGF_REC_PAGES,		/* &pgf_change_rec: frames changed under pages */
#endif
};

#ifdef PGF_STAGE_SAMPLE
/* pgf_rec.flags of a start record */
#ifdef PGF_STAGE_INHERIT
#define PGF_START_INHERIT	0x01	/* new processes are traced too */
#endif
#define PGF_START_SAMPLE	0x02	/* a is the sampling interval */
#endif
#ifdef PGF_STAGE_FILES
#define PGF_START_FILES		0x04	/* file I/O is traced too */
#endif

#ifdef PGF_STAGE_INHERIT
/* pgf_rec.flags of a child record */
#define PGF_CHILD_UNTRACED	0x01	/* no trace could be made for it */
#endif

/* pgf_rec.flags of a fault: access in bits 0-1, kernel mode, result. */
#define PGF_ACCESS_READ		0x00
#define PGF_ACCESS_WRITE	0x01
#define PGF_ACCESS_EXEC		0x02
#define PGF_ACCESS_MASK		0x03
#define PGF_FAULT_KERNEL	0x04
#define PGF_FAULT_RESULT_SHIFT	4

enum pgf_result {
	PGF_RESULT_MINOR,
	PGF_RESULT_MAJOR,
#ifdef PGF_STAGE_REARM
	PGF_RESULT_REREF,	/* a re-armed page made accessible again */
#endif
	PGF_RESULT_SIGSEGV,
	PGF_RESULT_SIGBUS,
	PGF_RESULT_OOM,
};

/* The results /proc/<pid>/stat counts. */
#ifdef PGF_STAGE_REARM
#define PGF_RESULT_COUNTED_MAX	PGF_RESULT_REREF
#else
#define PGF_RESULT_COUNTED_MAX	PGF_RESULT_MAJOR
#endif

#ifdef PGF_STAGE_REARM
enum pgf_rearm_how {
	PGF_REARM_USER,		/* "rearm" written to the file */
	PGF_REARM_INTERVAL,	/* interval mode's periodic re-arm */
#ifdef PGF_STAGE_WINDOW
	PGF_REARM_WINDOW,	/* window mode emptied its window */
#endif
};

/* Interval mode: re-arm every 1 ms to 1 hour; sampling alike. */
#define PGF_INTERVAL_MIN_MS	1
#define PGF_INTERVAL_MAX_MS	3600000
#endif

#ifdef PGF_STAGE_WINDOW
/*
 * Window mode: 16 pages at least, so that any one instruction can have
 * every page it needs at once (code, data and stack, each on both sides
 * of a page boundary) and complete; 4 GiB of pages at most.
 */
#define PGF_WINDOW_MIN		16
#define PGF_WINDOW_MAX		1048576
#endif

#ifdef PGF_STAGE_REARM
/*
 * How a trace records: first touches, interval mode or window mode, and
 * whether the processes the traced one creates are traced too.
 */
struct pgf_mode {
	unsigned int interval_ms;	/* re-arm every page this often */
#ifdef PGF_STAGE_WINDOW
	unsigned int window;		/* keep this many pages accessible */
#endif
#ifdef PGF_STAGE_SAMPLE
	unsigned int sample_ms;		/* sample accessed bits this often */
#endif
#ifdef PGF_STAGE_INHERIT
	bool inherit;			/* trace new processes, in this mode */
#endif
#ifdef PGF_STAGE_FILES
	bool files;			/* trace file I/O's page cache pages */
#endif
};
#endif

enum pgf_stop_reason {
	PGF_STOP_USER,
	PGF_STOP_CREDENTIALS,
};

/*
 * What a dropped record counts as: FAULT for the records of faults that
 * /proc/<pid>/stat counts (successful faults, on the process's own mm or
 * another), OTHER for everything else (failed faults included).
 */
enum pgf_kind {
	PGF_KIND_FAULT,
	PGF_KIND_OTHER,
#ifdef PGF_STAGE_FILES
	PGF_KIND_CACHE,		/* a page cache record: OTHER, counted apart */
#endif
	PGF_KIND_CONTROL,	/* may use the reserve; never grows the buffer */
	PGF_KIND_FINAL,		/* the last record: may use all of the reserve */
};

#define PGF_REC_ALIGN		8

struct pgf_rec {
	u8 type;		/* enum pgf_rec_type */
	u8 flags;
	u16 len;		/* bytes, a multiple of PGF_REC_ALIGN */
	u32 tid;		/* in the trace's pid namespace, 0 if not seen there */
	u64 time;		/* ktime_get_ns() */
	u64 a;
	u64 b;
	u8 data[];
};

/* No padding: pgf_rec_init() stores every byte. */
static_assert(sizeof(struct pgf_rec) == 32);

#ifdef PGF_STAGE_PHYS
/*
 * A fault record that carries the frame the fault mapped: rec.len says
 * so. A frame packs the page frame number, the folio's node and order and
 * the page table level it is mapped at (see mm/pgfault_history/phys.c);
 * it is 0 for none. Frame numbers fit 40 bits: 52 bits of physical
 * address, the most any architecture has.
 */
struct pgf_fault_rec {
	struct pgf_rec rec;
	u64 frame;
};

#define PGF_FRAME_PFN		GENMASK_ULL(39, 0)
#define PGF_FRAME_NODE		GENMASK_ULL(50, 40)
#define PGF_FRAME_ORDER		GENMASK_ULL(56, 51)
#define PGF_FRAME_LEVEL		GENMASK_ULL(58, 57)
#define PGF_FRAME_VALID		BIT_ULL(63)
#define PGF_FRAME_NO_NODE	0x7ff	/* a frame without a struct page */
#ifdef PGF_STAGE_CHANGES
#define PGF_FRAME_HIDDEN	BIT_ULL(62)	/* the trace records no PFN */
#endif

/* PGF_FRAME_LEVEL: the page table level a page is mapped at. */
enum pgf_level {
	PGF_LEVEL_PTE,
	PGF_LEVEL_PMD,
	PGF_LEVEL_PUD,
};

#endif
#ifdef PGF_STAGE_CHANGES
/*
 * Frames changed under a run of pages (mm/pgfault_history/changes.c):
 * rec.a the first page's address, rec.b how many pages, rec.flags the
 * kind and cause; the frames before and after, packed as a fault's (with
 * PGF_FRAME_HIDDEN for a trace that records no frame numbers), 0 for
 * none.
 */
struct pgf_change_rec {
	struct pgf_rec rec;
	u64 old;
	u64 new;
};

/* pgf_rec.flags of a change record */
#define PGF_CHANGE_KIND		GENMASK(2, 0)	/* enum pgf_change_kind */
#define PGF_CHANGE_CAUSE	GENMASK(7, 3)

/* A task's frame never looks like a fault on another traced mm. */
static_assert(!(PGF_REMOTE_FAULT & (PGF_FRAME_PFN | PGF_FRAME_NODE |
				    PGF_FRAME_ORDER | PGF_FRAME_LEVEL |
				    PGF_FRAME_HIDDEN | PGF_FRAME_VALID)));

/* The cause of a PGF_CHANGE_EVICT, from what unmapped the page. */
enum pgf_evict_cause {
	PGF_EVICT_KSWAPD,	/* kswapd's reclaim */
	PGF_EVICT_DIRECT,	/* direct reclaim: an allocation, a memcg */
	PGF_EVICT_PAGEOUT,	/* reclaim_pages(): MADV_PAGEOUT, DAMON */
	PGF_EVICT_SPLIT,	/* a file THP's split (refaults as base pages) */
	PGF_EVICT_COLLAPSE,	/* a file range collapsed into a THP */
	PGF_EVICT_TRUNCATE,	/* a folio truncated that could not be split */
	PGF_EVICT_HWPOISON,	/* a memory error */
};

#endif
struct pgf_exit_rec {
	struct pgf_rec rec;
	u64 lost;		/* counted faults lost over the whole trace */
	u64 regions;		/* region ids handed out */
#ifdef PGF_STAGE_FILES
	u64 cache;		/* page cache records kept (PGF_EXIT_CACHE) */
	u64 cache_lost;		/* and lost */
#endif
};

#ifdef PGF_STAGE_FILES
/* pgf_rec.flags of an exit: file I/O was traced, cache is set. */
#define PGF_EXIT_CACHE		0x01

/* A file: rec.a its id, rec.b its inode number; data: its path. */
struct pgf_file_rec {
	struct pgf_rec rec;
	u32 major, minor;
	char name[];		/* NUL-terminated, may be "" */
};

/* pgf_rec.flags of a page cache record: access in bit 0, then what. */
#define PGF_CACHE_WRITE		0x01
#define PGF_CACHE_SHIFT		1

enum pgf_cache_how {
	PGF_CACHE_HIT,		/* found in the page cache */
	PGF_CACHE_MISS,		/* read in (or added) for this access */
	PGF_CACHE_READAHEAD,	/* read in by this call's readahead, unused */
	PGF_CACHE_HOLE,		/* a hole of a tmpfs file: read as zeroes */
	PGF_CACHE_DIRECT,	/* direct I/O: around the page cache */
};

/* A run of pages: rec.a the file's id, rec.b the first page's index. */
struct pgf_cache_rec {
	struct pgf_rec rec;
	u64 pages;
};
#endif

#ifdef PGF_STAGE_SAMPLE
/* A run of consecutive pages referenced since the last scan. */
struct pgf_run {
	u64 start;		/* address of the first page */
	u64 pages;
};

/* Runs a REFS record holds at most. */
#define PGF_REFS_RUNS		16

/* pgf_rec.flags of a sample */
#define PGF_SAMPLE_BASELINE	0x01	/* the start's scan: no refs before */
#define PGF_SAMPLE_INCOMPLETE	0x02	/* refs records were lost */
#define PGF_SAMPLE_STOPPED	0x04	/* a fatal signal cut the walk short */

/* The end of a scan: rec.a pages tested, rec.b of them referenced. */
struct pgf_sample_rec {
	struct pgf_rec rec;
	u64 ns;			/* how long the scan took */
};
#endif

#ifdef PGF_STAGE_REGIONS
/* pgf_rec.flags of a region: the permissions as /proc/<pid>/maps shows. */
#define PGF_PROT_READ		0x01
#define PGF_PROT_WRITE		0x02
#define PGF_PROT_EXEC		0x04
#define PGF_PROT_SHARED		0x08

/* A region: rec.a start, rec.b end, then its identity; data: its name. */
struct pgf_region_rec {
	struct pgf_rec rec;
	u64 id;			/* a sequence number, never a pointer */
	u64 offset;		/* bytes into the file, 0 if anonymous */
	u64 ino;
	u32 major, minor;
	char name[];		/* path or [label], NUL-terminated, may be "" */
};

/*
 * What the trace knows of one VMA, to tell what changed: in two trees of
 * &struct pgf_shadow, by address and by the VMA's identity.
 */
struct pgf_region {
	struct rb_node by_addr;
	struct rb_node by_vma;
	struct pgf_region *next;	/* a new region, during an update */
	const void *vma;	/* identity only, never dereferenced or shown */
	u64 tag;		/* and the VMA's &vm_area_struct.pgf_tag */
	const void *file;
	const void *anon_name;
	u64 id;
	unsigned long start, end, pgoff;
	u8 prot;		/* PGF_PROT_* */
	u8 label;		/* heap, stack */
	bool seen;		/* matched by a VMA, during an update */
	u32 told;		/* the reader knows it if &pgf_shadow.gen */
};

/* A VMA of a change and the shadow's entry it kept, or NULL. */
struct pgf_match {
	struct vm_area_struct *vma;
	struct pgf_region *kept;
};

/* What of a change pgf_update() keeps rather than walks again. */
#define PGF_MATCH		16

/*
 * The regions of the traced mm as the reader was last told them, and what
 * building the records of a change needs. Under the mmap lock of the mm
 * held for writing, or for reading together with &pgf_trace.mutex.
 */
struct pgf_shadow {
	struct rb_root by_addr;
	struct rb_root by_vma;
	unsigned int nr;
	u64 next_id;
	u32 gen;		/* of the layout the reader was last sent */
	bool sending;		/* a layout is being sent in parts */
	unsigned long cursor;	/* every region below it has been told */
	unsigned int checks;	/* updates, to space the debug checks */
	int epoch;		/* &pgf_mm_notes.epoch when last recorded */
	char *path;		/* PATH_MAX bytes for a region's name */
	struct pgf_region *spare;	/* removed entries kept for reuse */
	unsigned int nr_spare;
	void *batch;		/* the records of one change */
	size_t batch_cap;
	/*
	 * The VMAs and the entries of the change being compared, if there
	 * are PGF_MATCH at most of each (PGF_MATCH + 1: more, walk the
	 * trees).
	 */
	struct pgf_match match[PGF_MATCH];
	unsigned int nr_match;
	struct pgf_region *olds[PGF_MATCH];
	unsigned int nr_olds;
};
#endif

#ifdef PGF_STAGE_REGIONS
/* The largest record: a region with a PATH_MAX name. */
#define PGF_REC_MAX		(sizeof(struct pgf_region_rec) + PATH_MAX)
#else
/* The largest record: an exec with a PATH_MAX path. */
#define PGF_REC_MAX		(sizeof(struct pgf_rec) + PATH_MAX)
#endif

/*
 * The control ring may grow to this much whatever the limit: a part of a
 * layout (pgf_regions_layout()) holds at least one record, a region's
 * with a name up to PATH_MAX long, and may take half the ring; with a
 * smaller ring (vm.pgfault_history_buffer_kb=4) a region with such a name
 * would make a layout that never fits, and every fault would be dropped
 * for the trace's life.
 */
#define PGF_CTL_MIN		SZ_16K

/* The buffer: meta information first, then the ring of records. */
struct pgf_buf {
	u32 size;		/* bytes in data[] */
	u32 head;		/* where the next record goes */
	u32 tail;		/* the oldest record */
	u32 used;		/* bytes in use; 0 is empty */
	u8 data[] __aligned(PGF_REC_ALIGN);
};

/*
 * A ring of records and what it counts, under *@lock: the trace's control
 * ring (&pgf_trace.ctl, its lock &pgf_trace.lock) or one CPU's fault ring
 * (&struct pgf_cpu). See the DOC: in mm/pgfault_history/ring.c.
 */
struct pgf_ring {
	spinlock_t *lock;		/* the ring's, see above */
	struct pgf_buf *buf;
	size_t alloc;			/* bytes allocated for buf */
	u64 lost_faults;		/* dropped since the last LOST record */
	u64 lost_other;
	u64 nr_faults;			/* counted faults kept */
	u64 total_lost_faults;
#ifdef PGF_STAGE_FILES
	u64 nr_cache;			/* page cache records kept */
	u64 total_lost_cache;		/* and lost */
#endif
	u64 peek;			/* the reader's: time of the first */
	u32 fast_room;			/* pgf_write_fault()'s, see there */
	u32 fast_wake;
	bool growing;			/* buf is being reallocated */
	bool want_grow;			/* grow_work is to grow it */
	bool stuck;			/* could not grow: stays at its size */
	bool reader_sleeps;		/* the reader waits for records */
};

/* The ring of fault records of one CPU: its producers and the reader. */
struct pgf_cpu {
	spinlock_t lock;		/* ring; taken on this CPU and by the reader */
	struct pgf_ring ring;		/* no buf: the CPU was offline */
	bool want_ring;			/* a thread ran here: make its ring */
};

/* &pgf_trace.bits */
#define PGF_GROW_QUEUED		0	/* grow_work pending (holds a ref) */
#define PGF_WAKE_ARMED		1	/* wake_timer pending (holds a ref) */
#ifdef PGF_STAGE_REGIONS
#define PGF_REGIONS_TWORK	2	/* regions_twork queued (holds a ref) */
#endif
#ifdef PGF_STAGE_REARM
#define PGF_REARM_QUEUED	3	/* rearm_work pending (holds a ref) */
#define PGF_REARM_PENDING	4	/* rearm_twork queued (holds a ref) */
#endif
#ifdef PGF_STAGE_WINDOW
#define PGF_WINDOW_TWORK0	5	/* window_twork[i] queued (holds a ref) */

/* Threads that may have a window re-arm queued at once. */
#define PGF_WINDOW_TWORKS	4

/* A task work of a trace: window mode's deferred re-arms. */
struct pgf_twork {
	struct callback_head head;
	struct pgf_trace *t;
	struct task_struct *task;	/* queued on (a reference) */
};
#endif

/*
 * One per traced process; see the DOC: in mm/pgfault_history/core.c for its
 * life and locks.
 */
/*
 * The bytes a trace and the children waiting to be claimed from it may
 * hold in buffers: vm.pgfault_history_budget_kb when the first trace of a
 * tree is made. Shared by a trace and the traces of the children it
 * creates, until a reader claims them (each then gets a budget of its
 * own); freed with the last of them.
 */
struct pgf_budget {
	refcount_t ref;
	atomic_long_t bytes;		/* charged to it */
	long limit;
};

struct pgf_trace {
#ifdef PGF_STAGE_PHYS
	struct pgf_trace_hooks hooks;	/* first: the inline hooks read it */
#endif
	spinlock_t lock;		/* ctl and the state below, to ref */
#ifdef PGF_STAGE_REGIONS
	struct pgf_ring ctl;		/* control and region records */
#else
	struct pgf_ring ctl;		/* control records */
#endif
	struct pgf_cpu __percpu *cpu;	/* fault records, a ring per CPU */
	struct pgf_cpu *fallback;	/* for a CPU that has no ring yet */
	size_t cpu_start;		/* a CPU ring's first size */
	size_t limit;			/* most a ring may grow to */
	spinlock_t budget_lock;		/* a leaf lock: budget, charged */
	struct pgf_budget *budget;	/* which pays for its buffers */
	long charged;			/* the bytes it charged to it */
	bool guest;			/* on its creator's budget */
	/*
	 * What sends a fault's record another way than pgf_write_fault()'s,
	 * one byte each, read by it as one word (@recording).
	 */
	union {
		struct {
			bool active;		/* recording */
#ifdef PGF_STAGE_REGIONS
			bool need_layout;	/* fault records wait for a layout */
#endif
#ifdef PGF_STAGE_WINDOW
			bool windowed;		/* window mode: @window is set */
#endif
		};
		u32 recording;		/* PGF_RECORDING: none of those */
	};
	bool started;			/* a start record was written */
	bool dead;			/* ended: nothing more will come */
	bool reader;			/* a file is reading */
#ifdef PGF_STAGE_PHYS
	/* hooks.frames: fault records carry their frames */
	bool start_frames;		/* start_cred may see frames */
	bool reader_frames;		/* reader_cred may see frames */
#endif
	/*
	 * Whose reading the trace is held to. Every exec checks the
	 * reader's credentials against the new image, or, while no file
	 * reads, the starter's (a child's: its creator's reader's, else
	 * its creator's starter's), the reader to be: a later reader is
	 * checked as it attaches. Under lock.
	 */
	const struct cred *start_cred;
	const struct cred *reader_cred;
	unsigned long bits;		/* PGF_GROW_QUEUED and the others */
	void *unread;			/* a closed reader's records, first */
	size_t unread_len, unread_cap;
	refcount_t ref;
	wait_queue_head_t wait;		/* the reader */
	struct timer_list wake_timer;	/* deferred wake-up of the reader */
	struct work_struct free_work;	/* the last put, where it cannot sleep */
	struct rcu_head rcu;		/* freed a grace period after that */
	struct work_struct grow_work;	/* grows rings for the producers */
#ifdef PGF_STAGE_REARM
	unsigned int interval_ms;	/* interval mode; 0: off. Under mutex */
#endif
#ifdef PGF_STAGE_SAMPLE
	unsigned int sample_ms;		/* sampling; 0: off. Under mutex */
#endif
#ifdef PGF_STAGE_INHERIT
	bool clock_off;			/* no clock: a CLONE_VM child's trace */
#endif
#ifdef PGF_STAGE_REARM
	struct delayed_work rearm_work;	/* interval and sampling's clock */
	struct callback_head rearm_twork; /* its tick, run by a thread */
	struct task_struct *rearm_thread; /* that thread (a ref). Mutex */
	unsigned long rearm_queued;	/* when it was queued, jiffies */
#endif
#ifdef PGF_STAGE_WINDOW
	unsigned int window_pages;	/* window mode; 0: off. Under mutex */
	struct pgf_window __rcu *window; /* its window; written under mutex */
	struct pgf_twork window_twork[PGF_WINDOW_TWORKS]; /* its re-arms */
#endif
#ifdef PGF_STAGE_REGIONS
	struct callback_head regions_twork; /* records noted VMA changes */
#endif
#ifdef PGF_STAGE_REARM
	bool reref_bound;		/* counted in mm->pgf.rereference */
#endif
#ifdef PGF_STAGE_INHERIT
	bool inherit;			/* new processes get traces. Under mutex */
#endif
#ifdef PGF_STAGE_REARM
	bool rearmed;			/* "rearm" written since the start */
	unsigned long runs;		/* starts so far. Under mutex */
#endif
#ifdef PGF_STAGE_INHERIT
	struct list_head children;	/* their traces, until claimed. Lock */
	struct list_head child_node;	/* in the creator's children */
	u32 child_nr;			/* the process's pid in pid_ns */
#endif
	struct pid *tgid;		/* the traced process */
	struct mem_cgroup *memcg;	/* the rings' growth is charged here */
	struct pid_namespace *pid_ns;	/* thread ids are numbers in this one */
	struct mutex mutex;		/* start, stop, exec, exit, mm */
#ifdef PGF_STAGE_REGIONS
	struct mm_struct *mm;		/* followed for VMA changes (mmgrab) */
	struct pgf_shadow shadow;	/* see &struct pgf_shadow */
#endif
#ifdef PGF_STAGE_CHANGES
	struct hlist_node mm_node;	/* in changes.c's hash, by mm */
	struct mm_struct *hashed;	/* its key there, or NULL */
	unsigned long unhashed;		/* when it left: an RCU cookie */
	bool was_hashed;		/* it was in the hash once */
#endif
#ifdef PGF_STAGE_FILES
	bool files;			/* file I/O is traced. Under mutex */
	bool files_seen;		/* it was in some start: exit says so */
	struct mutex files_mutex;	/* a file is named once */
	spinlock_t files_lock;		/* a leaf lock: the files below */
	struct rb_root files_tree;	/* &struct pgf_file by device, inode */
	u64 next_file_id;
#endif
};

/*
 * &pgf_trace.recording of a trace that records faults and wants nothing
 * else of them: active alone, in the word's first byte.
 */
#ifdef __LITTLE_ENDIAN
#define PGF_RECORDING	0x1U
#else
#define PGF_RECORDING	0x1000000U
#endif
static_assert(offsetof(struct pgf_trace, active) ==
	      offsetof(struct pgf_trace, recording));

/* Between the files of mm/pgfault_history/ */

/**
 * pgf_tid() - current's thread id, as a trace's reader numbers it
 * @t: the trace (its pid namespace)
 *
 * A trace read in the initial pid namespace, the usual case, numbers
 * threads by their global id. In another (a container's), the number is
 * read from current's own &struct pid, as pid_nr_ns() does, with no call
 * and no RCU: a running task's struct pid cannot go, and only its own
 * exec (exchange_tids()) changes it.
 *
 * Return: the id, or 0 if current has none in that namespace.
 */
static __always_inline u32 pgf_tid(const struct pgf_trace *t)
{
	const struct pid_namespace *ns = t->pid_ns;
	const struct pid *pid;
	unsigned int level;

	if (likely(ns == &init_pid_ns))
		return current->pid;
	pid = task_pid(current);
	level = ns->level;
	if (level > pid->level || pid->numbers[level].ns != ns)
		return 0;
	return pid->numbers[level].nr;
}

/**
 * pgf_rec_init() - fill in the common part of a record
 * @t: the trace it is for (its pid namespace)
 * @rec: the record
 * @type: its type
 * @len: its length in bytes, a multiple of PGF_REC_ALIGN
 *
 * The thread is current; the time is set as the record is written. Every
 * field is stored, one by one, so that a record on the stack may be
 * __uninitialized (no clearing of it first, nor of the fields a compound
 * literal leaves out: both cost a "rep stos" in the fault path).
 */
static __always_inline void pgf_rec_init(const struct pgf_trace *t,
					 struct pgf_rec *rec,
					 enum pgf_rec_type type, u32 len)
{
	rec->type = type;
	rec->flags = 0;
	rec->len = len;
	rec->tid = pgf_tid(t);
	rec->time = 0;
	rec->a = 0;
	rec->b = 0;
}

/* mm/pgfault_history/ring.c: the rings */
extern atomic_long_t pgf_nr_buf_bytes;
extern atomic_long_t pgf_nr_memcg_held;
int pgf_rings_alloc(struct pgf_trace *t, size_t ctl_bytes, size_t cpu_bytes);
void pgf_rings_free(struct pgf_trace *t);
void pgf_rings_sync(struct pgf_trace *t);
void pgf_fault_totals(struct pgf_trace *t, u64 *kept, u64 *lost);
bool pgf_emit(struct pgf_trace *t, const struct pgf_rec *src,
	      enum pgf_kind kind);
bool pgf_emit_fault(struct pgf_trace *t, const struct pgf_rec *src,
		    enum pgf_kind kind);
bool pgf_emit_fault_to(struct pgf_trace *t, struct pgf_cpu *c,
		       const struct pgf_rec *src, enum pgf_kind kind);
bool pgf_write_fault_slow(struct pgf_trace *t, unsigned int flags,
			  unsigned long addr, unsigned long ip, u64 frame);
void __pgf_fault_written(struct pgf_trace *t, struct pgf_cpu *c,
			 struct pgf_rec *rec);
/* core.c */
void pgf_record_minor(struct pgf_trace *t, unsigned int flags,
		      unsigned long addr, unsigned long ip);

/*
 * Bytes of the control ring kept for the last record of a trace (an EXIT,
 * or a STOP for credentials) with the LOST before it, twice over for the
 * PAD a wrap may need in front of them; and as much again for the other
 * control records (start, stop), so that a trace started and stopped over
 * and over on a full ring cannot crowd its end out.
 */
#define PGF_FINAL_RESERVE	(2 * (sizeof(struct pgf_rec) + sizeof(struct pgf_exit_rec)))
#define PGF_RESERVE		(2 * PGF_FINAL_RESERVE)

#ifdef PGF_STAGE_PHYS
/*
 * The frame current's fault mapped (pgfault_history_mapped()), if it got
 * so far, for its record: taken once.
 */
static __always_inline u64 pgf_take_frame(void)
{
	u64 frame = current->pgf_frame;

	current->pgf_frame = 0;
	return frame;
}

#endif
/**
 * __pgf_set_fast() - say what pgf_write_fault() may do in a ring
 * @r: the ring, its lock held
 *
 * From the ring's state, after anything in it changed: its buffer, a loss
 * pending, its reader waiting. pgf_write_fault() writes a record while
 * the bytes in use stay within @r->fast_room (0: never, while there is
 * no buffer or a LOST record is owed first; else all but the reserve),
 * and ends the short way while they stay below @r->fast_wake (0: never,
 * while the reader waits; else half the ring, where it may grow).
 */
static inline void __pgf_set_fast(struct pgf_ring *r)
{
	const struct pgf_buf *b = r->buf;

	lockdep_assert_held(r->lock);
	r->fast_room = b && b->size > PGF_RESERVE &&
		       !r->lost_faults && !r->lost_other ?
		       b->size - PGF_RESERVE : 0;
	r->fast_wake = b && !r->reader_sleeps ? b->size / 2 : 0;
}

/**
 * pgf_write_fault() - append the record of a counted fault to a trace
 * @t: the trace
 * @flags: the record's flags (access, result, kernel mode)
 * @addr: the faulting address
 * @ip: the instruction pointer of the access
 *
 * The fault path's writer, inline in pgf_record_fault(): as
 * pgf_emit_fault(), but the record is made where it goes, in the current
 * CPU's ring under its lock, with its time read last. Two loads decide:
 * the trace's state word (&pgf_trace.recording: active, no layout owed,
 * no window) and the ring's limits (__pgf_set_fast()). A ring that must
 * wrap, grow past its reserve or make its reader a LOST record goes
 * through pgf_emit_fault() (pgf_write_fault_slow()), which does the same
 * as this; a ring half full, or whose reader waits, ends in
 * __pgf_fault_written().
 *
 * The frame current's fault mapped is in the record as it was stored:
 * pgfault_history_mapped() stores one only while the trace records
 * frames, and a reader sees it only if its own credentials may
 * (pgf_format_rec()), whatever the trace recorded.
 *
 * An empty ring is written where its last record ended: the reader's
 * pops and __pgf_reserve() leave the tail at the head when they empty it.
 *
 * A trace in another state (stopped, a layout owed, window mode), or a
 * CPU that has no ring yet, sends the fault to pgf_record_minor().
 *
 * Context: as pgf_emit_fault().
 */
static __always_inline void pgf_write_fault(struct pgf_trace *t,
					    unsigned int flags,
					    unsigned long addr,
					    unsigned long ip)
{
	struct pgf_cpu *c = raw_cpu_ptr(t->cpu);
	struct pgf_ring *r = &c->ring;
	struct pgf_rec *rec;
	struct pgf_buf *b;
	u32 len, head, used;
#ifdef PGF_STAGE_PHYS
	u64 frame;
#endif

	spin_lock(&c->lock);
	b = r->buf;
	/* Stop, exec and exit sync with this lock (pgf_rings_sync()). */
	if (unlikely(!b || READ_ONCE(t->recording) != PGF_RECORDING)) {
		spin_unlock(&c->lock);
		pgf_record_minor(t, flags, addr, ip);
		return;
	}
#ifdef PGF_STAGE_PHYS
	/* Taken here, not before the lock: one value less kept across it. */
	frame = pgf_take_frame();
	len = frame ? sizeof(struct pgf_fault_rec) : sizeof(struct pgf_rec);
#else
	len = sizeof(struct pgf_rec);
#endif
	head = b->head;
	used = b->used + len;
	/* As __pgf_reserve(): no wrap, and the ring's reserve kept. */
	if (unlikely(head + len >= b->size || used > r->fast_room))
		goto slow;
	rec = (struct pgf_rec *)(b->data + head);
	b->head = head + len;
	b->used = used;
	r->nr_faults++;
	rec->type = PGF_REC_FAULT;
	rec->flags = flags;
	rec->len = len;
	rec->tid = pgf_tid(t);
	rec->a = addr;
	rec->b = ip;
#ifdef PGF_STAGE_PHYS
	if (frame)
		((struct pgf_fault_rec *)rec)->frame = frame;
#endif
	if (unlikely(used >= r->fast_wake)) {
		__pgf_fault_written(t, c, rec);
		return;
	}
	rec->time = ktime_get_ns();
	spin_unlock(&c->lock);
	return;
slow:
	spin_unlock(&c->lock);
#ifdef PGF_STAGE_PHYS
	pgf_write_fault_slow(t, flags, addr, ip, frame);
#else
	pgf_write_fault_slow(t, flags, addr, ip, 0);
#endif
}

#ifdef PGF_STAGE_REGIONS
/* What region records are, to pgf_emit_regions(). */
#define PGF_REGIONS_CHANGE	0x0	/* the records of one change */
#define PGF_REGIONS_PART	0x1	/* a part of a layout, more to come */
#define PGF_REGIONS_LAST	0x2	/* the last part of a layout */

bool pgf_emit_regions(struct pgf_trace *t, const void *recs, size_t len,
		      unsigned int nr, unsigned int how, gfp_t gfp);
#endif
void __pgf_control(struct pgf_trace *t, enum pgf_rec_type type, u8 flags,
		   u64 a, u64 b);
void __pgf_count_lost(struct pgf_ring *r, enum pgf_kind kind);
bool __pgf_write(struct pgf_ring *r, const struct pgf_rec *src,
		 enum pgf_kind kind, u64 time);
void pgf_wake(struct pgf_trace *t, __poll_t mask);
void pgf_wake_timer(struct timer_list *timer);
void pgf_grow_work(struct work_struct *work);

#ifdef PGF_STAGE_REGIONS
/* mm/pgfault_history/regions.c: regions */
extern atomic_long_t pgf_nr_region_bytes;
int pgf_regions_init(struct pgf_trace *t);
int pgf_regions_catch_up(struct pgf_trace *t, struct mm_struct *mm,
			 bool killable);
bool pgf_regions_layout(struct pgf_trace *t, struct mm_struct *mm,
			bool exiting);
void pgf_regions_bind(struct pgf_trace *t, struct mm_struct *mm, bool all);
void pgf_regions_reset(struct pgf_trace *t);
void pgf_regions_free(struct pgf_trace *t);
#endif

#ifdef PGF_STAGE_REARM
/* mm/pgfault_history/rearm.c: re-arming pages, and the walk it shares */
typedef void (*pgf_chunk_fn)(struct vm_area_struct *vma, unsigned long start,
			     unsigned long end, void *arg);
#ifdef CONFIG_PGFAULT_HISTORY_DEBUG
/* regions.c */
void pgf_test_hold_walk(struct mm_struct *mm);
struct task_struct *pgf_test_pick(struct pgf_trace *t);
#else
static inline void pgf_test_hold_walk(struct mm_struct *mm) { }
static inline struct task_struct *pgf_test_pick(struct pgf_trace *t)
{
	return NULL;
}
#endif
int pgf_walk_pause(struct mm_struct *mm, struct pgf_trace *held,
		   unsigned long run);
int pgf_walk_chunks(struct mm_struct *mm, struct vm_area_struct *vma,
		    unsigned long start, unsigned long end, pgf_chunk_fn fn,
		    void *arg, bool killable, struct pgf_trace *held);
bool pgf_rearm_supported(void);
void pgf_folio_referenced(struct folio *folio);
int pgf_rearm_mm(struct mm_struct *mm, unsigned long *pages,
		 struct pgf_trace *held);
unsigned long pgf_rearm_page(struct mm_struct *mm, unsigned long addr);
unsigned long pgf_unarm_mm(struct mm_struct *mm);
void pgf_rearm_end(struct mm_struct *mm);
void pgf_rearm_record(struct pgf_trace *t, struct mm_struct *mm,
		      unsigned long pages, u8 how);
void __pgf_rearm_record(struct pgf_trace *t, unsigned long pages, u8 how);
bool pgf_rearm_skip(struct vm_area_struct *vma);
void __pgf_interval_start(struct pgf_trace *t);
void __pgf_clock_stop(struct pgf_trace *t);
void pgf_rearm_work(struct work_struct *work);
#endif

#ifdef PGF_STAGE_SAMPLE
/* mm/pgfault_history/sample.c: sampling accessed bits */
void __pgf_sample(struct pgf_trace *t, struct mm_struct *mm, u8 flags);
#endif

#ifdef PGF_STAGE_WINDOW
/* mm/pgfault_history/window.c: window mode */
struct pgf_window *pgf_window_alloc(unsigned int k);
void pgf_window_free(struct pgf_window *w);
DEFINE_FREE(pgf_window, struct pgf_window *, pgf_window_free(_T))
void __pgf_window_set(struct pgf_trace *t, struct pgf_window *w);
void __pgf_window_empty(struct pgf_trace *t);
void __pgf_window_restart(struct pgf_trace *t);
void __pgf_window_admit(struct pgf_trace *t, unsigned long addr);
void pgf_window_twork_init(struct pgf_trace *t);
#endif

/* mm/pgfault_history/core.c: traces, for the other files */
struct pgf_trace *pgf_trace_new(struct pid_namespace *ns,
				struct pgf_budget *budget);
struct pgf_budget *pgf_budget_new(size_t ring_limit);
void pgf_budget_put(struct pgf_budget *b);
bool pgf_charge(struct pgf_trace *t, long bytes, bool force);
void pgf_uncharge(struct pgf_trace *t, long bytes);
void pgf_key_put(void);
void pgf_trace_end(struct pgf_trace *t, struct pgf_exit_rec *ex);
void pgf_trace_hold_cred(struct pgf_trace *t, const struct cred *cred,
			 bool reader);
const struct cred *pgf_trace_get_cred(struct pgf_trace *t);

#if defined(PGF_STAGE_INHERIT)
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm, const struct pgf_mode *mode,
		   struct pgf_window **wp, bool shared_mm);
#elif defined(PGF_STAGE_WINDOW)
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm, const struct pgf_mode *mode,
		   struct pgf_window **wp);
#elif defined(PGF_STAGE_REARM)
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm, const struct pgf_mode *mode);
#else
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm);
#endif

#ifdef PGF_STAGE_FILES
/*
 * Pages a call's bitmap of pages read in covers, from the first page not
 * yet recorded: more than the largest readahead.
 */
#define PGF_IO_WINDOW		2048

/**
 * struct pgf_io - a thread's file I/O call being traced (&task_struct.pgf_io)
 * @t: the trace it records into (no reference: the call's process holds it)
 * @mapping: the file's pages; NULL between calls
 * @pos: where the call started, bytes
 * @posp: its position, which says what it has used so far
 * @id: the file's id in the trace
 * @write: a write
 * @cursor: the first page not yet recorded
 * @end: the end of the pages the call asked for (exclusive)
 * @nr_marked: bits set in @marked
 * @run: the run being put together: its first page, length, how
 * @marked: pages this call read in (a read), or found absent (a write),
 *	    at bit index % PGF_IO_WINDOW, for pages in [@cursor, @cursor +
 *	    PGF_IO_WINDOW)
 *
 * Made for a thread at its first traced call, freed when it exits.
 */
struct pgf_io {
	struct pgf_trace *t;
	struct address_space *mapping;
	const loff_t *posp;
	loff_t pos;
	u64 id;
	bool write;
	pgoff_t cursor, end;
	unsigned int nr_marked;
	pgoff_t run_start;
	unsigned long run_pages;
	u8 run_how;
	DECLARE_BITMAP(marked, PGF_IO_WINDOW);
};

/* mm/pgfault_history/files.c: file I/O */
void pgf_files_free(struct pgf_trace *t);

/* mm/pgfault_history/ring.c, for files.c */
bool pgf_emit_cache(struct pgf_trace *t, const struct pgf_rec *src);
void pgf_count_lost(struct pgf_trace *t, enum pgf_kind kind);
void pgf_cache_totals(struct pgf_trace *t, u64 *kept, u64 *lost);
#endif

#ifdef PGF_STAGE_INHERIT
/* mm/pgfault_history/ring.c, for inherit.c */
void pgf_budget_own(struct pgf_trace *t);

/* mm/pgfault_history/inherit.c: process trees */
void pgf_children_free(struct pgf_trace *t);
int pgf_child_claim(struct pgf_trace *t, u32 nr, struct pgf_trace **cp);
#endif

/* mm/pgfault_history/core.c, for proc.c */
void pgf_trace_put(struct pgf_trace *t);
/* For __free(pgf_trace): a reference, or NULL or an error pointer. */
static inline void pgf_trace_put_any(struct pgf_trace *t)
{
	if (!IS_ERR_OR_NULL(t))
		pgf_trace_put(t);
}

DEFINE_FREE(pgf_trace, struct pgf_trace *, pgf_trace_put_any(_T))
int pgf_check_access(struct task_struct *task, const struct cred *cred,
		     u64 *exec_gen);
#ifdef PGF_STAGE_REARM
int pgf_start(struct task_struct *task, const struct cred *cred,
	      u64 exec_gen, struct pid_namespace *ns,
	      const struct pgf_mode *mode);
#else
int pgf_start(struct task_struct *task, const struct cred *cred,
	      u64 exec_gen, struct pid_namespace *ns);
#endif
int pgf_stop(struct task_struct *task, const struct cred *cred,
	     u64 exec_gen);
#ifdef PGF_STAGE_REARM
int pgf_rearm(struct task_struct *task, const struct cred *cred,
	      u64 exec_gen);
#endif
int pgf_reader_attach(struct task_struct *task, const struct cred *cred,
		      u64 exec_gen, struct pgf_trace **tp);
void pgf_reader_detach(struct pgf_trace *t);
#ifdef PGF_STAGE_REGIONS
int pgf_resend_layout(struct pgf_trace *t, struct pid *pid);
#endif
bool pgf_readable(struct pgf_trace *t);
size_t pgf_pop(struct pgf_trace *t, void *out, size_t size, bool *eof);
bool pgf_unread(struct pgf_trace *t, void *recs, size_t cap, size_t off,
		size_t len);

#ifdef PGF_STAGE_PROC
/* mm/pgfault_history/format.c, for proc.c: the trace as text */
/* The longest line: an exec whose path is all escaped newlines. */
#define PGF_LINE_MAX	(64 + 4 * PATH_MAX)
#ifdef PGF_STAGE_PHYS
int pgf_format_rec(const struct pgf_rec *r, char *s, size_t size,
		   bool frames);
#else
int pgf_format_rec(const struct pgf_rec *r, char *s, size_t size);
#endif
#endif

#ifdef PGF_STAGE_PHYS
/* mm/pgfault_history/phys.c: frames */
bool pgf_cred_sees_frames(const struct cred *cred);
#endif

#ifdef PGF_STAGE_CHANGES
/* mm/pgfault_history/changes.c: changes behind the process's back */
void pgf_changes_bind(struct pgf_trace *t, struct mm_struct *mm);
#endif

/*
 * The trace of current's process, or NULL. Published with release
 * semantics (pgf_start()), so what it points to is initialised.
 */
static inline struct pgf_trace *pgf_trace_of(struct signal_struct *sig)
{
	/* Pairs with smp_store_release() in pgf_trace_install(). */
	return smp_load_acquire(&sig->pgf_trace);
}

#endif /* _MM_PGFAULT_HISTORY_INTERNAL_H */
