/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin - pgfreport's commands, one file each (builtin-CMD.c), as
 * perf's. Each takes its argv from its own name on: argv[0] is "map".
 */
#ifndef PGFREPORT_BUILTIN_H
#define PGFREPORT_BUILTIN_H

int cmd_map(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_heatmap(int argc, char **argv);
int cmd_mrc(int argc, char **argv);
int cmd_reuse(int argc, char **argv);
int cmd_tlb(int argc, char **argv);
int cmd_hot(int argc, char **argv);
int cmd_wss(int argc, char **argv);
int cmd_prefetch(int argc, char **argv);
int cmd_samples(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_symbols(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_files(int argc, char **argv);
int cmd_frames(int argc, char **argv);

/* The commands that report on one pass, and can share it (report.h). */
struct report;
extern const struct report map_report, summary_report, timeline_report,
	mrc_report, reuse_report, tlb_report, hot_report, symbols_report,
	wss_report, prefetch_report, files_report, frames_report;

#endif
