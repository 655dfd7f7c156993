/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader's side of pgft_read_ahead() (ahead.c), for pgftrace.c: a
 * reader reading ahead gives its records from there.
 */
#ifndef PGFT_AHEAD_H
#define PGFT_AHEAD_H

#include "pgftrace.h"

/* pgft_next() of a reader reading ahead. */
int pgft_ahead_next(struct pgft_reader *rd, struct pgft_rec *r);
/* Stop the thread, if any, and free what it held (pgft_close()). */
void pgft_ahead_close(struct pgft_reader *rd);

#endif
