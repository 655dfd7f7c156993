/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfbin - the binary form of a pgfault_history trace (version 3): the
 * same records as the text the kernel writes, a fault or a run of file
 * pages in 32 bytes instead of 40 to 50 characters to parse, a fault
 * with its frame in 40. Documented
 * in Documentation/admin-guide/mm/pgfault_history.rst ("Binary form").
 *
 * A file is a 16-byte header, then records, each a multiple of 8 bytes,
 * little-endian:
 *
 *	header	"\x89PGFB\r\n\n", u32 version (3; 2 is read too: it has
 *		no frame records, and 1: nor cache records), u32 zero
 *	fault	u8 type (1), u8 access ('r', 'w', 'x'), u8 result
 *		(enum pgft_result), u8 kernel (0, 1), u32 tid,
 *		u64 time (at most 19 digits, as in text), u64 addr, u64 ip
 *	line	u8 type (2), u8 zero[3], u32 length, then that many bytes
 *		of one text line (no newline), zero-padded to 8 bytes
 *	cache	u8 type (3), u8 access ('r', 'w'), u8 how (enum
 *		pgft_cache), u8 zero, u32 tid, u64 time, u64 index,
 *		u32 pages (not 0), u32 file
 *	frame	u8 type (4), then as a fault, then u64 frame: bits 0-39
 *		the frame number, 40-50 the node (2047: none), 51-56 the
 *		folio's order, 57-58 the level (enum pgft_level), 59-63
 *		zero; its result is minor, major or reref
 *
 * Every line of the text form is one record, in the same order: a fault
 * (frame, cache) line the fault (frame, cache) record's text reproduces
 * byte for byte becomes such a record, every other line (headers, "pid N" of a tree
 * file, regions, refs, ...) a line record. So text -> binary -> text gives back the same
 * bytes, and the reader (pgftrace.h) parses line records with the text
 * parser: one meaning for every record, whichever the form.
 */
#ifndef PGFT_PGFBIN_H
#define PGFT_PGFBIN_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "pgfline.h"
#include "pgftrace.h"

#define PGFB_MAGIC	"\x89PGFB\r\n\n"
#define PGFB_VERSION	3
#define PGFB_HEADER	16
#define PGFB_FAULT_BYTES 32
#define PGFB_CACHE_BYTES 32
#define PGFB_FRAME_BYTES 40

enum { PGFB_FAULT = 1, PGFB_LINE = 2, PGFB_CACHE = 3, PGFB_FRAME = 4 };

/* The bytes of a fixed record (fault, cache, frame) of type @type. */
static inline size_t pgfb_fixed_bytes(unsigned char type)
{
	return type == PGFB_FRAME ? PGFB_FRAME_BYTES : PGFB_FAULT_BYTES;
}

/* The latest time a record may have: 19 digits, as the text reader's. */
#define PGFB_MAX_TIME	9999999999999999999ULL

/* The 16-byte header of version 3. */
void pgfb_header(unsigned char out[PGFB_HEADER]);
/*
 * Check a file's first @n bytes (at most 16) against the header:
 * 0 if good (version 1 to 3), else a message (the magic, or the version
 * this code lacks).
 */
const char *pgfb_check_header(const unsigned char *h, size_t n);

/*
 * Encode a fault record @r as 32 bytes at @out; false if @r cannot be
 * one (its tid, access or result out of range).
 */
bool pgfb_put_fault(const struct pgft_rec *r, unsigned char out[PGFB_FAULT_BYTES]);
/*
 * The text line of fault @r into @out (at least 160 bytes), its frame
 * too if it has one, without the newline: its length.
 */
size_t pgfb_fault_text(const struct pgft_rec *r, char *out);
static inline uint64_t pgfb_get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/*
 * The fields of @r a fault has (type, access, result, kernel, tid, time,
 * addr, ip; has_frame false) from the 32 bytes at @in, a fault record or
 * the start of a frame record; false, with @r partly written, if they
 * are malformed.
 */
static inline bool pgfb_fault_body(const unsigned char *in, struct pgft_rec *r)
{
	uint32_t tid;

	memcpy(&tid, in + 4, 4);
	tid = le32toh(tid);
	if ((in[1] != 'r' && in[1] != 'w' && in[1] != 'x') ||
	    in[2] > PGFT_OOM || in[3] > 1 || tid > INT32_MAX)
		return false;
	r->type = PGFT_FAULT;
	r->access = in[1];
	r->result = in[2];
	r->kernel = in[3];
	r->has_frame = false;
	r->tid = tid;
	r->time = pgfb_get64(in + 8);
	if (r->time > PGFB_MAX_TIME)
		return false;
	r->addr = pgfb_get64(in + 16);
	r->ip = pgfb_get64(in + 24);
	return true;
}

/* The fields of a fault record, as pgfb_fault_body(), if it is one. */
static inline bool pgfb_fault_fields(const unsigned char *in, struct pgft_rec *r)
{
	return in[0] == PGFB_FAULT && pgfb_fault_body(in, r);
}

/*
 * Decode 32 bytes into @r (a fault); false if they are malformed. Inline:
 * the reader's hot path.
 */
static inline bool pgfb_get_fault(const unsigned char *in, struct pgft_rec *r)
{
	/*
	 * Every field, one by one: a memset() of the whole record costs a
	 * "rep stos" a fault, a third of a pass that reads nothing else.
	 */
	r->pid = 0;
	r->id = r->start = r->end = r->offset = r->inode = 0;
	r->major = r->minor = 0;
	memset(r->perms, 0, sizeof(r->perms));
	memset(r->n, 0, sizeof(r->n));
	r->flags = 0;
	r->cache = 0;
	r->pfn = 0;
	r->node = 0;
	r->order = r->level = 0;
	r->name = r->text = "";
	return pgfb_fault_fields(in, r);
}

/*
 * Encode a cache record @r as 32 bytes at @out; false if @r cannot be one
 * (its tid, access, state, pages or file out of range).
 */
bool pgfb_put_cache(const struct pgft_rec *r, unsigned char out[PGFB_CACHE_BYTES]);
/* Decode 32 bytes into @r (a cache record); false if they are malformed. */
bool pgfb_get_cache(const unsigned char *in, struct pgft_rec *r);
/* The text line of cache record @r into @out (at least 128 bytes). */
size_t pgfb_cache_text(const struct pgft_rec *r, char *out);

/*
 * Encode a fault with its frame @r as 40 bytes at @out; false if @r
 * cannot be one (no frame, or a field out of range).
 */
bool pgfb_put_frame(const struct pgft_rec *r, unsigned char out[PGFB_FRAME_BYTES]);
/* Decode 40 bytes into @r (a fault with its frame); false if malformed. */
bool pgfb_get_frame(const unsigned char *in, struct pgft_rec *r);

/*
 * A fixed record (fault, cache: 32 bytes; frame: 40) decoded into @r;
 * false: malformed.
 */
static inline bool pgfb_get_fixed(const unsigned char *in, struct pgft_rec *r)
{
	return in[0] == PGFB_FAULT ? pgfb_get_fault(in, r) :
	       in[0] == PGFB_FRAME ? pgfb_get_frame(in, r) :
	       pgfb_get_cache(in, r);
}

/* The text of a fixed record @r (a fault, with its frame if it has one, or a cache record). */
static inline size_t pgfb_fixed_text(const struct pgft_rec *r, char *out)
{
	return r->type == PGFT_FAULT ? pgfb_fault_text(r, out) : pgfb_cache_text(r, out);
}

/*
 * A hint: the address of the fault @k records after the last one read,
 * if the binary reader has it read ahead; 0 if not (text, the buffer's
 * end, another record there). For prefetching a report's tables.
 */
static inline unsigned long long pgft_peek_addr(const struct pgft_reader *rd,
						size_t k)
{
	size_t at = rd->bpos + k * PGFB_FAULT_BYTES;

	if (rd->ahead)
		return k < (size_t)(rd->aend - rd->apos) &&
		       rd->apos[k].type == PGFT_FAULT ? rd->apos[k].addr : 0;
	if (!rd->bin || at + PGFB_FAULT_BYTES > rd->blen ||
	    rd->bbuf[at] != PGFB_FAULT)
		return 0;
	return pgfb_get64(rd->bbuf + at + 16);
}

/*
 * The fields of a fault read ahead (pgft_read_ahead()) into @r, as
 * pgft_scan_fault() writes them, and its pid.
 */
static inline void pgft_ahead_fault(const struct pgft_ahead_slot *s,
				    struct pgft_rec *r)
{
	r->type = PGFT_FAULT;
	r->pid = s->pid;
	r->time = s->time;
	r->tid = s->tid;
	r->addr = s->addr;
	r->ip = s->ip;
	r->access = s->access;
	r->kernel = s->kernel;
	r->result = s->result;
	r->has_frame = s->has_frame;
	r->pfn = s->pfn;
	r->node = s->node;
	r->order = s->order;
	r->level = s->level;
}

/*
 * The fields of a fault or a cache record read ahead into @r, which holds
 * a record of the same type read ahead: a fault's as pgft_ahead_fault(),
 * a cache record's those pgft_scan_cache() reads (the rest are the same
 * for every cache record).
 */
static inline void pgft_ahead_fields(const struct pgft_ahead_slot *s,
				     struct pgft_rec *r)
{
	if (s->type == PGFT_FAULT) {
		pgft_ahead_fault(s, r);
		return;
	}
	r->pid = s->pid;
	r->time = s->time;
	r->tid = s->tid;
	r->id = s->addr;
	r->start = s->ip;
	r->n[0] = s->pfn;
	r->access = s->access;
	r->cache = s->result;
}

/*
 * pgft_next() for a loop that reads every record into the same @r and
 * writes none of its fields itself (pass.c's): a fault after a fault read
 * this way, a binary record or a text line (pgfline.h), sets only the
 * fields a fault has (the others are what the last one left: zeros, its
 * pid), inline; read ahead, a cache record after a cache record too. About half the cost of a record for a pass that does
 * little with it.
 */
static inline int pgft_next_into(struct pgft_reader *rd, struct pgft_rec *r)
{
	size_t n;
	int ret;

	if (rd->ahead_in == r && rd->apos < rd->aend &&
	    rd->apos->type == r->type) {
		rd->line = rd->apos->line;
		pgft_ahead_fields(rd->apos++, r);
		return 1;
	}
	if (rd->fault_in == r && rd->blen - rd->bpos >= PGFB_FAULT_BYTES &&
	    pgfb_fault_fields(rd->bbuf + rd->bpos, r)) {
		rd->bpos += PGFB_FAULT_BYTES;
		rd->line++;
		return 1;
	}
	if (rd->line_in == r &&
	    (n = pgft_scan_fault((const char *)rd->bbuf + rd->bpos, r))) {
		rd->bpos += n;
		rd->line++;
		return 1;
	}
	ret = pgft_next(rd, r);
	/* a fault or a cache record read ahead, every field written */
	if (ret > 0 && rd->ahead &&
	    (r->type == PGFT_FAULT || r->type == PGFT_CACHE))
		rd->ahead_in = r;
	/* a fault with every field written, of a trace nobody taps */
	else if (ret > 0 && r->type == PGFT_FAULT && !rd->tap) {
		if (rd->bin)
			rd->fault_in = r;
		else
			rd->line_in = r;
	}
	return ret;
}

/*
 * Encode text line @line of @len bytes (no newline) into @out, which
 * holds at least pgfb_line_bytes(@len): a fault, frame or cache record if
 * it is such a line that pgfb_fixed_text() reproduces, else a line
 * record. Returns the bytes written.
 */
size_t pgfb_encode(const char *line, size_t len, unsigned char *out);
/* Bytes of the line record of a line of @len bytes. */
static inline size_t pgfb_line_bytes(size_t len)
{
	return 8 + ((len + 7) & ~(size_t)7);
}

#endif
