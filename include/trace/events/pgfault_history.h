/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfault_history_bench: an ftrace event of the size of the tracepoint
 * benchmark's (a 128-byte string and a number), emitted only by the record
 * path microbenchmark (CONFIG_PGFAULT_HISTORY_BENCHMARK) to time ftrace's
 * per-event cost beside pgfault_history's, with the same loop and clock.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pgfault_history

#if !defined(_TRACE_PGFAULT_HISTORY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PGFAULT_HISTORY_H

#include <linux/tracepoint.h>

#define PGF_BENCH_EVENT_STRLEN		128

TRACE_EVENT(pgfault_history_bench,
	    TP_PROTO(const char *str, u64 n),
	    TP_ARGS(str, n),
	    TP_STRUCT__entry(__array(char, str, PGF_BENCH_EVENT_STRLEN)
			     __field(u64, n)),
	    TP_fast_assign(memcpy(__entry->str, str, PGF_BENCH_EVENT_STRLEN);
			   __entry->n = n;),
	    TP_printk("%s n=%llu", __entry->str, __entry->n)
);

#endif /* _TRACE_PGFAULT_HISTORY_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
