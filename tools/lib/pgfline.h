/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfline - the lines of the text form that come by the million, read
 * where they lie in the reader's buffer, in one pass over each, for the
 * reader's hot path (pgftrace.c's pgft_next()): a fault, and a cache
 * record (the file references of tracepgfault -c),
 *
 *	fault T TID ADDR r|w|x user|kernel RESULT IP [PFN NODE ORDER LEVEL]
 *	cache T TID FILE INDEX PAGES r|w HOW
 *
 * It reads a line without writing to it, every field with the limits
 * pgft_parse() sets (decimal numbers of 1 to 19 digits, hex ones of 1 to
 * 16, one space between fields, none at the end). A line it does not
 * read, malformed or another record, is pgft_parse()'s to read or to
 * reject: every line it reads, pgft_parse() reads into the same record,
 * and every fault or cache line pgft_parse() reads, it reads, but for
 * hex in upper case, which the kernel never writes.
 */
#ifndef PGFT_PGFLINE_H
#define PGFT_PGFLINE_H

#include <stddef.h>
#include "pgftrace.h"

/*
 * The bytes that may be read after the end of the line at @s (its
 * newline, or the NUL that stops it): the buffer holds that many more.
 */
#define PGFT_SCAN_SLACK	32

/*
 * The fault line at @s, ended by a newline: its length with the newline,
 * and its fields in @r: type, time, tid, addr, access, kernel, result,
 * ip, has_frame, pfn, node, order and level (0 without a frame); the
 * other fields are left as they are. 0 if it is not such a line as this
 * reads, @r then partly written. A NUL stops the line: a newline or a NUL
 * comes before the end of the buffer, and PGFT_SCAN_SLACK bytes after it.
 */
size_t pgft_scan_fault(const char *s, struct pgft_rec *r);

/*
 * The cache line at @s, as pgft_scan_fault(): its fields in @r (type,
 * time, tid, id, start, n[0], access, cache) and those pgft_scan_fault()
 * sets, 0 for a cache record; the other fields are left as they are.
 */
size_t pgft_scan_cache(const char *s, struct pgft_rec *r);

#endif
