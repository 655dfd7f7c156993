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
 * size on them, in stages on as many threads (opt_round()). The files
 * are in $TMPDIR (default /tmp): 12 bytes per reference.
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
 * Reference @t to page @id at the layers of one stage (struct opt_stage):
 * sizes 0 .. nb - 1 of its own. MIN is a stack algorithm (Mattson et
 * al., 1970): a page held at one size is held at every larger one, so
 * the pages fall into layers: layer j holds the pages that size j holds
 * and size j - 1 does not (sizes[j] - sizes[j - 1] of them once full;
 * layer 0 is size 0's pages), each page in one layer at most, lvl[id]
 * (nb: none of the stage's; a byte a page stays in the CPU's cache). A
 * reference to a page of layer L hits at the sizes from L up and misses
 * below, where MIN evicts the page of the latest next use: at size 0 the
 * largest of layer 0, which goes down to layer 1; at size 1 the largest
 * of size 1's pages, which is the larger of that page and layer 1's
 * largest (size 0's largest went down already); and so on: the page
 * evicted at size j - 1 is carried into layer j and the larger of it and
 * the layer's largest leaves it, down to layer L, where the carried page
 * takes the referenced page's place, or out of the last size if the
 * page was in none. The referenced page goes to layer 0. A reference
 * touches the layers above its own alone: one heap operation where its
 * page misses, none where it hits (the pages never used again tie on
 * their next use; their entries order them by id, the same at every
 * size, so the priority is one total order and the inclusion holds for
 * them too).
 *
 * The first stage starts with @c the referenced page's own entry (its
 * next use), which enters layer 0 whatever its next use; a later stage
 * with @c the page the stage before evicted from its last size, and the
 * referenced page leaves its layers if it was in one (it is in the first
 * stage's layer 0 now). True when a page leaves the stage's last size:
 * *@cp, for the next stage.
 */
static inline bool opt_step(struct opt_heap *heap, uint64_t *missl, size_t nb,
			    uint8_t *lvl, const struct opt_pack *k, uint64_t t,
			    uint32_t id, uint64_t *cp, bool first)
{
	uint64_t c = *cp;
	uint32_t mask = (uint32_t)((1ULL << k->shift) - 1);
	size_t from = lvl[id], j;

	missl[from]++;
	lvl[id] = first ? 0 : (uint8_t)nb;
	for (j = 0; j < from; j++) {
		struct opt_heap *h = &heap[j];

		if (h->used < h->size) {
			/*
			 * Room: a size not yet full takes it (a first
			 * reference: no page is in a larger one yet).
			 */
			h->used++;
			lvl[c & mask] = (uint8_t)j;
			opt_enter(h, c, t, k);
			return false;
		}
		if ((first && !j) || c < h->e[0]) {
			lvl[c & mask] = (uint8_t)j;
			c = heap_replace_top(h, c);
		}
	}
	/*
	 * In @id's place (its old entry stale); a page held at every size
	 * (@from 0) is carried nowhere: its new next use alone.
	 */
	lvl[c & mask] = (uint8_t)from;
	if (from < nb) {
		opt_enter(&heap[from], c, t, k);
		return false;
	}
	*cp = c;
	return true;
}

/*
 * The sizes of a round run as one chain of layers, cut into stages, one
 * thread each, from the smallest sizes to the largest: a stage hands the
 * next the references to pages in none of its layers, each with the page
 * its last size evicted, through a queue of buffers. A reference costs
 * the first stage a read and a lookup, and the others only if it misses
 * at every size before theirs (until 2026-11-27 each thread ran a share
 * of the sizes over the whole string: the reads and lookups once per
 * thread, and coarser layers; 1.5 times the CPU of one chain on the
 * generated trace).
 */
struct opt_msg {
	uint64_t t, c;		/* the reference's time; the evicted page */
	uint32_t id;		/* the referenced page */
};

#define OPT_MSGS 4096		/* messages a buffer */
#define OPT_BUFS 4		/* buffers between two stages */

struct opt_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct opt_msg *buf[OPT_BUFS];
	size_t len[OPT_BUFS];
	size_t head, tail;	/* buffers taken, handed over */
	size_t fill;		/* messages in buf[tail % OPT_BUFS] so far */
	bool done, init;
};

struct opt_stage {
	const struct mrc *m;
	int fd, nfd;		/* the first stage reads the files */
	size_t nb;		/* layers */
	const uint64_t *sizes;	/* nb, ascending */
	uint64_t below;		/* the size before sizes[0] (0: none) */
	uint64_t *misses;	/* nb */
	struct opt_heap *heap;
	uint8_t *lvl;
	struct opt_queue *in, *out;	/* NULL: first, last stage */
	const struct opt_pack *k;
	/*
	 * References past its last size: to pages in none of its layers
	 * (missl[nb]); passed: of them, those the next stage sees. The
	 * others were first references a layer not yet full took, misses
	 * at every later size too.
	 */
	uint64_t none, passed;
	int err;		/* 0, or the errno that stopped it */
};

static int queue_init(struct opt_queue *q)
{
	memset(q, 0, sizeof(*q));
	for (int b = 0; b < OPT_BUFS; b++) {
		q->buf[b] = malloc(OPT_MSGS * sizeof(*q->buf[b]));
		if (!q->buf[b])
			return -1;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->init = true;
	return 0;
}

static void queue_free(struct opt_queue *q)
{
	for (int b = 0; b < OPT_BUFS; b++)
		free(q->buf[b]);
	if (q->init) {
		pthread_cond_destroy(&q->cond);
		pthread_mutex_destroy(&q->lock);
	}
}

/* Hand the buffer being filled over; wait until the next one is free. */
static void queue_turn(struct opt_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->len[q->tail % OPT_BUFS] = q->fill;
	q->tail++;
	pthread_cond_broadcast(&q->cond);
	while (q->tail - q->head == OPT_BUFS)
		pthread_cond_wait(&q->cond, &q->lock);
	pthread_mutex_unlock(&q->lock);
	q->fill = 0;
}

static inline void queue_put(struct opt_queue *q, uint64_t t, uint64_t c, uint32_t id)
{
	struct opt_msg *msg = &q->buf[q->tail % OPT_BUFS][q->fill];

	msg->t = t;
	msg->c = c;
	msg->id = id;
	if (++q->fill == OPT_MSGS)
		queue_turn(q);
}

/* No more messages (what is in the buffer being filled goes too). */
static void queue_end(struct opt_queue *q)
{
	if (q->fill)
		queue_turn(q);
	pthread_mutex_lock(&q->lock);
	q->done = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/* The next full buffer, its length in *@len; NULL at the end. */
static struct opt_msg *queue_get(struct opt_queue *q, size_t *len)
{
	struct opt_msg *b = NULL;

	pthread_mutex_lock(&q->lock);
	while (q->head == q->tail && !q->done)
		pthread_cond_wait(&q->cond, &q->lock);
	if (q->head != q->tail) {
		b = q->buf[q->head % OPT_BUFS];
		*len = q->len[q->head % OPT_BUFS];
	}
	pthread_mutex_unlock(&q->lock);
	return b;
}

/* Done with the buffer queue_get() gave. */
static void queue_release(struct opt_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->head++;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/* The heaps and page layers of @s; 0, or -1 (ENOMEM). */
static int stage_alloc(struct opt_stage *s)
{
	uint64_t pages = s->m->npages;

	s->heap = calloc(s->nb, sizeof(*s->heap));
	s->lvl = malloc(pages);
	if (!s->heap || !s->lvl) {
		errno = ENOMEM;
		return -1;
	}
	memset(s->lvl, (int)s->nb, pages);	/* in none yet */
	for (size_t j = 0; j < s->nb; j++) {
		struct opt_heap *h = &s->heap[j];
		size_t bytes;

		/* layer j: the pages of size j that size j - 1 does not hold */
		h->size = s->sizes[j] - (j ? s->sizes[j - 1] : s->below);
		h->cap = 2 * h->size + 64;
		/*
		 * e[1], and so every group of children, on a line
		 * (aligned_alloc() takes whole lines).
		 */
		bytes = ((h->cap + OPT_PAD) * sizeof(uint64_t) + 63) / 64 * 64;
		h->mem = aligned_alloc(64, bytes);
		if (!h->mem) {
			errno = ENOMEM;
			return -1;
		}
		memset(h->mem, 0, bytes);
		h->e = (uint64_t *)h->mem + 7;
	}
	return 0;
}

static void stage_free(struct opt_stage *s)
{
	if (s->heap) {
		for (size_t j = 0; j < s->nb; j++)
			free(s->heap[j].mem);
		free(s->heap);
	}
	free(s->lvl);
	s->heap = NULL;
	s->lvl = NULL;
}

/* The first stage: every reference, from the two files. */
static int stage_first(struct opt_stage *s, uint64_t *missl)
{
	uint64_t n = s->m->refs;
	uint32_t *ids = malloc(OPT_CHUNK * sizeof(*ids));
	uint64_t *nx = malloc(OPT_CHUNK * sizeof(*nx));
	int ret = -1;

	if (!ids || !nx) {
		errno = ENOMEM;
		goto out;
	}
	for (uint64_t start = 0, len; start < n; start += len) {
		len = n - start < OPT_CHUNK ? n - start : OPT_CHUNK;
		if (pread_all(s->fd, ids, len * sizeof(*ids), start * sizeof(*ids)) ||
		    pread_all(s->nfd, nx, len * sizeof(*nx), start * sizeof(*nx)))
			goto out;
		for (uint64_t j = 0; j < len; j++) {
			uint64_t c = opt_entry(s->k, nx[j], ids[j]);

			if (j + OPT_AHEAD < len)
				__builtin_prefetch(&s->lvl[ids[j + OPT_AHEAD]], 1);
			if (!opt_step(s->heap, missl, s->nb, s->lvl, s->k, start + j,
				      ids[j], &c, true))
				continue;
			s->passed++;
			if (s->out)
				queue_put(s->out, start + j, c, ids[j]);
		}
	}
	ret = 0;
out:
	free(ids);
	free(nx);
	return ret;
}

/* A later stage: the references the stage before hands over. */
static void stage_next(struct opt_stage *s, uint64_t *missl)
{
	struct opt_msg *b;
	size_t len;

	while ((b = queue_get(s->in, &len))) {
		for (size_t j = 0; j < len; j++) {
			uint64_t c = b[j].c;

			if (j + OPT_AHEAD < len)
				__builtin_prefetch(&s->lvl[b[j + OPT_AHEAD].id], 1);
			if (!opt_step(s->heap, missl, s->nb, s->lvl, s->k, b[j].t,
				      b[j].id, &c, false))
				continue;
			s->passed++;
			if (s->out)
				queue_put(s->out, b[j].t, c, b[j].id);
		}
		queue_release(s->in);
	}
}

static void *stage_main(void *arg)
{
	struct opt_stage *s = arg;
	uint64_t missl[OPT_BATCH + 1] = { 0 };

	s->err = 0;
	if (!s->in) {
		if (stage_first(s, missl))
			s->err = errno;
	} else {
		stage_next(s, missl);
	}
	if (s->out)
		queue_end(s->out);	/* even on failure: the next one ends */
	/*
	 * The references from layers below j and from none missed at size
	 * j (opt_round() adds the first references the stages before took).
	 */
	for (size_t j = s->nb, below = missl[s->nb]; j-- > 0; below += missl[j])
		s->misses[j] = below;
	s->none = missl[s->nb];
	return NULL;
}

/*
 * Threads for OPT's stages: mrc_set_threads()'s, or the CPUs this process
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
 * Where the stages of the @nb sizes from @first start: stage i at
 * cut[i]. The first stage reads and looks up every reference, and at the
 * smallest sizes nearly every one misses; the later stages see only the
 * references that missed at every smaller size, but their heaps are
 * large, each operation a few cache misses. The first stage takes the
 * sizes below m->first_stage pages (mrc_set_first_stage(); 256 by
 * default), if that leaves a size for every other stage; the others
 * share the rest evenly. On random traces of 16 K to 512 K pages (the
 * generated one, and the same folded into smaller footprints) the two
 * stages of two CPUs balance within 20% with the sizes below 256 pages
 * first, and the even cut of 10 and 10 sizes was 1.5 times slower; on a
 * trace of a hot set of 48 pages, the sizes below 16 (pgfreport gives
 * OPT the size where LRU's miss ratio falls below 0.85: cache.c).
 */
#define OPT_CUT_PAGES 256

static void opt_cuts(const struct mrc *m, size_t first, size_t nb, size_t nt,
		     size_t *cut)
{
	uint64_t below = m->first_stage ? m->first_stage : OPT_CUT_PAGES;
	size_t small = 0;

	while (small < nb && m->size[first + small] < below)
		small++;
	cut[0] = first;
	cut[nt] = first + nb;
	if (nt > 1 && small && small <= OPT_BATCH && nb - small >= nt - 1 &&
	    nb - small <= (nt - 1) * OPT_BATCH) {
		cut[1] = first + small;
		for (size_t i = 2; i < nt; i++)
			cut[i] = cut[1] + (nb - small) * (i - 1) / (nt - 1);
		return;
	}
	for (size_t i = 1; i < nt; i++)
		cut[i] = first + nb * i / nt;
}

/*
 * One round: sizes first .. first + nb - 1 as one chain, in @nt stages
 * (nt threads; one if a thread cannot be had).
 */
static int opt_round(struct mrc *m, size_t first, size_t nb, size_t nt,
		     int fd, int nfd, const struct opt_pack *k)
{
	struct opt_stage st[OPT_THREADS];
	struct opt_queue q[OPT_THREADS];
	pthread_t tid[OPT_THREADS];
	size_t cut[OPT_THREADS + 1], started;
	int err = 0;

	if (nb > nt * OPT_BATCH) {
		/* fewer stages than the round was cut for: in pieces */
		for (size_t done = 0, len; done < nb; done += len) {
			len = nb - done < nt * OPT_BATCH ? nb - done : nt * OPT_BATCH;
			if (opt_round(m, first + done, len, nt, fd, nfd, k))
				return -1;
		}
		return 0;
	}
	memset(st, 0, sizeof(st));
	memset(q, 0, sizeof(q));
	opt_cuts(m, first, nb, nt, cut);
	for (size_t i = 0; i < nt && !err; i++) {
		struct opt_stage *s = &st[i];

		s->m = m;
		s->fd = fd;
		s->nfd = nfd;
		s->k = k;
		s->nb = cut[i + 1] - cut[i];
		s->sizes = &m->size[cut[i]];
		s->below = cut[i] ? m->size[cut[i] - 1] : 0;
		s->misses = &m->misses[cut[i]];
		s->in = i ? &q[i - 1] : NULL;
		s->out = i + 1 < nt ? &q[i] : NULL;
		if (stage_alloc(s) || (s->out && queue_init(s->out)))
			err = ENOMEM;
	}
	/* the later stages in threads of their own, the first here */
	for (started = 1; started < nt && !err; started++)
		if (pthread_create(&tid[started], NULL, stage_main, &st[started]))
			break;
	if (!err && started < nt) {
		/*
		 * No thread for a stage: end those started (each ends the
		 * next), and go again with fewer stages.
		 */
		queue_end(&q[0]);
		for (size_t i = 1; i < started; i++)
			pthread_join(tid[i], NULL);
		for (size_t i = 0; i < nt; i++) {
			stage_free(&st[i]);
			queue_free(&q[i]);
		}
		return opt_round(m, first, nb, started, fd, nfd, k);
	}
	if (!err) {
		stage_main(&st[0]);
		for (size_t i = 1; i < nt; i++)
			pthread_join(tid[i], NULL);
		for (size_t i = 0, taken = 0; i < nt; i++) {
			if (st[i].err && !err)
				err = st[i].err;
			for (size_t j = 0; j < st[i].nb; j++)
				st[i].misses[j] += taken;
			taken += st[i].none - st[i].passed;
		}
	}
	for (size_t i = 0; i < nt; i++) {
		stage_free(&st[i]);
		queue_free(&q[i]);
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * Run the @nsim smallest sizes, in rounds of as many as the stages take
 * (at most 255 a stage: lvl[] is a byte).
 */
static int opt_run(struct mrc *m, size_t nsim, int fd, int nfd)
{
	size_t nt = opt_threads(m, nsim);
	uint64_t pages = m->npages;
	struct opt_pack k;

	/* mrc_opt_end() has checked that the next uses fit. */
	k.shift = pages > 1 ? 64 - __builtin_clzll(pages - 1) : 1;
	k.never = (1ULL << (64 - k.shift)) - 1;
	for (size_t first = 0; first < nsim;) {
		size_t nb = nsim - first < nt * OPT_BATCH ? nsim - first : nt * OPT_BATCH;
		size_t t = nt < nb ? nt : nb;

		if (opt_round(m, first, nb, t, fd, nfd, &k))
			return -1;
		first += nb;
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

	/* Forward: the sizes, in stages. */
	ret = opt_run(m, nsim, fd, nfd);

out:
	free(next);
	free(nx);
	free(ids);
	if (nf)
		fclose(nf);
	return ret;
}
