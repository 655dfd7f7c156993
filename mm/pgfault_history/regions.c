// SPDX-License-Identifier: GPL-2.0
/*
 * Region (VMA) records for pgfault_history: the initial layout of a traced
 * process's address space and every change to it.
 *
 * DOC: pgfault_history regions
 *
 * The trace keeps a shadow of the regions it has told the reader about
 * (&struct pgf_shadow): for each VMA its range, permissions, file offset,
 * label, and an id that is a sequence number (the VMA's address is kept
 * only to recognise it later and is never written out), in two rbtrees,
 * by address and by VMA. The records say what changed:
 *
 * - unmap ID: a VMA that is gone;
 * - change ID ...: the same VMA with a new range, permissions or label
 *   (the result of a split, merge, mremap in place, protection change);
 * - map ID ...: a VMA that is new.
 *
 * A split shows as a change of the original and a map of the new part; a
 * merge as a change of the survivor and an unmap of the other, as mm does
 * them. The records of one update are written together, unmaps first,
 * then maps and changes in address order, all or none.
 *
 * Where changes are noted: every change to the VMAs of an mm is made
 * under its mmap lock held for writing, whatever path makes it (mmap,
 * munmap, mremap, mprotect and madvise splits and merges, brk, stack
 * growth, MAP_FIXED over old mappings, userfaultfd registration). Each
 * such path stores every VMA that appears, grows or moves with
 * vma_iter_store() and clears every range it frees with vma_iter_clear()
 * (or their _gfp forms, or the munmap abort's store of a gap), and
 * changes a VMA's flags with vm_flags_{set,clear,mod,reset,reset_once}()
 * (an anon_vma_name change comes with a vm_flags_reset()). Those call
 * pgfault_history_vma_write() or pgfault_history_mm_changed(), which,
 * while a trace follows the mm, add the extent to the few address ranges
 * of &mm_struct.pgf (O(1); when all are in use, the new one joins the
 * closest). A VMA that shrinks or moves leaves a stored or cleared range
 * inside its old extent, and the compare widens every range to whole
 * regions of the shadow and of the tree: so the old and the new extent
 * of every VMA that changed are compared. __split_vma() notes the whole
 * VMA it splits, so that a split (the usual partial mprotect() or
 * madvise()) needs no widening.
 *
 * Nothing is done in the mmap lock primitives. The first note queues a
 * task work on the thread that made it (pgf_regions_kick()), which, before
 * the thread returns to user space, takes the mmap lock for reading and
 * the trace's mutex and compares only those ranges
 * (pgf_regions_catch_up()): each is widened to whole regions on both
 * sides, the VMAs in it are matched with the shadow's entries by
 * identity, and the difference is written. The cost is O(k log n) for k
 * VMAs changed among n; new entries are GFP_KERNEL (if they fail, the
 * change is counted lost and the reader is owed a layout). A traced
 * thread that faults in its own mm, in a VMA that noted changes meet,
 * records them first (pgf_fault_begin(); under the per-VMA lock the fault
 * is retried under the mmap lock), so no fault record comes before the
 * record of its region; a fault elsewhere goes on: its region is
 * recorded. A change another process makes to this mm (a userfaultfd
 * monitor, a CLONE_VM child of its own) queues the task work on that
 * process's thread, for the trace of the mm's owner; else it is recorded
 * at the next traced fault or change. Where two traces follow one mm, or
 * a trace joined or left it since a trace last recorded it
 * (&pgf_mm_notes.epoch), the whole tree is compared once. With
 * CONFIG_PGFAULT_HISTORY_DEBUG every update is checked against the whole
 * VMA tree, and a difference (a path that changed a VMA unseen) is a WARN.
 *
 * LAYOUT N and a map record for each of the N regions describe the whole
 * address space: it starts every trace (taken under the mmap lock before
 * any fault is recorded), and it is sent again after region records have
 * been lost (a full buffer, no memory), when the reader has drained the
 * buffer (pgf_resend_layout()); until then changes are only noted. A
 * layout larger than half the control ring is sent in parts, in address
 * order, each once the reader has drained the ring, and never buffered
 * whole (pgf_regions_layout()); the changes made between two parts are
 * recorded between them, for the regions already told. Until the last
 * part is in the trace, fault records are dropped and counted, so a
 * reader can always rebuild the layout and place every fault it is
 * given. An exec record means the old address space is gone; the new one
 * is announced by map records as it is built.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmap_lock.h>
#include <linux/sched/mm.h>
#include <linux/pgfault_history.h>
#include <linux/pgfault_history_mm.h>
#include <linux/slab.h>
#include <linux/rbtree.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/task_work.h>

#include "internal.h"

#define PGF_LABEL_HEAP		0x01
#define PGF_LABEL_STACK		0x02

/*
 * Which VMA object an entry of the shadow is: a pointer alone cannot say,
 * as a VMA freed by munmap() may come back as the memory of a new one
 * before the trace compares them. Each VMA a trace takes gets a tag, from
 * one 64-bit count that never wraps; vm_area_alloc() zeroes it and
 * vm_area_dup() clears it (pgfault_history_vma_init()), so a new object
 * matches no entry. Given under the mmap lock held for reading at least:
 * two traces of one mm may give it at once, and the first wins.
 */
static atomic64_t pgf_vma_tags = ATOMIC64_INIT(0);

static u64 pgf_vma_tag(struct vm_area_struct *vma)
{
	u64 tag = READ_ONCE(vma->pgf_tag), won;

	if (tag)
		return tag;
	tag = atomic64_inc_return(&pgf_vma_tags);
	won = cmpxchg64(&vma->pgf_tag, 0, tag);
	return won ? won : tag;
}

/* Is @r the shadow's entry of this very object? */
static bool pgf_is_vma(const struct pgf_region *r,
		       const struct vm_area_struct *vma)
{
	return r->vma == vma && r->tag == READ_ONCE(vma->pgf_tag) &&
	       r->file == vma->vm_file;
}

static void pgf_region_of(struct pgf_region *r, struct vm_area_struct *vma)
{
	vm_flags_t f = vma->vm_flags;

	r->vma = vma;
	r->tag = pgf_vma_tag(vma);
	r->file = vma->vm_file;
	r->anon_name = anon_vma_name(vma);
	r->start = vma->vm_start;
	r->end = vma->vm_end;
	r->pgoff = vma->vm_file ? vma->vm_pgoff : 0;
	r->prot = (f & VM_READ ? PGF_PROT_READ : 0) |
		  (f & VM_WRITE ? PGF_PROT_WRITE : 0) |
		  (f & VM_EXEC ? PGF_PROT_EXEC : 0) |
		  (f & VM_MAYSHARE ? PGF_PROT_SHARED : 0);
	r->label = 0;
	if (!vma->vm_file && vma_is_initial_heap(vma))
		r->label |= PGF_LABEL_HEAP;
	if (!vma->vm_file && vma_is_initial_stack(vma))
		r->label |= PGF_LABEL_STACK;
}

static bool pgf_region_same(const struct pgf_region *a,
			    const struct pgf_region *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->pgoff == b->pgoff && a->prot == b->prot &&
	       a->label == b->label && a->anon_name == b->anon_name;
}

/* The name /proc/<pid>/maps shows for @vma, into @buf; "" if none. */
static const char *pgf_region_name(struct vm_area_struct *vma, char *buf,
				   size_t size)
{
	struct anon_vma_name *anon_name = anon_vma_name(vma);
	const char *name;

	if (vma->vm_file) {
		if (anon_name) {
			snprintf(buf, size, "[anon_shmem:%s]", anon_name->name);
			return buf;
		}
		name = d_path(file_user_path(vma->vm_file), buf, size);
		return IS_ERR(name) ? "" : name;
	}
	if (vma->vm_ops && vma->vm_ops->name) {
		name = vma->vm_ops->name(vma);
		if (name)
			return name;
	}
	name = arch_vma_name(vma);
	if (name)
		return name;
	if (vma_is_initial_heap(vma))
		return "[heap]";
	if (vma_is_initial_stack(vma))
		return "[stack]";
	if (anon_name) {
		snprintf(buf, size, "[anon:%s]", anon_name->name);
		return buf;
	}
	return "";
}

/* The records of one change, built before they go into the trace. */
struct pgf_batch {
	struct pgf_shadow *sh;	/* the buffer is sh->batch, kept */
	size_t len;
	unsigned int nr;
	gfp_t gfp;
	bool failed;		/* out of memory: the change is lost */
};

/* Room for @len more bytes; NULL (and the batch failed) if there is none. */
static void *pgf_batch_add(struct pgf_batch *b, size_t len)
{
	struct pgf_shadow *sh = b->sh;
	void *p;

	if (b->failed)
		return NULL;
	if (b->len + len > sh->batch_cap) {
		size_t cap = max3(sh->batch_cap * 2, b->len + len,
				  (size_t)PAGE_SIZE);

		p = kvmalloc(cap, b->gfp | __GFP_NOWARN);
		if (!p) {
			b->failed = true;
			return NULL;
		}
		if (b->len)
			memcpy(p, sh->batch, b->len);
		kvfree(sh->batch);
		sh->batch = p;
		sh->batch_cap = cap;
	}
	p = sh->batch + b->len;
	b->len += len;
	b->nr++;
	return p;
}

/* Add a MAP or CHANGE record for @r. */
static void pgf_region_add(struct pgf_trace *t, struct pgf_batch *b,
			   enum pgf_rec_type type, const struct pgf_region *r,
			   struct vm_area_struct *vma)
{
	const struct inode *inode;
	struct pgf_region_rec *rr;
	const char *name;
	size_t n, len;

	name = pgf_region_name(vma, t->shadow.path, PATH_MAX);
	n = strnlen(name, PATH_MAX - 1);
	len = round_up(sizeof(*rr) + n + 1, PGF_REC_ALIGN);
	rr = pgf_batch_add(b, len);
	if (!rr)
		return;
	memset(rr, 0, sizeof(*rr));
	pgf_rec_init(t, &rr->rec, type, len);
	rr->rec.flags = r->prot;
	rr->rec.a = r->start;
	rr->rec.b = r->end;
	rr->id = r->id;
	if (vma->vm_file) {
		inode = file_user_inode(vma->vm_file);
		rr->offset = (u64)r->pgoff << PAGE_SHIFT;
		rr->ino = inode->i_ino;
		rr->major = MAJOR(inode->i_sb->s_dev);
		rr->minor = MINOR(inode->i_sb->s_dev);
	}
	memcpy(rr->name, name, n);
	memset(rr->name + n, 0, len - sizeof(*rr) - n);
}

static void pgf_rec_add(struct pgf_trace *t, struct pgf_batch *b,
			enum pgf_rec_type type, u64 a)
{
	struct pgf_rec *rec = pgf_batch_add(b, sizeof(*rec));

	if (!rec)
		return;
	pgf_rec_init(t, rec, type, sizeof(*rec));
	rec->a = a;
}

/* ---- what the reader has been told ------------------------------------ */

/* Has the reader been told of @r, since the layout it was last sent? */
static bool pgf_told(const struct pgf_shadow *sh, const struct pgf_region *r)
{
	return r->told == sh->gen;
}

/*
 * A region that now starts at @start and that the reader has not been
 * told of is told at once unless a layout being sent in parts has yet to
 * get there: the part that does will tell it.
 */
static bool pgf_tell_now(const struct pgf_shadow *sh, unsigned long start)
{
	return !sh->sending || start < sh->cursor;
}

/* The records for @r, known to the shadow, that now looks like @cur. */
static void pgf_tell_kept(struct pgf_trace *t, struct pgf_batch *b,
			  struct pgf_region *r, const struct pgf_region *cur,
			  struct vm_area_struct *vma)
{
	struct pgf_shadow *sh = &t->shadow;

	if (pgf_told(sh, r)) {
		if (!pgf_region_same(r, cur))
			pgf_region_add(t, b, PGF_REC_CHANGE, cur, vma);
	} else if (pgf_tell_now(sh, cur->start)) {
		pgf_region_add(t, b, PGF_REC_MAP, cur, vma);
		r->told = sh->gen;
	}
}

/* The record for @r, new to the shadow; none without @b (a layout's). */
static void pgf_tell_new(struct pgf_trace *t, struct pgf_batch *b,
			 struct pgf_region *r, struct vm_area_struct *vma)
{
	struct pgf_shadow *sh = &t->shadow;

	r->told = sh->gen - 1;
	if (!b || !pgf_tell_now(sh, r->start))
		return;
	pgf_region_add(t, b, PGF_REC_MAP, r, vma);
	r->told = sh->gen;
}

/* ---- the shadow's trees ---------------------------------------------- */

#define pgf_addr_entry(node) rb_entry(node, struct pgf_region, by_addr)
#define pgf_vma_entry(node) rb_entry(node, struct pgf_region, by_vma)

static bool pgf_less_addr(struct rb_node *a, const struct rb_node *b)
{
	return pgf_addr_entry(a)->start < pgf_addr_entry(b)->start;
}

static bool pgf_less_vma(struct rb_node *a, const struct rb_node *b)
{
	return pgf_vma_entry(a)->vma < pgf_vma_entry(b)->vma;
}

static void pgf_insert_addr(struct pgf_shadow *sh, struct pgf_region *r)
{
	rb_add(&r->by_addr, &sh->by_addr, pgf_less_addr);
}

static void pgf_insert_vma(struct pgf_shadow *sh, struct pgf_region *r)
{
	rb_add(&r->by_vma, &sh->by_vma, pgf_less_vma);
}

/* The entry for @vma, or NULL. */
static struct pgf_region *pgf_find_vma(struct pgf_shadow *sh, const void *vma)
{
	struct rb_node *n = sh->by_vma.rb_node;

	while (n) {
		struct pgf_region *r = pgf_vma_entry(n);

		if (vma == r->vma)
			return r;
		n = vma < r->vma ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/* The first entry that ends above @addr, or NULL. */
static struct pgf_region *pgf_first_after(struct pgf_shadow *sh,
					  unsigned long addr)
{
	struct rb_node *n = sh->by_addr.rb_node;
	struct pgf_region *found = NULL;

	while (n) {
		struct pgf_region *r = pgf_addr_entry(n);

		if (r->end > addr) {
			found = r;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return found;
}

static struct pgf_region *pgf_next(struct pgf_region *r)
{
	struct rb_node *n = rb_next(&r->by_addr);

	return n ? pgf_addr_entry(n) : NULL;
}

/*
 * Entries removed from the shadow are kept, up to PGF_SPARE, for the next
 * regions that appear: an mmap after a munmap (the usual churn) then
 * neither allocates nor frees. They stay charged to the memory cgroup
 * that paid for them, and to the trace's budget: every entry allocated is
 * counted there (never refused: a region is not lost for the budget; a
 * child's trace is not made if its shadow would not fit, see pgf_fork()).
 */
#define PGF_SPARE	16

/* Region shadow entries of all traces, for the debugfs file. */
atomic_long_t pgf_nr_region_bytes = ATOMIC_LONG_INIT(0);

static void pgf_region_kfree(struct pgf_shadow *sh, struct pgf_region *r)
{
	kfree(r);
	pgf_uncharge(container_of(sh, struct pgf_trace, shadow), sizeof(*r));
	atomic_long_sub(sizeof(*r), &pgf_nr_region_bytes);
}

static struct pgf_region *pgf_region_alloc(struct pgf_shadow *sh, gfp_t gfp)
{
	struct pgf_region *r = sh->spare;

	if (!r) {
		r = kmalloc(sizeof(*r), gfp | __GFP_NOWARN);
		if (r) {
			pgf_charge(container_of(sh, struct pgf_trace, shadow),
				   sizeof(*r), true);
			atomic_long_add(sizeof(*r), &pgf_nr_region_bytes);
		}
		return r;
	}
	sh->spare = r->next;
	sh->nr_spare--;
	return r;
}

static void pgf_region_free(struct pgf_shadow *sh, struct pgf_region *r)
{
	if (sh->nr_spare == PGF_SPARE) {
		pgf_region_kfree(sh, r);
		return;
	}
	r->next = sh->spare;
	sh->spare = r;
	sh->nr_spare++;
}

static void pgf_remove(struct pgf_shadow *sh, struct pgf_region *r)
{
	rb_erase(&r->by_addr, &sh->by_addr);
	rb_erase(&r->by_vma, &sh->by_vma);
	sh->nr--;
	pgf_region_free(sh, r);
}

/* ---- what changed ------------------------------------------------------ */

struct pgf_range {
	unsigned long start, end;
};

static int pgf_cmp_range(const void *a, const void *b)
{
	const struct pgf_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort @rg and merge the ranges that overlap; returns how many remain. */
static unsigned int pgf_merge_ranges(struct pgf_range *rg, unsigned int nr)
{
	unsigned int i;

	sort(rg, nr, sizeof(*rg), pgf_cmp_range, NULL);
	for (i = 1; i < nr; ) {
		if (rg[i].start < rg[i - 1].end) {
			rg[i - 1].end = max(rg[i - 1].end, rg[i].end);
			memmove(&rg[i], &rg[i + 1], (nr - i - 1) * sizeof(*rg));
			nr--;
		} else {
			i++;
		}
	}
	return nr;
}

/*
 * The ranges to compare, read from @mm's notes (pgf_notes_done() clears
 * them once they are recorded), in address order; with @all, or when the
 * notes cannot be trusted to be this trace's, the whole address space.
 * Returns how many.
 */
static unsigned int pgf_take_ranges(struct pgf_trace *t, struct mm_struct *mm,
				    struct pgf_range *rg, bool all)
{
	struct pgf_mm_notes *n = &mm->pgf_notes;
	struct pgf_mm *m = &mm->pgf;
	int epoch = atomic_read(&n->epoch);
	unsigned int nr, i;

	/*
	 * Under the write lock; or under the read lock with t->mutex (a
	 * layout), where another trace's layout of this mm may clear the
	 * notes as well: both compare the whole tree then (traces > 1).
	 */
	if (READ_ONCE(m->nr) == PGF_MM_ALL || atomic_read(&m->traces) > 1 ||
	    t->shadow.epoch != epoch)
		all = true;
	t->shadow.epoch = epoch;
	if (all) {
		rg[0].start = 0;
		rg[0].end = ULONG_MAX;
		return 1;
	}
	nr = m->nr;
	for (i = 0; i < nr; i++) {
		rg[i].start = n->start[i];
		rg[i].end = n->end[i];
	}
	return pgf_merge_ranges(rg, nr);
}

/*
 * The notes taken are recorded (or lost): a fault may go on. Until then
 * a traced fault that sees them waits for t->mutex (pgf_fault_begin()),
 * and no new note can come: the mmap lock is held.
 */
static void pgf_notes_done(struct mm_struct *mm)
{
	WRITE_ONCE(mm->pgf.nr, 0);
}

/*
 * Widen each range until no region, old or new, crosses its ends, and
 * merge the ranges that then overlap. One walk of each tree per range
 * tells both: a range noted at a store or a flags change is a VMA's new
 * extent, and a split notes the whole VMA it splits, so a range needs no
 * widening unless a VMA was cut out of a region otherwise (vma_shrink(),
 * a merge that moves a neighbour's start: one more pass). The VMAs in the
 * ranges are kept, in address order, in &pgf_shadow.match if there are no
 * more than PGF_MATCH of them (the usual change), and the shadow's entries
 * there in &pgf_shadow.olds likewise, so that pgf_update() need not walk
 * the trees again. Returns how many ranges remain.
 */
static unsigned int pgf_gather(struct pgf_shadow *sh, struct mm_struct *mm,
			       struct pgf_range *rg, unsigned int nr)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	struct pgf_region *old;
	unsigned long lo, hi;
	bool widened;
	unsigned int i;

	do {
		widened = false;
		sh->nr_match = 0;
		sh->nr_olds = 0;
		for (i = 0; i < nr; i++) {
			lo = rg[i].start;
			hi = rg[i].end;
			for (old = pgf_first_after(sh, rg[i].start);
			     old && old->start < rg[i].end; old = pgf_next(old)) {
				if (sh->nr_olds < PGF_MATCH)
					sh->olds[sh->nr_olds] = old;
				if (sh->nr_olds <= PGF_MATCH)
					sh->nr_olds++;
				lo = min(lo, old->start);
				hi = max(hi, old->end);
			}
			vma_iter_init(&vmi, mm, rg[i].start);
			for_each_vma_range(vmi, vma, rg[i].end) {
				if (sh->nr_match < PGF_MATCH)
					sh->match[sh->nr_match].vma = vma;
				if (sh->nr_match <= PGF_MATCH)
					sh->nr_match++;
				lo = min(lo, vma->vm_start);
				hi = max(hi, vma->vm_end);
			}
			if (lo < rg[i].start || hi > rg[i].end) {
				rg[i].start = lo;
				rg[i].end = hi;
				widened = true;
			}
		}
		if (widened)
			nr = pgf_merge_ranges(rg, nr);
	} while (widened);
	return nr;
}

/*
 * The VMAs of the ranges pgf_gather() widened, in address order: those it
 * kept, or, if there were too many, a walk of the tree.
 */
struct pgf_vmas {
	struct pgf_shadow *sh;
	struct mm_struct *mm;
	const struct pgf_range *rg;
	unsigned int nr, i, k;
	struct vma_iterator vmi;
};

static void pgf_vmas_start(struct pgf_vmas *w, struct pgf_shadow *sh,
			   struct mm_struct *mm, const struct pgf_range *rg,
			   unsigned int nr)
{
	w->sh = sh;
	w->mm = mm;
	w->rg = rg;
	w->nr = nr;
	w->i = 0;
	w->k = 0;
	if (sh->nr_match > PGF_MATCH && nr)
		vma_iter_init(&w->vmi, mm, rg[0].start);
}

static bool pgf_vmas_kept(const struct pgf_vmas *w)
{
	return w->sh->nr_match <= PGF_MATCH;
}

/*
 * The next VMA, or NULL. Inlined, as pgf_vmas_next() is: the calls cost
 * 3% of the instructions of an mmap()+munmap() pair.
 */
static __always_inline struct vm_area_struct *
pgf_vmas_walk(struct pgf_vmas *w)
{
	struct vm_area_struct *vma;

	if (pgf_vmas_kept(w))
		return w->k < w->sh->nr_match ? w->sh->match[w->k++].vma : NULL;
	while (w->i < w->nr) {
		vma = vma_find(&w->vmi, w->rg[w->i].end);
		if (vma)
			return vma;
		if (++w->i < w->nr)
			vma_iter_init(&w->vmi, w->mm, w->rg[w->i].start);
	}
	return NULL;
}

/*
 * The next VMA, or NULL, and in *@kept the shadow's entry it matched
 * (pgf_update()'s first pass), or NULL: a new region.
 */
static __always_inline struct vm_area_struct *
pgf_vmas_next(struct pgf_vmas *w, struct pgf_region **kept)
{
	struct vm_area_struct *vma = pgf_vmas_walk(w);

	if (!vma)
		return NULL;
	if (pgf_vmas_kept(w)) {
		*kept = w->sh->match[w->k - 1].kept;
		return vma;
	}
	*kept = pgf_find_vma(w->sh, vma);
	if (*kept && !(*kept)->seen)
		*kept = NULL;
	return vma;
}

/* Are the shadow's entries of the change in &pgf_shadow.olds? */
static bool pgf_olds_kept(const struct pgf_shadow *sh)
{
	return sh->nr_olds <= PGF_MATCH;
}

/* The shadow's entry for @vma, one of the change's if it is, or NULL. */
static struct pgf_region *pgf_match_vma(struct pgf_shadow *sh,
					struct vm_area_struct *vma)
{
	unsigned int k;

	if (pgf_olds_kept(sh))
		for (k = 0; k < sh->nr_olds; k++)
			if (sh->olds[k]->vma == vma)
				return sh->olds[k];
	/* New; or known outside the ranges (never expected: it moves in). */
	return pgf_find_vma(sh, vma);
}

/* Unmap records for the entries in the ranges that no VMA matched. */
static void pgf_add_unmaps(struct pgf_trace *t, struct pgf_batch *b,
			   const struct pgf_range *rg, unsigned int nr)
{
	struct pgf_shadow *sh = &t->shadow;
	struct pgf_region *old;
	unsigned int i;

	if (pgf_olds_kept(sh)) {
		for (i = 0; i < sh->nr_olds; i++)
			if (!sh->olds[i]->seen)
				pgf_rec_add(t, b, PGF_REC_UNMAP, sh->olds[i]->id);
		return;
	}
	for (i = 0; i < nr; i++)
		for (old = pgf_first_after(sh, rg[i].start);
		     old && old->start < rg[i].end; old = pgf_next(old))
			if (!old->seen)
				pgf_rec_add(t, b, PGF_REC_UNMAP, old->id);
}

/* Remove the entries in the ranges that no VMA matched. */
static void pgf_remove_unseen(struct pgf_shadow *sh,
			      const struct pgf_range *rg, unsigned int nr)
{
	struct pgf_region *old, *next;
	unsigned int i;

	if (pgf_olds_kept(sh)) {
		for (i = 0; i < sh->nr_olds; i++)
			if (!sh->olds[i]->seen)
				pgf_remove(sh, sh->olds[i]);
		return;
	}
	for (i = 0; i < nr; i++) {
		for (old = pgf_first_after(sh, rg[i].start);
		     old && old->start < rg[i].end; old = next) {
			next = pgf_next(old);
			if (!old->seen)
				pgf_remove(sh, old);
		}
	}
}

#ifdef CONFIG_PGFAULT_HISTORY_DEBUG
/*
 * Test kernels only: a process's pid (in the initial namespace) written
 * to /sys/kernel/debug/pgfault_history_test/alias makes the next change
 * recorded for its trace find the shadow's entry of a VMA that is gone
 * under the pointer of a VMA that is new, as when the new VMA took the
 * memory of the freed one (KASAN's quarantine makes that rare in test
 * kernels). Once; aliased counts them.
 */
static u32 pgf_alias, pgf_aliased;

static void pgf_test_alias(struct pgf_trace *t, struct mm_struct *mm,
			   const struct pgf_range *rg, unsigned int nr)
{
	u32 pid = READ_ONCE(pgf_alias);
	struct vm_area_struct *vma, *fresh = NULL;
	struct pgf_shadow *sh = &t->shadow;
	struct pgf_region *gone = NULL, *r;
	struct vma_iterator vmi;
	unsigned int i;

	if (!pid || pid != pid_nr(t->tgid))
		return;
	for (i = 0; i < nr; i++) {
		for (r = pgf_first_after(sh, rg[i].start);
		     !gone && r && r->start < rg[i].end; r = pgf_next(r))
			if (vma_lookup(mm, r->start) != r->vma)
				gone = r;
		vma_iter_init(&vmi, mm, rg[i].start);
		while (!fresh && (vma = vma_find(&vmi, rg[i].end)))
			if (!pgf_find_vma(sh, vma))
				fresh = vma;
	}
	if (!gone || !fresh || cmpxchg(&pgf_alias, pid, 0) != pid)
		return;
	rb_erase(&gone->by_vma, &sh->by_vma);
	gone->vma = fresh;
	gone->file = fresh->vm_file;
	pgf_insert_vma(sh, gone);
	WRITE_ONCE(pgf_aliased, pgf_aliased + 1);
}
#else
static inline void pgf_test_alias(struct pgf_trace *t, struct mm_struct *mm,
				  const struct pgf_range *rg, unsigned int nr)
{
}
#endif

/*
 * Compare the regions in @rg, as pgf_gather() left them, with the VMAs
 * there and bring the shadow up to date. With @b, the difference is
 * written into it; the new entries are allocated with @gfp. Returns
 * false, the shadow untouched, if there was no memory.
 */
static bool pgf_update(struct pgf_trace *t, struct mm_struct *mm,
		       struct pgf_range *rg, unsigned int nr,
		       struct pgf_batch *b, gfp_t gfp)
{
	struct pgf_region *old, *r, *fresh = NULL, cur;
	struct pgf_shadow *sh = &t->shadow;
	struct vm_area_struct *vma;
	u64 next_id = sh->next_id;
	struct pgf_vmas w;

	if (b)
		pgf_test_alias(t, mm, rg, nr);
	/* Match the VMAs with what the shadow knows of them, by identity. */
	pgf_vmas_start(&w, sh, mm, rg, nr);
	while ((vma = pgf_vmas_walk(&w))) {
		old = pgf_match_vma(sh, vma);
		if (old && !old->seen && pgf_is_vma(old, vma))
			old->seen = true;
		else
			old = NULL;
		if (pgf_vmas_kept(&w))
			sh->match[w.k - 1].kept = old;
	}
	if (b)
		pgf_add_unmaps(t, b, rg, nr);
	pgf_vmas_start(&w, sh, mm, rg, nr);
	while ((vma = pgf_vmas_next(&w, &old))) {
		if (old) {
			if (!b)
				continue;
			pgf_region_of(&cur, vma);
			cur.id = old->id;
			pgf_tell_kept(t, b, old, &cur, vma);
			continue;
		}
		r = pgf_region_alloc(sh, gfp);
		if (!r)
			goto out_nomem;
		pgf_region_of(r, vma);
		r->id = ++next_id;
		r->seen = false;
		r->next = fresh;
		fresh = r;
		pgf_tell_new(t, b, r, vma);
	}
	if (b && b->failed)
		goto out_nomem;

	/* Apply: the gone first, then the changed, then the new. */
	pgf_remove_unseen(sh, rg, nr);
	pgf_vmas_start(&w, sh, mm, rg, nr);
	while ((vma = pgf_vmas_next(&w, &old))) {
		if (!old)
			continue;
		old->seen = false;
		if (old->start == vma->vm_start) {
			pgf_region_of(old, vma);
			continue;
		}
		rb_erase(&old->by_addr, &sh->by_addr);
		pgf_region_of(old, vma);
		pgf_insert_addr(sh, old);
	}
	while (fresh) {
		r = fresh;
		fresh = r->next;
		pgf_insert_addr(sh, r);
		pgf_insert_vma(sh, r);
		sh->nr++;
	}
	sh->next_id = next_id;
	return true;

out_nomem:
	while (fresh) {
		r = fresh;
		fresh = r->next;
		pgf_region_free(sh, r);
	}
	pgf_vmas_start(&w, sh, mm, rg, nr);
	while ((vma = pgf_vmas_next(&w, &old)))
		if (old)
			old->seen = false;
	return false;
}

/* @nr records lost: count them, and owe the reader a whole new layout. */
static void pgf_regions_lost_nr(struct pgf_trace *t, unsigned long nr)
{
	t->shadow.sending = false;
	spin_lock(&t->lock);
	if (!t->dead) {
		t->ctl.lost_other += nr;
		__pgf_set_fast(&t->ctl);
		WRITE_ONCE(t->need_layout, true);
	}
	spin_unlock(&t->lock);
}

/* Lost: count it, and owe the reader a whole new layout. */
static void pgf_regions_lost(struct pgf_trace *t)
{
	pgf_regions_lost_nr(t, 1);
}

/* A batch of more than this is freed once written (a layout). */
#define PGF_BATCH_KEEP		(64 * 1024)

static void pgf_batch_done(struct pgf_shadow *sh)
{
	if (sh->batch_cap > PGF_BATCH_KEEP) {
		kvfree(sh->batch);
		sh->batch = NULL;
		sh->batch_cap = 0;
	}
}

#ifdef CONFIG_PGFAULT_HISTORY_DEBUG
/*
 * Regions compared with the whole VMA tree per update, at most, on
 * average: a larger tree is checked at every (nr / PGF_CHECK_SPAN)th
 * update, so that a debug kernel stays O(what changed) too.
 */
#define PGF_CHECK_SPAN	4096

/* The shadow must now match the whole VMA tree. */
static void pgf_check(struct pgf_trace *t, struct mm_struct *mm)
{
	struct pgf_shadow *sh = &t->shadow;
	struct rb_node *n = rb_first(&sh->by_addr);
	struct vm_area_struct *vma;
	struct pgf_region cur, *old;
	struct vma_iterator vmi;
	unsigned int nr = 0;

	if (++sh->checks < sh->nr / PGF_CHECK_SPAN)
		return;
	sh->checks = 0;
	vma_iter_init(&vmi, mm, 0);
	for_each_vma(vmi, vma) {
		old = n ? pgf_addr_entry(n) : NULL;
		pgf_region_of(&cur, vma);
		if (WARN(!old || !pgf_is_vma(old, vma) ||
			 !pgf_region_same(old, &cur),
			 "pgfault: region %lx-%lx (prot %x) unrecorded, trace has %lx-%lx\n",
			 cur.start, cur.end, cur.prot,
			 old ? old->start : 0, old ? old->end : 0))
			return;
		n = rb_next(n);
		nr++;
	}
	WARN(n || nr != sh->nr, "pgfault: %u regions recorded, %u VMAs\n",
	     sh->nr, nr);
}
#else
static inline void pgf_check(struct pgf_trace *t, struct mm_struct *mm) { }
#endif

/*
 * Record the VMA changes noted in @mm, under its mmap read lock with
 * t->mutex.
 */
static void pgf_regions_record(struct pgf_trace *t, struct mm_struct *mm,
			       gfp_t gfp)
{
	struct pgf_batch b = { .sh = &t->shadow, .gfp = gfp };
	struct pgf_range rg[PGF_MM_RANGES];
	unsigned int nr;

	if (READ_ONCE(t->need_layout) && !t->shadow.sending) {
		/* The layout the reader is owed compares the whole tree. */
		WRITE_ONCE(mm->pgf.nr, 0);
		return;
	}
	nr = pgf_take_ranges(t, mm, rg, false);
	nr = pgf_gather(&t->shadow, mm, rg, nr);
	if (!pgf_update(t, mm, rg, nr, &b, b.gfp)) {
		pgf_regions_lost(t);
		pgf_notes_done(mm);
		return;
	}
	if (b.nr && !pgf_emit_regions(t, t->shadow.batch, b.len, b.nr,
				      PGF_REGIONS_CHANGE, b.gfp))
		t->shadow.sending = false;	/* lost: a new layout */
	pgf_notes_done(mm);
	pgf_batch_done(&t->shadow);
	if (!READ_ONCE(t->need_layout) || t->shadow.sending)
		pgf_check(t, mm);
}

/* Is there a change in @mm that @t has not recorded? */
static bool pgf_regions_changed(struct pgf_trace *t, struct mm_struct *mm)
{
	return READ_ONCE(mm->pgf.nr) || atomic_read(&mm->pgf.traces) != 1 ||
	       atomic_read(&mm->pgf_notes.epoch) != t->shadow.epoch;
}

/* The regions from @from on that the reader has not been told of. */
static unsigned long pgf_untold(struct pgf_shadow *sh, unsigned long from)
{
	struct pgf_region *r;
	unsigned long nr = 0;

	for (r = pgf_first_after(sh, from); r; r = pgf_next(r))
		nr += !pgf_told(sh, r);
	return nr;
}

/**
 * pgf_regions_layout() - send the layout, or its next part
 * @t: the trace
 * @mm: the traced mm, its mmap lock held for reading, and nobody else
 *      recording it (t->mutex held)
 * @exiting: the process is exiting: a part that does not fit in the
 *           control ring at its limit cannot wait for the reader, so it
 *           and every part after it are counted lost, a record each (the
 *           "layout lost" that the end of the trace then shows)
 *
 * A layout starts by bringing the shadow up to date with the whole VMA
 * tree (a VMA it knows keeps its id); the reader has been told of none of
 * its regions yet (&pgf_shadow.gen moves on). Then a part: the LAYOUT
 * record first, then a MAP for each region not yet told, in address order
 * from &pgf_shadow.cursor, up to half the control ring, together or not
 * at all. A part that does not fit waits for the reader to drain the
 * ring; so does the next one: a layout larger than the ring comes in as
 * many parts as it needs (&pgf_shadow.sending), and the changes made
 * between two parts are recorded among them (pgf_tell_now()). Fault
 * records are dropped until the last part is in.
 *
 * Context: may sleep (allocates).
 * Return: true if records went into the trace.
 */
bool pgf_regions_layout(struct pgf_trace *t, struct mm_struct *mm,
			bool exiting)
{
	struct pgf_shadow *sh = &t->shadow;
	struct pgf_batch b = { .sh = sh, .gfp = GFP_KERNEL_ACCOUNT };
	size_t budget = READ_ONCE(t->ctl.alloc) / 2;
	struct pgf_range rg[PGF_MM_RANGES];
	unsigned long next = ULONG_MAX;
	struct vm_area_struct *vma;
	unsigned int how;
	struct pgf_region *r;
	unsigned int nr;

	lockdep_assert_held(&t->mutex);
	mmap_assert_locked(mm);
	if (sh->sending && pgf_regions_changed(t, mm)) {
		/* Another process changed @mm: that goes first. */
		pgf_regions_record(t, mm, GFP_KERNEL_ACCOUNT);
		if (!sh->sending)
			return false;	/* lost: the next call starts anew */
	}
	if (!sh->sending) {
		/* Faults are dropped until the last part is in. */
		nr = pgf_take_ranges(t, mm, rg, true);
		pgf_notes_done(mm);
		nr = pgf_gather(sh, mm, rg, nr);
		if (!pgf_update(t, mm, rg, nr, NULL, GFP_KERNEL_ACCOUNT))
			goto out_lost;
		sh->gen++;
		sh->cursor = 0;
		pgf_rec_add(t, &b, PGF_REC_LAYOUT, sh->nr);
	}
	for (r = pgf_first_after(sh, sh->cursor); r; r = pgf_next(r)) {
		if (pgf_told(sh, r))
			continue;
		if (b.len >= budget) {
			next = r->start;
			break;
		}
		vma = vma_lookup(mm, r->start);
		if (WARN_ON_ONCE(!vma || !pgf_is_vma(r, vma)))
			goto out_lost;
		pgf_region_add(t, &b, PGF_REC_MAP, r, vma);
	}
	if (b.failed)
		goto out_lost;
	how = next == ULONG_MAX ? PGF_REGIONS_LAST : PGF_REGIONS_PART;
	if (!pgf_emit_regions(t, sh->batch, b.len, b.nr, how,
			      GFP_KERNEL_ACCOUNT)) {
		pgf_batch_done(sh);
		if (exiting)
			pgf_regions_lost_nr(t, b.nr + pgf_untold(sh, next));
		return false;
	}
	for (r = pgf_first_after(sh, sh->cursor); r && r->start < next;
	     r = pgf_next(r))
		r->told = sh->gen;
	sh->cursor = next;
	sh->sending = how & PGF_REGIONS_PART;
	pgf_batch_done(sh);
	return true;

out_lost:
	pgf_batch_done(sh);
	pgf_regions_lost(t);
	return false;
}

/**
 * pgf_regions_init() - what a trace needs to record regions
 * @t: the new trace
 *
 * Return: 0 or -ENOMEM.
 */
int pgf_regions_init(struct pgf_trace *t)
{
	t->shadow.by_addr = RB_ROOT;
	t->shadow.by_vma = RB_ROOT;
	t->shadow.path = kmalloc(PATH_MAX, GFP_KERNEL_ACCOUNT);
	return t->shadow.path ? 0 : -ENOMEM;
}

/**
 * pgf_regions_bind() - follow the VMA changes of an mm
 * @t: the trace
 * @mm: the mm its process now uses, or NULL to follow none
 * @all: the next update compares the whole tree (a new mm)
 *
 * Context: t->mutex held, and either @mm's mmap lock, or exec_update_lock
 * held for writing by the exec that installed @mm.
 */
void pgf_regions_bind(struct pgf_trace *t, struct mm_struct *mm, bool all)
{
	struct mm_struct *old = t->mm;

	lockdep_assert_held(&t->mutex);
	if (old == mm)
		return;
	t->shadow.sending = false;
	if (old) {
		atomic_dec(&old->pgf.traces);
#ifdef PGF_STAGE_REARM
		if (t->reref_bound)
			atomic_dec(&old->pgf.rereference);
#endif
		/* Another trace of this mm must now compare it all. */
		atomic_inc(&old->pgf_notes.epoch);
		mmdrop(old);
	}
	t->mm = mm;
#ifdef PGF_STAGE_CHANGES
	pgf_changes_bind(t, mm);
#endif
#ifdef PGF_STAGE_REARM
	t->reref_bound = false;
#endif
	if (!mm)
		return;
	mmgrab(mm);
	atomic_inc(&mm->pgf.traces);
#ifdef PGF_STAGE_REARM
	/* Re-reference modes see the first access to every page. */
#ifdef PGF_STAGE_WINDOW
	t->reref_bound = t->interval_ms || t->window_pages;
#else
	t->reref_bound = t->interval_ms;
#endif
	if (t->reref_bound)
		atomic_inc(&mm->pgf.rereference);
#endif
	atomic_inc(&mm->pgf_notes.epoch);
	if (all)
		mm->pgf.nr = PGF_MM_ALL;
}

static void pgf_shadow_clear(struct pgf_shadow *sh)
{
	struct pgf_region *r, *n;

	rbtree_postorder_for_each_entry_safe(r, n, &sh->by_addr, by_addr)
		pgf_region_kfree(sh, r);
	while (sh->spare) {
		r = sh->spare;
		sh->spare = r->next;
		pgf_region_kfree(sh, r);
	}
	sh->nr_spare = 0;
	sh->by_addr = RB_ROOT;
	sh->by_vma = RB_ROOT;
	sh->nr = 0;
}

/**
 * pgf_regions_reset() - forget the regions: the address space is gone
 * @t: the trace
 *
 * Context: t->mutex held, nobody recording the mm (an exec, the exit).
 */
void pgf_regions_reset(struct pgf_trace *t)
{
	lockdep_assert_held(&t->mutex);
	pgf_shadow_clear(&t->shadow);
	t->shadow.sending = false;
	kvfree(t->shadow.batch);
	t->shadow.batch = NULL;
	t->shadow.batch_cap = 0;
}

/**
 * pgf_regions_free() - free what pgf_regions_init() and the shadow hold
 * @t: the trace, no longer referenced
 */
void pgf_regions_free(struct pgf_trace *t)
{
	pgf_shadow_clear(&t->shadow);
	kvfree(t->shadow.batch);
	kfree(t->shadow.path);
	if (t->mm) {
#ifdef PGF_STAGE_CHANGES
		pgf_changes_bind(t, NULL);
#endif
		atomic_dec(&t->mm->pgf.traces);
		atomic_inc(&t->mm->pgf_notes.epoch);
		mmdrop(t->mm);
	}
}

/*
 * Add [@start, @end) to the noted ranges; when all are in use, widen the
 * one that grows least.
 */
static void pgf_note(struct mm_struct *mm, unsigned long start,
		     unsigned long end)
{
	struct pgf_mm_notes *n = &mm->pgf_notes;
	unsigned long best_cost = ULONG_MAX, cost;
	struct pgf_mm *m = &mm->pgf;
	unsigned int i, best = 0;

	if (m->nr == PGF_MM_ALL)
		return;
	for (i = 0; i < m->nr; i++) {
		if (start <= n->end[i] && end >= n->start[i]) {
			n->start[i] = min(n->start[i], start);
			n->end[i] = max(n->end[i], end);
			return;
		}
	}
	if (m->nr < PGF_MM_RANGES) {
		n->start[m->nr] = start;
		n->end[m->nr] = end;
		m->nr++;
		return;
	}
	for (i = 0; i < m->nr; i++) {
		cost = start < n->start[i] ? n->start[i] - start : 0;
		cost += end > n->end[i] ? end - n->end[i] : 0;
		if (cost < best_cost) {
			best_cost = cost;
			best = i;
		}
	}
	n->start[best] = min(n->start[best], start);
	n->end[best] = max(n->end[best], end);
}

/*
 * The trace that follows @mm, found through its owner (the process that
 * created it: CONFIG_MEMCG keeps it), with a reference; or NULL. The
 * owner's exec may end its trace meanwhile: traces are freed an RCU grace
 * period after their last reference goes (pgf_trace_free()).
 */
static struct pgf_trace *pgf_trace_of_owner(struct mm_struct *mm)
{
	struct pgf_trace *t = NULL;
#ifdef CONFIG_MEMCG
	struct task_struct *owner;

	rcu_read_lock();
	owner = rcu_dereference(mm->owner);
	if (owner)
		t = pgf_trace_of(owner->signal);
	/* t->mm is written under t->mutex; a look suffices to compare. */
	if (t && (data_race(t->mm) != mm || !refcount_inc_not_zero(&t->ref)))
		t = NULL;
	rcu_read_unlock();
#endif
	return t;
}

#ifdef CONFIG_PGFAULT_HISTORY_DEBUG
/*
 * Test kernels only: /sys/kernel/debug/pgfault_history_test/ holds a
 * thread at a point a test names, so that the test can fault while it
 * waits. Write a process's pid (in the initial namespace) to hold_noted
 * to hold the task work that records its noted changes before it takes
 * any lock (the changes noted, not recorded), or to hold_locked to hold
 * that task work with t->mutex held (a fatal signal does not end that
 * hold). Write 0 to let it go: a held thread sleeps until then, 60 s at
 * most. held counts the holds begun.
 */
static u32 pgf_hold_noted, pgf_hold_locked, pgf_held;
#ifdef PGF_STAGE_REARM
static u32 pgf_hold_walk, pgf_pick;
#endif
static DECLARE_WAIT_QUEUE_HEAD(pgf_hold_wait);

static void pgf_test_hold(u32 *knob, u32 pid, bool killable)
{
	if (READ_ONCE(*knob) != pid)
		return;
	WRITE_ONCE(pgf_held, pgf_held + 1);
	if (killable)
		wait_event_killable_timeout(pgf_hold_wait,
					    READ_ONCE(*knob) != pid, 60 * HZ);
	else
		wait_event_timeout(pgf_hold_wait, READ_ONCE(*knob) != pid,
				   60 * HZ);
}

static int pgf_hold_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u32 *)data);
	return 0;
}

static int pgf_hold_set(void *data, u64 val)
{
	WRITE_ONCE(*(u32 *)data, val);
	wake_up_all(&pgf_hold_wait);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(pgf_hold_fops, pgf_hold_get, pgf_hold_set, "%llu\n");

#ifdef PGF_STAGE_REARM
/**
 * pgf_test_hold_walk() - hold a walk of @mm if a test asks it
 * @mm: the mm walked
 *
 * A process's pid in hold_walk holds a walk of its mm (a re-arm, a
 * sampling scan) after its first piece, in pgf_walk_pause().
 */
void pgf_test_hold_walk(struct mm_struct *mm)
{
	u32 pid = READ_ONCE(pgf_hold_walk);
	struct task_struct *p;
	bool ours = false;

	if (!pid)
		return;
	rcu_read_lock();
	p = find_task_by_pid_ns(pid, &init_pid_ns);
	if (p)
		ours = READ_ONCE(p->mm) == mm;
	rcu_read_unlock();
	if (ours)
		pgf_test_hold(&pgf_hold_walk, pid, false);
}

/**
 * pgf_test_pick() - the thread a test has the clock's next tick pick
 * @t: the trace
 *
 * A thread id in pick, of @t's process, is the thread the next tick
 * queues its task work on, running or not (as a thread that goes to
 * sleep in the kernel just after it was picked); once.
 *
 * Return: that thread, with a reference, or NULL.
 */
struct task_struct *pgf_test_pick(struct pgf_trace *t)
{
	struct task_struct *p = NULL;
	u32 tid = READ_ONCE(pgf_pick);

	if (!tid)
		return NULL;
	rcu_read_lock();
	p = find_task_by_pid_ns(tid, &init_pid_ns);
	if (p && task_tgid(p) == t->tgid && cmpxchg(&pgf_pick, tid, 0) == tid)
		get_task_struct(p);
	else
		p = NULL;
	rcu_read_unlock();
	if (p)
		WRITE_ONCE(pgf_held, pgf_held + 1);
	return p;
}
#endif

static int __init pgf_test_hold_init(void)
{
	struct dentry *d = debugfs_create_dir("pgfault_history_test", NULL);

	debugfs_create_file_unsafe("hold_noted", 0600, d, &pgf_hold_noted,
				   &pgf_hold_fops);
	debugfs_create_file_unsafe("hold_locked", 0600, d, &pgf_hold_locked,
				   &pgf_hold_fops);
#ifdef PGF_STAGE_REARM
	debugfs_create_file_unsafe("hold_walk", 0600, d, &pgf_hold_walk,
				   &pgf_hold_fops);
	debugfs_create_u32("pick", 0600, d, &pgf_pick);
#endif
	debugfs_create_u32("held", 0400, d, &pgf_held);
	debugfs_create_u32("alias", 0600, d, &pgf_alias);
	debugfs_create_u32("aliased", 0400, d, &pgf_aliased);
	return 0;
}
late_initcall(pgf_test_hold_init);
#else
static u32 pgf_hold_noted, pgf_hold_locked;

static inline void pgf_test_hold(u32 *knob, u32 pid, bool killable) { }
#endif

/* pgf_regions_catch_up() with t->mutex held. */
static void __pgf_regions_catch_up(struct pgf_trace *t, struct mm_struct *mm)
{
	mmap_assert_locked(mm);
	lockdep_assert_held(&t->mutex);
	pgf_test_hold(&pgf_hold_locked, task_tgid_nr(current), false);
	if (t->mm == mm && READ_ONCE(t->active) && pgf_regions_changed(t, mm))
		pgf_regions_record(t, mm, GFP_KERNEL_ACCOUNT);
}

/**
 * pgf_regions_catch_up() - record the changes noted in a traced mm
 * @t: the trace
 * @mm: the mm it follows, its mmap lock held
 * @killable: give up at a fatal signal while waiting for t->mutex
 *
 * Called by the thread that made a change, on its way back to user space;
 * by a traced fault that finds a change first; by the exit of the
 * process. GFP_KERNEL: nothing is lost for want of memory that reclaim
 * can give.
 *
 * Context: may sleep; takes t->mutex.
 * Return: 0, or -EINTR if @killable and a fatal signal came first (the
 * changes stay noted: the exit records them).
 */
int pgf_regions_catch_up(struct pgf_trace *t, struct mm_struct *mm,
			 bool killable)
{
	if (!killable)
		mutex_lock(&t->mutex);
	else if (mutex_lock_killable(&t->mutex))
		return -EINTR;
	__pgf_regions_catch_up(t, mm);
	mutex_unlock(&t->mutex);
	return 0;
}

static void pgf_regions_task_work(struct callback_head *head)
{
	struct pgf_trace *t = container_of(head, struct pgf_trace,
					   regions_twork);
	struct mm_struct *mm = NULL;

	/*
	 * A change noted from now on queues the work again; one noted before
	 * is seen under the mmap lock taken below.
	 */
	clear_bit(PGF_REGIONS_TWORK, &t->bits);
	pgf_test_hold(&pgf_hold_noted, task_tgid_nr(current), true);
	scoped_guard(mutex, &t->mutex) {
		if (t->mm && READ_ONCE(t->active) && mmget_not_zero(t->mm))
			mm = t->mm;
	}
	/* A thread killed meanwhile leaves the changes to the exit. */
	if (mm && !mmap_read_lock_killable(mm)) {
		pgf_regions_catch_up(t, mm, true);
		mmap_read_unlock(mm);
	}
	if (mm)
		mmput(mm);
	pgf_trace_put(t);
}

/*
 * Have current record @t's noted changes before it returns to user space,
 * unless that is already asked of a thread. Takes over the reference on
 * @t if it does.
 */
static bool pgf_regions_queue(struct pgf_trace *t)
{
	if (current->flags & PF_KTHREAD)
		return false;
	if (test_and_set_bit(PGF_REGIONS_TWORK, &t->bits))
		return false;
	init_task_work(&t->regions_twork, pgf_regions_task_work);
	if (!task_work_add(current, &t->regions_twork, TWA_RESUME))
		return true;
	clear_bit(PGF_REGIONS_TWORK, &t->bits);	/* current is exiting */
	return false;
}

/*
 * A change was noted in @mm, which a trace follows (write-locked). The
 * trace of current's process if it follows @mm, else the trace of the
 * mm's owner (another process changed it: a userfaultfd monitor, a
 * CLONE_VM child of its own), is asked to record it before current
 * returns to user space. Without CONFIG_MEMCG (no owner), a change by
 * another process is recorded at the next traced fault or change.
 */
static void pgf_regions_kick(struct mm_struct *mm, bool first)
{
	struct pgf_trace *t = NULL;

	if (current->mm == mm)
		t = pgf_trace_of(current->signal);
	/* Written under t->mutex; an unlocked look suffices to compare. */
	if (t && data_race(t->mm) == mm) {
		if (READ_ONCE(t->active) &&
		    !test_bit(PGF_REGIONS_TWORK, &t->bits)) {
			refcount_inc(&t->ref);
			if (!pgf_regions_queue(t))
				pgf_trace_put(t);
		}
		return;
	}
	if (!first)
		return;		/* asked at the first note */
	t = pgf_trace_of_owner(mm);
	if (t && !pgf_regions_queue(t))
		pgf_trace_put(t);
}

/*
 * Do the changes noted in @mm meet @vma, or can the notes not tell (see
 * pgf_take_ranges())? A fault in a VMA that no note meets falls in a
 * region the trace has recorded: it need not wait for the others.
 *
 * Under the mmap lock the notes are stable. Under the per-VMA lock they
 * may be noted meanwhile, under the mmap write lock, but not on @vma:
 * changing it waits for that lock (vma_start_write()). And every note on
 * @vma made before it was read-locked is seen: lock_vma_under_rcu() read
 * mm_lock_seq with acquire after the writer's mmap_write_unlock()
 * released it, and a note before the writer's unlock.
 */
static bool pgf_notes_meet(struct pgf_trace *t, struct mm_struct *mm,
			   struct vm_area_struct *vma)
{
	struct pgf_mm_notes *n = &mm->pgf_notes;
	struct pgf_mm *m = &mm->pgf;
	unsigned int nr = READ_ONCE(m->nr), i;

	if (nr == PGF_MM_ALL || nr > PGF_MM_RANGES ||
	    atomic_read(&m->traces) > 1)
		return true;
	/* Written under t->mutex; a look suffices to compare. */
	if (data_race(t->shadow.epoch) != atomic_read(&n->epoch))
		return true;
	for (i = 0; i < nr; i++) {
		if (READ_ONCE(n->start[i]) < vma->vm_end &&
		    READ_ONCE(n->end[i]) > vma->vm_start)
			return true;
	}
	return false;
}

/**
 * pgf_fault_begin() - a fault of a traced thread finds changes noted
 * @vma: the VMA of the fault, in current's mm
 * @flags: the fault's FAULT_FLAG_*
 *
 * Only a fault in a VMA that the noted changes meet records them first:
 * under the per-VMA lock it is retried under the mmap lock, which that
 * takes; under the mmap lock it waits for t->mutex, killably where the
 * fault may be, as __folio_lock_or_retry() waits for a folio, and not at
 * all where it may not wait (FAULT_FLAG_RETRY_NOWAIT).
 *
 * Return: 0 once the changes are recorded or when they do not meet @vma;
 * else VM_FAULT_RETRY, with the fault's lock released unless the fault
 * asked not to wait (FAULT_FLAG_RETRY_NOWAIT).
 */
vm_fault_t pgf_fault_begin(struct vm_area_struct *vma, unsigned int flags)
{
	struct pgf_trace *t = pgf_trace_of(current->signal);
	struct mm_struct *mm = vma->vm_mm;

	/* t->mm is written under t->mutex; a look suffices to compare. */
	if (mm != current->mm || !t || data_race(t->mm) != mm ||
	    !READ_ONCE(t->active) || !pgf_notes_meet(t, mm, vma))
		return 0;
	if (flags & FAULT_FLAG_VMA_LOCK) {
		vma_end_read(vma);
		return VM_FAULT_RETRY;
	}
	if (!(flags & FAULT_FLAG_ALLOW_RETRY)) {
		pgf_regions_catch_up(t, mm, false);
		return 0;
	}
	if (flags & FAULT_FLAG_RETRY_NOWAIT) {
		if (!mutex_trylock(&t->mutex))
			return VM_FAULT_RETRY;	/* the lock kept, as asked */
		__pgf_regions_catch_up(t, mm);
		mutex_unlock(&t->mutex);
		return 0;
	}
	if (!pgf_regions_catch_up(t, mm, flags & FAULT_FLAG_KILLABLE))
		return 0;
	mmap_read_unlock(mm);
	return VM_FAULT_RETRY;
}

/* Called by the inline vm_flags modifiers, in modules too: see core.c. */
void pgf_mm_changed(struct mm_struct *mm, unsigned long start,
		    unsigned long end)
{
	bool first = !mm->pgf.nr;

	mmap_assert_write_locked(mm);
	if (start >= end)
		return;
	pgf_note(mm, start, end);
	pgf_regions_kick(mm, first);
}
EXPORT_SYMBOL(pgf_mm_changed);
