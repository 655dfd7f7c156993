// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history: the page cache pages of a traced process's file I/O.
 *
 * DOC: pgfault_history file I/O
 *
 * A trace started with "files" records, besides the faults, the page
 * cache pages every read and write of the process's threads uses: the
 * read family (filemap_read(): read, pread64, readv, preadv2, io_uring
 * reads, and the reads of the kernel on the process's behalf), splice
 * and sendfile (filemap_splice_read(), and copy_file_range() where it
 * splices), tmpfs reads (shmem_file_read_iter(),
 * shmem_file_splice_read()), and buffered writes
 * (generic_perform_write(), iomap_file_buffered_write()). Each call
 * gives one record per run of consecutive pages that fared alike
 * (&struct pgf_cache_rec): found in the page cache (hit), read in for
 * this call (miss; for a write, a page the cache did not hold), read in
 * by the call's readahead and not used by it (readahead), or a hole of a
 * tmpfs file (read as zeroes, no page); direct I/O (__iomap_dio_rw(),
 * ->direct_IO()) gives one record of the pages it asks for (direct).
 * A file is named once in the trace (&struct pgf_file_rec), by device and
 * inode as its regions are, at the first call that uses it.
 *
 * A call is followed by its thread's &struct pgf_io (&task_struct.pgf_io,
 * made at the thread's first traced call and freed when it exits),
 * between pgfault_history_io_begin() and pgfault_history_io_end(): the
 * pages the kernel reads in for the call (pgfault_history_io_fill(), from
 * read_pages() and the single-folio reads of filemap_get_pages()) are set
 * in a bitmap; the pages the call has used (its position) are recorded,
 * in order, as hit or miss by that bitmap, whenever pages are read in and
 * at the end; pages read in and not used are recorded as readahead. The
 * records go into the CPU rings, as faults do, and count as OTHER when
 * lost; the exit record gives the totals kept and lost.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgfault_history.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "internal.h"

/* A file the trace has named: its id for (device, inode). */
struct pgf_file {
	struct rb_node node;
	dev_t dev;
	unsigned long ino;
	u64 id;
};

static int pgf_file_cmp(dev_t dev, unsigned long ino, const struct pgf_file *f)
{
	if (dev != f->dev)
		return dev < f->dev ? -1 : 1;
	if (ino != f->ino)
		return ino < f->ino ? -1 : 1;
	return 0;
}

/* The id of (@dev, @ino), or -1; &pgf_trace.files_lock held. */
static s64 __pgf_file_find(struct pgf_trace *t, dev_t dev, unsigned long ino)
{
	struct rb_node *n = t->files_tree.rb_node;

	lockdep_assert_held(&t->files_lock);
	while (n) {
		struct pgf_file *f = rb_entry(n, struct pgf_file, node);
		int c = pgf_file_cmp(dev, ino, f);

		if (!c)
			return f->id;
		n = c < 0 ? n->rb_left : n->rb_right;
	}
	return -1;
}

static void __pgf_file_insert(struct pgf_trace *t, struct pgf_file *new)
{
	struct rb_node **p = &t->files_tree.rb_node, *parent = NULL;

	lockdep_assert_held(&t->files_lock);
	while (*p) {
		parent = *p;
		if (pgf_file_cmp(new->dev, new->ino,
				 rb_entry(parent, struct pgf_file, node)) < 0)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&new->node, parent, p);
	rb_insert_color(&new->node, &t->files_tree);
}

/*
 * Name @file in the trace: a FILE record in the control ring, before any
 * record of its pages. Under &pgf_trace.files_mutex, so a file is named
 * once. Returns its id, or -1 if it could not be named (no memory, the
 * budget, the ring full: the call's records are then counted as lost).
 */
static s64 pgf_file_name(struct pgf_trace *t, struct file *file, dev_t dev,
			 unsigned long ino)
{
	struct pgf_file_rec *fr;
	struct pgf_file *f;
	const char *name;
	char *buf;
	size_t len;
	s64 id = -1;

	f = kmalloc(sizeof(*f), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	buf = __getname();
	if (!f || !buf)
		goto out_free;
	name = d_path(file_user_path(file), buf, PATH_MAX);
	if (IS_ERR(name))
		name = "";
	len = ALIGN(sizeof(*fr) + strlen(name) + 1, PGF_REC_ALIGN);
	/* The path is at the end of buf: the record goes in front of it. */
	fr = kmalloc(len, GFP_KERNEL | __GFP_NOWARN);
	if (!fr)
		goto out_free;
	if (!pgf_charge(t, sizeof(*f), false))
		goto out_free_rec;
	f->dev = dev;
	f->ino = ino;
	f->id = t->next_file_id;
	pgf_rec_init(t, &fr->rec, PGF_REC_FILE, len);
	fr->rec.a = f->id;
	fr->rec.b = ino;
	fr->major = MAJOR(dev);
	fr->minor = MINOR(dev);
	memset(fr->name, 0, len - sizeof(*fr));
	memcpy(fr->name, name, strlen(name));
	if (!pgf_emit(t, &fr->rec, PGF_KIND_OTHER)) {
		pgf_uncharge(t, sizeof(*f));
		goto out_free_rec;
	}
	spin_lock(&t->files_lock);
	t->next_file_id++;
	__pgf_file_insert(t, f);
	spin_unlock(&t->files_lock);
	id = f->id;
	f = NULL;
out_free_rec:
	kfree(fr);
out_free:
	if (buf)
		__putname(buf);
	kfree(f);
	return id;
}

/* The id of @file in @t, naming it first if it has none; -1: none. */
static s64 pgf_file_id(struct pgf_trace *t, struct file *file)
{
	struct inode *inode = file_inode(file);
	dev_t dev = inode->i_sb->s_dev;
	s64 id;

	spin_lock(&t->files_lock);
	id = __pgf_file_find(t, dev, inode->i_ino);
	spin_unlock(&t->files_lock);
	if (id >= 0)
		return id;
	mutex_lock(&t->files_mutex);
	spin_lock(&t->files_lock);
	id = __pgf_file_find(t, dev, inode->i_ino);
	spin_unlock(&t->files_lock);
	if (id < 0)
		id = pgf_file_name(t, file, dev, inode->i_ino);
	mutex_unlock(&t->files_mutex);
	return id;
}

/**
 * pgf_files_free() - forget the files a trace named
 * @t: the trace, being freed (its budget is uncharged as a whole)
 */
void pgf_files_free(struct pgf_trace *t)
{
	struct pgf_file *f, *next;

	rbtree_postorder_for_each_entry_safe(f, next, &t->files_tree, node)
		kfree(f);
	t->files_tree = RB_ROOT;
}

/* Write the run put together so far. */
static void pgf_io_put_run(struct pgf_io *io)
{
	struct pgf_cache_rec rec;

	if (!io->run_pages)
		return;
	pgf_rec_init(io->t, &rec.rec, PGF_REC_CACHE, sizeof(rec));
	rec.rec.flags = (io->write ? PGF_CACHE_WRITE : 0) |
			io->run_how << PGF_CACHE_SHIFT;
	rec.rec.a = io->id;
	rec.rec.b = io->run_start;
	rec.pages = io->run_pages;
	pgf_emit_cache(io->t, &rec.rec);
	io->run_pages = 0;
}

/* Pages [@index, @index + @nr) fared as @how: add them to the run. */
static void pgf_io_run(struct pgf_io *io, pgoff_t index, unsigned long nr,
		       u8 how)
{
	if (!nr)
		return;
	if (io->run_pages && io->run_how == how &&
	    io->run_start + io->run_pages == index) {
		io->run_pages += nr;
		return;
	}
	pgf_io_put_run(io);
	io->run_start = index;
	io->run_pages = nr;
	io->run_how = how;
}

/*
 * The call has used the pages before @until: record them from the cursor,
 * as misses those marked (read in for it, or absent before a write).
 */
static void pgf_io_used(struct pgf_io *io, pgoff_t until)
{
	pgoff_t i;

	if (until <= io->cursor)
		return;
	if (!io->nr_marked) {
		pgf_io_run(io, io->cursor, until - io->cursor, PGF_CACHE_HIT);
		io->cursor = until;
		return;
	}
	for (i = io->cursor; i < until; i++) {
		bool marked = __test_and_clear_bit(i % PGF_IO_WINDOW,
						   io->marked);

		io->nr_marked -= marked;
		pgf_io_run(io, i, 1, marked ? PGF_CACHE_MISS : PGF_CACHE_HIT);
	}
	io->cursor = until;
}

/* Mark pages [@index, @index + @nr); those it cannot are given to @how. */
static void pgf_io_mark(struct pgf_io *io, pgoff_t index, unsigned long nr,
			u8 how)
{
	pgoff_t end = index + nr, lo, hi;
	pgoff_t limit = min_t(pgoff_t, io->end, io->cursor + PGF_IO_WINDOW);
	pgoff_t i;

	lo = clamp(index, io->cursor, limit);
	hi = clamp(end, io->cursor, limit);
	/* Before the cursor (used already) or past what the call asked. */
	pgf_io_run(io, index, min(end, io->cursor) > index ?
		   min(end, io->cursor) - index : 0, how);
	for (i = lo; i < hi; i++)
		io->nr_marked += !__test_and_set_bit(i % PGF_IO_WINDOW,
						     io->marked);
	if (end > limit)
		pgf_io_run(io, max(index, limit), end - max(index, limit), how);
}

/* Between calls: nothing marked, no file. */
static void pgf_io_reset(struct pgf_io *io)
{
	if (io->nr_marked)
		bitmap_zero(io->marked, PGF_IO_WINDOW);
	io->nr_marked = 0;
	io->mapping = NULL;
}

/* The trace @io follows, if it is still current's and records files. */
static bool pgf_io_live(struct pgf_io *io)
{
	struct pgf_trace *t = pgf_trace_of(current->signal);

	return t == io->t && READ_ONCE(t->active) && READ_ONCE(t->files);
}

/**
 * pgf_io_begin() - a file I/O call of a traced thread begins
 * @file: the file
 * @posp: the call's position in it, which moves as the call goes
 * @count: the bytes it asks for
 * @write: a write
 */
void pgf_io_begin(struct file *file, const loff_t *posp, size_t count,
		  bool write)
{
	struct pgf_trace *t = pgf_trace_of(current->signal);
	struct pgf_io *io = current->pgf_io;
	s64 id;

	if (!t || !READ_ONCE(t->active) || !READ_ONCE(t->files) || !count)
		return;
	if (io && io->mapping) {
		/*
		 * A call inside another (a stacked file system reading its
		 * lower file), or one whose end came while no trace was
		 * active: the inner call, this one, is recorded.
		 */
		if (pgf_io_live(io))
			pgf_count_lost(t, PGF_KIND_CACHE);
		pgf_io_reset(io);
	}
	if (!io) {
		io = kzalloc(sizeof(*io), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!io) {
			pgf_count_lost(t, PGF_KIND_CACHE);
			return;
		}
		current->pgf_io = io;
	}
	id = pgf_file_id(t, file);
	if (id < 0) {
		pgf_count_lost(t, PGF_KIND_CACHE);
		return;
	}
	io->t = t;
	io->id = id;
	io->posp = posp;
	io->pos = *posp;
	io->write = write;
	io->cursor = *posp >> PAGE_SHIFT;
	io->end = DIV_ROUND_UP(*posp + count, PAGE_SIZE);
	io->run_pages = 0;
	io->mapping = file->f_mapping;
}

/**
 * pgf_io_fill() - pages are being read into the page cache for current
 * @mapping: their file's
 * @index: the first page
 * @nr: how many
 */
void pgf_io_fill(struct address_space *mapping, pgoff_t index,
		 unsigned long nr)
{
	struct pgf_io *io = current->pgf_io;

	if (io->mapping != mapping || io->write || !pgf_io_live(io))
		return;
	pgf_io_used(io, *io->posp >> PAGE_SHIFT);
	pgf_io_mark(io, index, nr, PGF_CACHE_READAHEAD);
}

/**
 * pgf_io_write_page() - a write is about to write to a folio
 * @mapping: the file's pages
 * @pos: where in the file
 * @len: the bytes it may write there: up to the end of the folio it
 *	 gets, which may be a large folio the write adds
 *
 * The write has written everything before @pos. The pages of @len the
 * cache does not hold are marked: those the write reaches are misses.
 */
void pgf_io_write_page(struct address_space *mapping, loff_t pos,
		       size_t len)
{
	struct pgf_io *io = current->pgf_io;
	pgoff_t index = pos >> PAGE_SHIFT, last, i;
	void *entry;

	if (io->mapping != mapping || !io->write || !len || !pgf_io_live(io))
		return;
	pgf_io_used(io, index);
	last = min_t(pgoff_t, (pos + len - 1) >> PAGE_SHIFT,
		     io->cursor + PGF_IO_WINDOW - 1);
	for (i = index; i <= last; i++) {
		entry = xa_load(&mapping->i_pages, i);
		if (!entry || xa_is_value(entry))
			pgf_io_mark(io, i, 1, PGF_CACHE_MISS);
	}
}

/**
 * pgf_io_shmem_page() - a tmpfs read is about to look its page up
 * @mapping: the file's pages
 * @index: the page
 *
 * The read has used every page before @index. A page swapped out is read
 * in for it (a miss); a hole is read as zeroes, with no page.
 */
void pgf_io_shmem_page(struct address_space *mapping, pgoff_t index)
{
	struct pgf_io *io = current->pgf_io;
	void *entry;

	if (io->mapping != mapping || io->write || !pgf_io_live(io))
		return;
	pgf_io_used(io, index);
	entry = xa_load(&mapping->i_pages, index);
	if (!entry) {
		pgf_io_run(io, index, 1, PGF_CACHE_HOLE);
		io->cursor = index + 1;
	} else if (xa_is_value(entry)) {
		pgf_io_mark(io, index, 1, PGF_CACHE_MISS);
	}
}

/**
 * pgf_io_end() - the file I/O call ends
 * @pos: where it got to: the pages before it were used
 */
void pgf_io_end(loff_t pos)
{
	struct pgf_io *io = current->pgf_io;
	pgoff_t until, i;

	if (!io->mapping)
		return;
	if (pgf_io_live(io)) {
		until = pos > io->pos ? DIV_ROUND_UP(pos, PAGE_SIZE) : 0;
		pgf_io_used(io, until);
		/* Read in and not used: readahead. */
		for (i = io->cursor; io->nr_marked && !io->write &&
		     i < io->cursor + PGF_IO_WINDOW; i++)
			if (test_bit(i % PGF_IO_WINDOW, io->marked))
				pgf_io_run(io, i, 1, PGF_CACHE_READAHEAD);
		pgf_io_put_run(io);
	}
	pgf_io_reset(io);
}

/**
 * pgf_io_direct() - a traced thread submits direct I/O
 * @iocb: the call: its file and position
 * @count: the bytes it asks for
 * @write: a write
 *
 * One record, of the pages the call asks for, as it is submitted: the
 * page cache plays no part.
 */
void pgf_io_direct(struct kiocb *iocb, size_t count, bool write)
{
	struct pgf_trace *t = pgf_trace_of(current->signal);
	struct pgf_cache_rec rec;
	pgoff_t first;
	s64 id;

	if (!t || !READ_ONCE(t->active) || !READ_ONCE(t->files) || !count)
		return;
	id = pgf_file_id(t, iocb->ki_filp);
	if (id < 0) {
		pgf_count_lost(t, PGF_KIND_CACHE);
		return;
	}
	first = iocb->ki_pos >> PAGE_SHIFT;
	pgf_rec_init(t, &rec.rec, PGF_REC_CACHE, sizeof(rec));
	rec.rec.flags = (write ? PGF_CACHE_WRITE : 0) |
			PGF_CACHE_DIRECT << PGF_CACHE_SHIFT;
	rec.rec.a = id;
	rec.rec.b = first;
	rec.pages = DIV_ROUND_UP(iocb->ki_pos + count, PAGE_SIZE) - first;
	pgf_emit_cache(t, &rec.rec);
}

/**
 * pgf_io_exit() - a thread that traced file I/O exits
 * @tsk: current
 */
void pgf_io_exit(struct task_struct *tsk)
{
	kfree(tsk->pgf_io);
	tsk->pgf_io = NULL;
}
