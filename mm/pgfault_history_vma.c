// SPDX-License-Identifier: GPL-2.0
/*
 * Region (VMA) records for pgfault_history: the initial layout of a traced
 * process's address space and every change to it.
 *
 * DOC: pgfault_history regions
 *
 * The trace keeps a shadow of the regions it has told the reader about:
 * for each VMA its range, permissions, file offset, label, and an id that
 * is a sequence number (the VMA's address is kept only to recognise it
 * later and is never written out). Every change to the VMAs of an mm is
 * made under its mmap lock held for writing, whatever path makes it:
 * mmap, munmap, mremap, mprotect and madvise splits and merges, brk,
 * stack growth, MAP_FIXED over old mappings, userfaultfd registration.
 * So when a traced thread releases or downgrades that lock on its own mm
 * (pgfault_history_mm_unlocking()), the VMA tree is compared with the
 * shadow and the difference written as records:
 *
 * - unmap ID: a VMA that is gone;
 * - change ID ...: the same VMA with a new range, permissions or label
 *   (the result of a split, merge, mremap in place, protection change);
 * - map ID ...: a VMA that is new.
 *
 * A split shows as a change of the original and a map of the new part; a
 * merge as a change of the survivor and an unmap of the other, as mm does
 * them. The records of one lock hold are written together, unmaps first,
 * and nothing else can change the tree in between, so none is missed or
 * counted twice. A change made while the tracing thread is not the one
 * holding the lock (another process writing to this mm, a thread not yet
 * flagged) is recorded at the next release by a traced thread.
 *
 * The records of one lock hold are built into a batch first and go into
 * the trace together or not at all (pgf_emit_regions()).
 *
 * LAYOUT N is followed by N map records that describe the whole address
 * space: it starts every trace (taken under the mmap lock before any fault
 * is recorded), and it is sent again, in full, after region records have
 * been lost (a full buffer, no memory): at the next change, or when the
 * reader has drained the buffer (pgf_resend_layout()). Until it is in the
 * trace, fault records are dropped and counted, so a reader can always
 * rebuild the layout and place every fault it is given. An exec record
 * means the old address space is gone; the new one is announced by map
 * records as it is built.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmap_lock.h>
#include <linux/pgfault_history.h>
#include <linux/pgfault_history_mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#define PGF_LABEL_HEAP		0x01
#define PGF_LABEL_STACK		0x02

static void pgf_region_of(struct pgf_region *r, struct vm_area_struct *vma)
{
	vm_flags_t f = vma->vm_flags;

	r->vma = vma;
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
	r->seen = false;
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

/*
 * The records of one change, built outside the trace's lock and written
 * together (pgf_emit_regions()).
 */
struct pgf_batch {
	void *buf;
	size_t len, cap;
	unsigned int nr;
	bool failed;		/* out of memory: the change is lost */
};

/* Room for @len more bytes; NULL (and the batch failed) if there is none. */
static void *pgf_batch_add(struct pgf_batch *b, size_t len)
{
	void *p;

	if (b->failed)
		return NULL;
	if (b->len + len > b->cap) {
		size_t cap = max3(b->cap * 2, b->len + len, (size_t)PAGE_SIZE);

		p = kvmalloc(cap, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!p) {
			b->failed = true;
			return NULL;
		}
		if (b->len)
			memcpy(p, b->buf, b->len);
		kvfree(b->buf);
		b->buf = p;
		b->cap = cap;
	}
	p = b->buf + b->len;
	b->len += len;
	b->nr++;
	return p;
}

/* Add a MAP or CHANGE record for @r. */
static void pgf_region_add(struct pgf_trace *t, struct pgf_batch *b,
			   enum pgf_rec_type type, const struct pgf_region *r,
			   struct vm_area_struct *vma, char *path)
{
	const struct inode *inode;
	struct pgf_region_rec *rr;
	const char *name;
	size_t n, len;

	name = pgf_region_name(vma, path, PATH_MAX);
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

static void pgf_small_add(struct pgf_trace *t, struct pgf_batch *b,
			  enum pgf_rec_type type, u64 a)
{
	struct pgf_rec *rec = pgf_batch_add(b, sizeof(*rec));

	if (!rec)
		return;
	pgf_rec_init(t, rec, type, sizeof(*rec));
	rec->a = a;
}

static int pgf_cmp_vma(const void *a, const void *b)
{
	const struct pgf_region *x = *(const struct pgf_region * const *)a;
	const struct pgf_region *y = *(const struct pgf_region * const *)b;

	return x->vma < y->vma ? -1 : x->vma > y->vma;
}

/* The old entry for @vma, by binary search in @by_vma. */
static struct pgf_region *pgf_find(struct pgf_region **by_vma, unsigned int nr,
				   const void *vma)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (by_vma[mid]->vma == vma)
			return by_vma[mid];
		if (by_vma[mid]->vma < vma)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/**
 * pgf_regions_sync() - tell the reader what changed in the address space
 * @t: the trace
 * @mm: the traced mm, its mmap lock held (for writing, or for reading
 *      when nobody can be writing)
 * @layout: send the whole layout (a LAYOUT record and a MAP per region)
 *          rather than the difference
 *
 * The records go into the trace together or not at all. If they are lost
 * (full buffer, no memory), they are counted and the reader is owed a
 * layout, which is sent instead of the next difference.
 *
 * Context: t->mutex held; may sleep (allocates).
 */
void pgf_regions_sync(struct pgf_trace *t, struct mm_struct *mm, bool layout)
{
	struct pgf_shadow *sh = &t->shadow;
	struct pgf_region *cur = NULL, **by_vma = NULL, *old;
	struct pgf_batch b = { };
	struct vm_area_struct *vma;
	unsigned int nr = 0, cap, i;
	u64 next_id = sh->next_id;
	struct vma_iterator vmi;
	char *path = NULL;

	lockdep_assert_held(&t->mutex);
	mmap_assert_locked(mm);
	layout |= READ_ONCE(t->need_layout);

	cap = mm->map_count;
	cur = kvmalloc_array(max(cap, 1U), sizeof(*cur), GFP_KERNEL_ACCOUNT);
	by_vma = kvmalloc_array(max(sh->nr, 1U), sizeof(*by_vma),
				GFP_KERNEL_ACCOUNT);
	path = kmalloc(PATH_MAX, GFP_KERNEL_ACCOUNT);
	if (!cur || !by_vma || !path)
		goto out_lost;

	for (i = 0; i < sh->nr; i++)
		by_vma[i] = &sh->v[i];
	sort(by_vma, sh->nr, sizeof(*by_vma), pgf_cmp_vma, NULL);

	/* Ids: a VMA the shadow knows keeps its id, unless its file changed. */
	vma_iter_init(&vmi, mm, 0);
	for_each_vma(vmi, vma) {
		if (WARN_ON_ONCE(nr == cap))
			break;
		pgf_region_of(&cur[nr], vma);
		old = pgf_find(by_vma, sh->nr, vma);
		if (old && !old->seen && old->file == cur[nr].file) {
			old->seen = true;
			cur[nr].id = old->id;
			cur[nr].seen = true;	/* here: "had an id before" */
		} else {
			cur[nr].id = ++next_id;
		}
		nr++;
	}

	if (layout) {
		pgf_small_add(t, &b, PGF_REC_LAYOUT, nr);
		vma_iter_init(&vmi, mm, 0);
		i = 0;
		for_each_vma(vmi, vma) {
			if (i == nr)
				break;
			pgf_region_add(t, &b, PGF_REC_MAP, &cur[i], vma, path);
			i++;
		}
	} else {
		for (i = 0; i < sh->nr; i++)
			if (!sh->v[i].seen)
				pgf_small_add(t, &b, PGF_REC_UNMAP, sh->v[i].id);
		vma_iter_init(&vmi, mm, 0);
		i = 0;
		for_each_vma(vmi, vma) {
			if (i == nr)
				break;
			if (!cur[i].seen) {
				pgf_region_add(t, &b, PGF_REC_MAP, &cur[i], vma,
					       path);
			} else {
				old = pgf_find(by_vma, sh->nr, vma);
				if (!pgf_region_same(old, &cur[i]))
					pgf_region_add(t, &b, PGF_REC_CHANGE,
						       &cur[i], vma, path);
			}
			i++;
		}
	}
	if (b.failed)
		goto out_lost;
	if (b.nr)
		pgf_emit_regions(t, b.buf, b.len, b.nr, layout);
	for (i = 0; i < nr; i++)
		cur[i].seen = false;
	kvfree(sh->v);
	sh->v = cur;
	sh->nr = nr;
	sh->next_id = next_id;
	cur = NULL;
	goto out_free;

out_lost:
	/*
	 * Out of memory: the change cannot be told. Count it as one lost
	 * record, and owe the reader the whole layout.
	 */
	for (i = 0; i < sh->nr; i++)
		sh->v[i].seen = false;
	spin_lock(&t->lock);
	if (!t->dead) {
		__pgf_count_lost(t, PGF_KIND_OTHER);
		t->need_layout = true;
	}
	spin_unlock(&t->lock);
out_free:
	kvfree(b.buf);
	kfree(path);
	kvfree(by_vma);
	kvfree(cur);
}

/**
 * pgf_regions_reset() - forget the regions: the address space is gone
 * @t: the trace
 *
 * Context: t->mutex held.
 */
void pgf_regions_reset(struct pgf_trace *t)
{
	lockdep_assert_held(&t->mutex);
	kvfree(t->shadow.v);
	t->shadow.v = NULL;
	t->shadow.nr = 0;
}

void __pgf_mm_unlocking(struct mm_struct *mm)
{
	struct pgf_trace *t;

	if (current->mm != mm)
		return;
	t = pgf_trace_of(current->signal);
	if (!t || !READ_ONCE(t->active))
		return;
	mutex_lock(&t->mutex);
	if (READ_ONCE(t->active))
		pgf_regions_sync(t, mm, false);
	mutex_unlock(&t->mutex);
}
