// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmark of the fault record path (CONFIG_PGFAULT_HISTORY_BENCHMARK).
 *
 * A traced process writes a count N to /sys/kernel/debug/pgfault_history_bench;
 * the kernel then runs the record path a fault takes, pgf_record_fault(),
 * N times for that process (write faults by the user at successive pages)
 * and times the loop. Reading the file gives the last result:
 *
 *   records N ns T kept K lost L
 *
 * T is the time spent in the loop, so T / N is the cost one fault pays for
 * being recorded, the page fault itself excluded. K and L are the fault
 * records kept and lost meanwhile, so the caller can tell a run that
 * measured the drop path (a full buffer) from one that measured the write
 * path.
 *
 * "ftrace N" times, the same way, N calls of the event
 * pgfault_history:pgfault_history_bench (enable it first), which writes a
 * 128-byte string and a number through ftrace into its ring buffer, as
 * the tracepoint benchmark's benchmark_event does: the kernel's own
 * per-event cost, measured with the same clock.
 *
 * "clock N" times N calls of ktime_get_ns(), the clock every record reads,
 * on its own: what the record path cannot go below.
 *
 * The loop runs in chunks of PGF_BENCH_CHUNK calls; only the chunks are
 * timed, and the CPU is offered to others between them.
 */

#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pgfault_history.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define CREATE_TRACE_POINTS
#include <trace/events/pgfault_history.h>

#include "internal.h"

#define PGF_BENCH_CHUNK	1024

static DEFINE_MUTEX(pgf_bench_mutex);
static char pgf_bench_result[128];

static u64 pgf_bench_records(struct pgf_trace *t, unsigned long n)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long i, j;
	u64 start, ns = 0;

	for (i = 0; i < n; i += PGF_BENCH_CHUNK) {
		start = ktime_get_ns();
		for (j = i; j < n && j < i + PGF_BENCH_CHUNK; j++)
			pgf_record_fault(t, current->mm, PAGE_SIZE * (j & 0xffff),
					 FAULT_FLAG_USER | FAULT_FLAG_WRITE,
					 0, regs);
		ns += ktime_get_ns() - start;
		cond_resched();
	}
	return ns;
}

static ssize_t pgf_bench_ftrace(unsigned long n)
{
	static char str[PGF_BENCH_EVENT_STRLEN] = "pgfault_history_bench";
	unsigned long i, j;
	u64 start, ns = 0;

	if (!trace_pgfault_history_bench_enabled())
		return -ENOENT;
	for (i = 0; i < n; i += PGF_BENCH_CHUNK) {
		start = ktime_get_ns();
		for (j = i; j < n && j < i + PGF_BENCH_CHUNK; j++)
			trace_pgfault_history_bench(str, j);
		ns += ktime_get_ns() - start;
		cond_resched();
	}
	scnprintf(pgf_bench_result, sizeof(pgf_bench_result),
		  "ftrace %lu ns %llu\n", n, ns);
	return 0;
}

static void pgf_bench_clock(unsigned long n)
{
	unsigned long i, j;
	u64 start, ns = 0, sum = 0;

	for (i = 0; i < n; i += PGF_BENCH_CHUNK) {
		start = ktime_get_ns();
		for (j = i; j < n && j < i + PGF_BENCH_CHUNK; j++)
			sum += ktime_get_ns();
		ns += ktime_get_ns() - start;
		cond_resched();
	}
	scnprintf(pgf_bench_result, sizeof(pgf_bench_result),
		  "clock %lu ns %llu sum %llu\n", n, ns, sum);
}

static ssize_t pgf_bench_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pgf_trace *t = pgf_trace_of(current->signal);
	char buf[32], *arg = buf;
	bool ftrace = false, clock = false;
	u64 kept, lost, kept0, lost0, ns;
	unsigned long n;
	ssize_t ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (str_has_prefix(buf, "ftrace ")) {
		ftrace = true;
		arg += strlen("ftrace ");
	} else if (str_has_prefix(buf, "clock ")) {
		clock = true;
		arg += strlen("clock ");
	}
	ret = kstrtoul(strim(arg), 0, &n);
	if (ret)
		return ret;
	if (!n || n > 100000000UL)
		return -EINVAL;

	mutex_lock(&pgf_bench_mutex);
	if (ftrace) {
		ret = pgf_bench_ftrace(n);
		goto out;
	}
	if (clock) {
		pgf_bench_clock(n);
		ret = 0;
		goto out;
	}
	ret = -ENODATA;		/* only a traced thread records */
	if (!t || !READ_ONCE(t->active) || !current->mm)
		goto out;
	pgf_fault_totals(t, &kept0, &lost0);
	ns = pgf_bench_records(t, n);
	pgf_fault_totals(t, &kept, &lost);
	kept -= kept0;
	lost -= lost0;
	scnprintf(pgf_bench_result, sizeof(pgf_bench_result),
		  "records %lu ns %llu kept %llu lost %llu\n", n, ns, kept, lost);
	ret = 0;
out:
	mutex_unlock(&pgf_bench_mutex);
	return ret ? ret : count;
}

static ssize_t pgf_bench_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char buf[sizeof(pgf_bench_result)];

	mutex_lock(&pgf_bench_mutex);
	strscpy(buf, pgf_bench_result, sizeof(buf));
	mutex_unlock(&pgf_bench_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

static const struct file_operations pgf_bench_fops = {
	.owner	= THIS_MODULE,
	.read	= pgf_bench_read,
	.write	= pgf_bench_write,
	.llseek	= default_llseek,
};

static int __init pgf_bench_init(void)
{
	debugfs_create_file("pgfault_history_bench", 0600, NULL, NULL,
			    &pgf_bench_fops);
	return 0;
}
late_initcall(pgf_bench_init);
