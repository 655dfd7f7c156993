// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_opt - OPT (Belady's MIN) at many sizes.
 *
 * MIN evicts the page whose next reference is farthest away, so it needs
 * the future: the next use of every reference. Those are found by a
 * backward pass over the reference string, which is not kept in memory
 * (memory stays bounded by the footprint): mrc_ref() appends each
 * reference's page id (4 bytes) to an unlinked temporary file; mrc_end()
 * reads it back to front in chunks, with one "next use" per page, and
 * writes each reference's next use (8 bytes, UINT64_MAX for never) to a
 * second temporary file; then it reads both front to back and runs every
 * size on them. The files are in $TMPDIR (default /tmp): 12 bytes per
 * reference.
 *
 * The sizes share their pages in layers (opt_step()): layer j holds
 * the pages size j holds and the next smaller size does not, each page
 * in one layer, so that a reference does work at the sizes it misses at
 * alone, one heap operation each, and none at those it hits (until
 * 2026-11-27 every size had a heap of all its pages, and a hit pushed an
 * entry into each: twice the instructions on the generated trace).
 *
 * Each layer keeps its pages in a max-heap by next use. A page that
 * leaves a layer for layer 0 (it is referenced) is not looked for: its
 * key is the current time, which no page can have any more once it is
 * passed, so it is left in as a stale entry below every live one (live
 * keys are in the future, stale ones in the past). The largest key is
 * so always a live page's, the one MIN evicts. When stale entries make
 * the heap twice the layer plus a little, they are dropped in one sweep,
 * O(1) per reference amortized.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mrc_impl.h"

#define OPT_CHUNK (1 << 16)	/* references per read of the files */
#define OPT_NEVER UINT64_MAX
#define OPT_BATCH 255		/* sizes per forward pass */
#define OPT_ARITY 8		/* children a node: a cache line (fixed) */
#define OPT_AHEAD 16		/* references whose page state is prefetched */
#define OPT_THREADS 8		/* at most */
/* Entries allocated past a heap's room: 7 before e[0], 7 after e[cap - 1]. */
#define OPT_PAD 15

FILE *mrc_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(path, sizeof(path), "%s/pgft-mrc.XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	unlink(path);
	f = fdopen(fd, "w+");
	if (!f) {
		close(fd);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

int mrc_opt_ref(struct mrc *m, const uint32_t *ids, size_t n)
{
	if (n && fwrite_unlocked(ids, sizeof(*ids), n, m->ids_file) != n)
		return -1;
	return 0;
}

void mrc_opt_free(struct mrc *m)
{
	if (m->ids_file)
		fclose(m->ids_file);
	m->ids_file = NULL;
}

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (!n)
				errno = EIO;	/* the file is shorter than written */
			return -1;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/*
 * One layer: an 8-ary max-heap of entries (next use << shift | page id),
 * one 64-bit word each (the next use in the high bits, so entries order
 * by it), with stale entries; the 8 entries of a node's children share a
 * cache line. The entries from e[n] on are 0 (a next use is never 0: it
 * comes after a reference), so that every node has 8 children to compare.
 */
struct opt_heap {
	void *mem;		/* what e points into */
	uint64_t *e;
	size_t n, cap;		/* entries, live and stale; room */
	uint64_t size, used;	/* pages the layer holds at most; holds now */
};

/* How the entries of a batch are packed. */
struct opt_pack {
	unsigned int shift;	/* bits of the page id */
	uint64_t never;		/* the next use of a page never used again */
};

static inline uint64_t opt_entry(const struct opt_pack *k, uint64_t next,
				 uint32_t id)
{
	return (next == OPT_NEVER ? k->never : next) << k->shift | id;
}

static inline void heap_push(struct opt_heap *h, uint64_t e)
{
	size_t i = h->n++;

	while (i) {
		size_t p = (i - 1) / OPT_ARITY;

		if (h->e[p] >= e)
			break;
		h->e[i] = h->e[p];
		i = p;
	}
	h->e[i] = e;
}

/*
 * The largest of the 8 children from @c, as a tournament of pairs without
 * branches (which child wins is random). The entries past the heap's end
 * are 0, below every entry a sift moves (see struct opt_heap), so that
 * a node with fewer children takes the same path.
 */
static inline size_t heap_max_child(const uint64_t *v, size_t c, uint64_t *max)
{
	uint64_t m01 = v[c] > v[c + 1] ? v[c] : v[c + 1];
	uint64_t m23 = v[c + 2] > v[c + 3] ? v[c + 2] : v[c + 3];
	uint64_t m45 = v[c + 4] > v[c + 5] ? v[c + 4] : v[c + 5];
	uint64_t m67 = v[c + 6] > v[c + 7] ? v[c + 6] : v[c + 7];
	size_t i01 = v[c] > v[c + 1] ? 0 : 1;
	size_t i23 = v[c + 2] > v[c + 3] ? 2 : 3;
	size_t i45 = v[c + 4] > v[c + 5] ? 4 : 5;
	size_t i67 = v[c + 6] > v[c + 7] ? 6 : 7;
	uint64_t m03 = m01 > m23 ? m01 : m23;
	uint64_t m47 = m45 > m67 ? m45 : m67;
	size_t i03 = m01 > m23 ? i01 : i23;
	size_t i47 = m45 > m67 ? i45 : i67;

	*max = m03 > m47 ? m03 : m47;
	return c + (m03 > m47 ? i03 : i47);
}

static inline void heap_sift_down(struct opt_heap *h, size_t i, uint64_t e)
{
	size_t n = h->n;

	for (;;) {
		size_t c = OPT_ARITY * i + 1, best;
		uint64_t max;

		if (c >= n)
			break;
		best = heap_max_child(h->e, c, &max);
		if (max <= e)
			break;
		h->e[i] = max;
		i = best;
	}
	h->e[i] = e;
}

/*
 * Put @e in place of the largest entry (a live page's: see above); that
 * entry. One sift, short when the new entry's next use is far away.
 */
static inline uint64_t heap_replace_top(struct opt_heap *h, uint64_t e)
{
	uint64_t top = h->e[0];

	heap_sift_down(h, 0, e);
	return top;
}

/* Drop the stale entries (next uses up to @now) and rebuild the heap. */
static void heap_purge(struct opt_heap *h, uint64_t now, const struct opt_pack *k)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++)
		if (h->e[i] >> k->shift > now)
			h->e[n++] = h->e[i];
	memset(&h->e[n], 0, (h->n - n) * sizeof(*h->e));
	h->n = n;
	for (size_t i = n / OPT_ARITY + 1; i-- > 0;)
		if (i < n)
			heap_sift_down(h, i, h->e[i]);
}

/* A page entering a layer: the heap of @h grows by one entry. */
static inline void opt_enter(struct opt_heap *h, uint64_t e, uint64_t t,
			     const struct opt_pack *k)
{
	heap_push(h, e);
	if (h->n == h->cap)
		heap_purge(h, t, k);
}

/*
 * Reference @t to page @id, next used at @next, at sizes 0 .. nb - 1 of
 * a batch. MIN is a stack algorithm (Mattson et al., 1970): a page held
 * at one size is held at every larger one, so the pages fall into
 * layers: layer j holds the pages that size j holds and size j - 1 does
 * not (sizes[j] - sizes[j - 1] of them once full; layer 0 is size 0's
 * pages), each page in one layer at most, lvl[id] (nb: none; a byte a
 * page stays in the CPU's cache). A reference to a page of layer L hits
 * at the sizes from L up and misses below, where MIN evicts the page of
 * the latest next use: at size 0 the largest of layer 0, which goes down
 * to layer 1; at size 1 the largest of size 1's pages, which is the
 * larger of that page and layer 1's largest (size 0's largest went down
 * already); and so on: the page evicted at size j - 1 is carried into
 * layer j and the larger of it and the layer's largest leaves it, down
 * to layer L, where the carried page takes the referenced page's place,
 * or out of the last size if the page was in none. The referenced page
 * goes to layer 0. A reference touches the layers above its own alone:
 * one heap operation where its page misses, none where it hits (the
 * pages never used again tie on their next use; their entries order
 * them by id, the same at every size, so the priority is one total
 * order and the inclusion holds for them too).
 */
static inline void opt_step(struct opt_heap *heap, uint64_t *missl, size_t nb,
			    uint8_t *lvl, const struct opt_pack *k, uint64_t t,
			    uint32_t id, uint64_t next)
{
	uint64_t e = opt_entry(k, next, id), c = e;
	uint32_t mask = (uint32_t)((1ULL << k->shift) - 1);
	size_t from = lvl[id], j;

	missl[from]++;
	lvl[id] = 0;
	for (j = 0; j < from; j++) {
		struct opt_heap *h = &heap[j];

		if (h->used < h->size) {
			/* Room: a size not yet full takes it (a first reference). */
			h->used++;
			lvl[c & mask] = (uint8_t)j;
			opt_enter(h, c, t, k);
			return;
		}
		/* The referenced page enters layer 0 whatever its next use. */
		if (!j || c < h->e[0]) {
			lvl[c & mask] = (uint8_t)j;
			c = heap_replace_top(h, c);
		}
	}
	/*
	 * In @id's place (its old entry stale); a page held at every size
	 * (@from 0) is carried nowhere: its new next use alone.
	 */
	lvl[c & mask] = (uint8_t)from;
	if (from < nb)
		opt_enter(&heap[from], c, t, k);
}

/*
 * A share of the sizes, run over the two files (the ids in fd, their next
 * uses in nfd) by one thread: sizes[0 .. nb - 1], ascending, any of the
 * curve's (MIN's inclusion holds for any subset of them).
 */
struct opt_job {
	const struct mrc *m;
	int fd, nfd;
	const uint64_t *sizes;
	uint64_t *misses;	/* one per size */
	size_t nb;
	int err;		/* 0, or the errno that stopped it */
};

static void *opt_batch(void *arg)
{
	struct opt_job *jb = arg;
	const struct mrc *m = jb->m;
	size_t nb = jb->nb;
	struct opt_heap *heap = calloc(nb, sizeof(*heap));
	uint64_t n = m->refs, pages = m->npages;
	uint8_t *lvl = malloc(pages);
	uint32_t *ids = malloc(OPT_CHUNK * sizeof(*ids));
	uint64_t *nx = malloc(OPT_CHUNK * sizeof(*nx));
	uint64_t missl[OPT_BATCH + 1] = { 0 };
	struct opt_pack k;
	size_t bytes;

	jb->err = ENOMEM;
	if (!heap || !lvl || !ids || !nx)
		goto out;
	/* mrc_opt_end() has checked that the next uses fit. */
	k.shift = pages > 1 ? 64 - __builtin_clzll(pages - 1) : 1;
	k.never = (1ULL << (64 - k.shift)) - 1;
	memset(lvl, (int)nb, pages);	/* held nowhere yet */
	for (size_t j = 0; j < nb; j++) {
		/* layer j: the pages of size j that size j - 1 does not hold */
		heap[j].size = jb->sizes[j] - (j ? jb->sizes[j - 1] : 0);
		heap[j].cap = 2 * heap[j].size + 64;
		/*
		 * e[1], and so every group of children, on a line
		 * (aligned_alloc() takes whole lines).
		 */
		bytes = ((heap[j].cap + OPT_PAD) * sizeof(uint64_t) + 63) / 64 * 64;
		heap[j].mem = aligned_alloc(64, bytes);
		if (!heap[j].mem)
			goto out;
		memset(heap[j].mem, 0, bytes);
		heap[j].e = (uint64_t *)heap[j].mem + 7;
	}
	for (uint64_t start = 0, len; start < n; start += len) {
		len = n - start < OPT_CHUNK ? n - start : OPT_CHUNK;
		if (pread_all(jb->fd, ids, len * sizeof(*ids), start * sizeof(*ids)) ||
		    pread_all(jb->nfd, nx, len * sizeof(*nx), start * sizeof(*nx))) {
			jb->err = errno;
			goto out;
		}
		for (uint64_t j = 0; j < len; j++) {
			if (j + OPT_AHEAD < len)
				__builtin_prefetch(&lvl[ids[j + OPT_AHEAD]], 1);
			opt_step(heap, missl, nb, lvl, &k, start + j,
				 ids[j], nx[j]);
		}
	}
	/* The references from layers below j and from none missed at size j. */
	for (size_t j = nb, below = missl[nb]; j-- > 0; below += missl[j])
		jb->misses[j] = below;
	jb->err = 0;
out:
	if (heap) {
		for (size_t j = 0; j < nb; j++)
			free(heap[j].mem);
		free(heap);
	}
	free(lvl);
	free(ids);
	free(nx);
	return NULL;
}

/*
 * Threads for OPT's sizes: mrc_set_threads()'s, or the CPUs this process
 * may run on; at most 8, and no more than the sizes.
 */
static size_t opt_threads(const struct mrc *m, size_t nsim)
{
	cpu_set_t set;
	size_t n = m->threads;

	if (!n)
		n = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	if (n > OPT_THREADS)
		n = OPT_THREADS;
	if (n > nsim)
		n = nsim;
	return n ? n : 1;
}

/*
 * Run the @nsim smallest sizes, in at most 255 a thread (lvl[] is a
 * byte), dealt round-robin so that each thread has small and large ones.
 */
static int opt_run(struct mrc *m, size_t nsim, int fd, int nfd)
{
	size_t nt = opt_threads(m, nsim), per;
	struct opt_job job[OPT_THREADS];
	pthread_t tid[OPT_THREADS];
	uint64_t *buf;
	int err = 0;

	per = (nsim + nt - 1) / nt;
	if (per > OPT_BATCH)
		per = OPT_BATCH;	/* more sizes than batches: in rounds */
	buf = calloc(2 * OPT_THREADS * per, sizeof(*buf));
	if (!buf)
		return -1;
	for (size_t first = 0; first < nsim && !err; first += nt * per) {
		size_t round = nsim - first < nt * per ? nsim - first : nt * per;
		bool started[OPT_THREADS] = { false };

		for (size_t t = 0; t < nt && t < round; t++) {
			struct opt_job *jb = &job[t];

			jb->m = m;
			jb->fd = fd;
			jb->nfd = nfd;
			jb->sizes = buf + 2 * t * per;
			jb->misses = buf + (2 * t + 1) * per;
			jb->nb = 0;
			for (size_t i = first + t; i < first + round; i += nt)
				((uint64_t *)jb->sizes)[jb->nb++] = m->size[i];
			memset(jb->misses, 0, per * sizeof(*jb->misses));
		}
		for (size_t t = 0; t < nt && t < round; t++) {
			if (t + 1 < nt && t + 1 < round &&
			    !pthread_create(&tid[t], NULL, opt_batch, &job[t])) {
				started[t] = true;
				continue;
			}
			/* The last share (or one no thread could take) here. */
			opt_batch(&job[t]);
		}
		for (size_t t = 0; t < nt; t++)
			if (started[t])
				pthread_join(tid[t], NULL);
		for (size_t t = 0; t < nt && t < round; t++) {
			if (job[t].err && !err)
				err = job[t].err;
			for (size_t j = 0, i = first + t; j < job[t].nb; j++, i += nt)
				m->misses[i] += job[t].misses[j];
		}
	}
	free(buf);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int mrc_opt_end(struct mrc *m)
{
	uint64_t n = m->refs, pages = m->npages, *next = NULL, *nx = NULL;
	size_t nsim = 0;
	uint32_t *ids = NULL;
	FILE *nf = NULL;
	int fd, nfd, ret = -1;

	while (nsim < m->nr && m->size[nsim] < pages)
		nsim++;
	if (!nsim)
		return 0;		/* every size holds every page */
	/*
	 * A heap entry packs a next use (< n, or "never") and a page id in
	 * 64 bits: n x pages must stay below 2^64 (10^12 references of
	 * 10^7 pages still fit).
	 */
	if ((pages > 1 ? 64 - __builtin_clzll(pages - 1) : 1) +
	    (64 - __builtin_clzll(n + 1)) > 64) {
		errno = EOVERFLOW;
		return -1;
	}
	if (fflush(m->ids_file))
		return -1;
	fd = fileno(m->ids_file);
	nf = mrc_tmpfile();
	ids = malloc(OPT_CHUNK * sizeof(*ids));
	nx = malloc(OPT_CHUNK * sizeof(*nx));
	next = malloc(pages * sizeof(*next));
	if (!nf || !ids || !nx || !next)
		goto out;
	nfd = fileno(nf);

	/* Backward: each reference's next use. */
	for (uint64_t p = 0; p < pages; p++)
		next[p] = OPT_NEVER;
	for (uint64_t end = n, start; end; end = start) {
		start = end > OPT_CHUNK ? end - OPT_CHUNK : 0;
		if (pread_all(fd, ids, (end - start) * sizeof(*ids),
			      start * sizeof(*ids)))
			goto out;
		for (uint64_t t = end; t-- > start;) {
			uint32_t id = ids[t - start];

			if (t >= start + OPT_AHEAD)
				__builtin_prefetch(&next[ids[t - start - OPT_AHEAD]], 1);

			nx[t - start] = next[id];
			next[id] = t;
		}
		if (pwrite_all(nfd, nx, (end - start) * sizeof(*nx),
			       start * sizeof(*nx)))
			goto out;
	}
	free(next);
	next = NULL;

	/* Forward: the sizes, in threads. */
	ret = opt_run(m, nsim, fd, nfd);

out:
	free(next);
	free(nx);
	free(ids);
	if (nf)
		fclose(nf);
	return ret;
}
