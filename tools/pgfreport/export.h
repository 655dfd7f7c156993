/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export - the formats of pgfreport export that take more than a line:
 * JSON (export-json.c) and Perfetto's protobuf trace (export-perfetto.c).
 */
#ifndef PGFREPORT_EXPORT_H
#define PGFREPORT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "../lib/pgftrace.h"

/* Record @r as one JSON object and a newline; with "pid" in a tree file. */
void json_rec(FILE *out, const struct pgft_rec *r, bool tree);

/* A fault's result as the trace names it: "minor", "major", ... */
const char *export_result_name(enum pgft_result r);

/* Perfetto: one per export, fed every record and every fault taken. */
struct perfetto;

/*
 * Writing to @out (named @path) at most @max_bytes; the counters per
 * interval of @interval_ms, the working set over @window intervals.
 */
struct perfetto *perfetto_new(FILE *out, const char *path, uint64_t max_bytes,
			      long interval_ms, long window);
/* A record of process @pid (faults go to perfetto_fault()); 0 or -1. */
int perfetto_rec(struct perfetto *p, int pid, const struct pgft_rec *r);
/* A fault, @g its region (or NULL); 0 or -1. */
int perfetto_fault(struct perfetto *p, int pid, const struct pgft_rec *r,
		   const struct pgft_region *g, unsigned long page_size);
/* After the last record: 0 or -1. */
int perfetto_end(struct perfetto *p);
/* Whether -1 came from the size limit (else errno says why). */
bool perfetto_too_big(const struct perfetto *p);
void perfetto_free(struct perfetto *p);

#endif
