/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lcs - the reference string for libCacheSim: its oracleGeneral binary
 * trace and a CSV of the same columns.
 *
 * oracleGeneral is a packed little-endian record of 24 bytes per request:
 *
 *	u32 real_time;		seconds
 *	u64 obj_id;
 *	u32 obj_size;		bytes
 *	i64 next_access_vtime;	the 1-based index of the next request for
 *				the same object, -1 if there is none
 *
 * as libCacheSim's traceConv writes it (its Belady and other "oracle"
 * policies read the next access from it). The CSV has the header
 * "time,obj_id,obj_size,next_access_vtime" and one line per request.
 *
 *	struct lcs *e = lcs_new();
 *	for each reference:
 *		lcs_ref(e, page, seconds);
 *	lcs_write(e, bin, csv, page_size);	// either may be NULL
 *	lcs_free(e);
 *
 * The next accesses need the whole string: lcs_ref() appends each
 * reference (12 bytes) to an unlinked temporary file in $TMPDIR, and
 * lcs_write() reads it back to front to find them (8 bytes per reference
 * in a second temporary file), then front to back to write. Memory: a hash
 * map of the distinct pages, never the string.
 */
#ifndef PGF_LCS_H
#define PGF_LCS_H

#include <stdint.h>
#include <stdio.h>

#define LCS_RECORD 24

struct lcs;

/* NULL with errno set if the temporary file cannot be made. */
struct lcs *lcs_new(void);
/* 0, or -1 with errno set (the temporary file could not be written). */
int lcs_ref(struct lcs *e, uint64_t page, uint32_t seconds);
/* Write every reference; 0, or -1 with errno set. */
int lcs_write(struct lcs *e, FILE *bin, FILE *csv, uint32_t obj_size);
/* The references so far. */
uint64_t lcs_count(const struct lcs *e);
void lcs_free(struct lcs *e);

/* One oracleGeneral record, little-endian, into @out (LCS_RECORD bytes). */
void lcs_pack(unsigned char *out, uint32_t time, uint64_t id, uint32_t size,
	      int64_t next);

#endif
