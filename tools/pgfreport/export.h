/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export - the formats of pgfreport export that take more than a line:
 * JSON (export-json.c).
 */
#ifndef PGFREPORT_EXPORT_H
#define PGFREPORT_EXPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "../lib/pgftrace.h"

/* Record @r as one JSON object and a newline; with "pid" in a tree file. */
void json_rec(FILE *out, const struct pgft_rec *r, bool tree);

/* A fault's result as the trace names it: "minor", "major", ... */
const char *export_result_name(enum pgft_result r);

#endif
