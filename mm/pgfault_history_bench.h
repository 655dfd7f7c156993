/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Microbenchmark of the fault record path (CONFIG_PGFAULT_HISTORY_BENCHMARK),
 * included by mm/pgfault_history.c.
 *
 * A traced process writes a count N to /sys/kernel/debug/pgfault_history_bench;
 * the kernel then runs the record path a fault takes, __pgf_record_fault(),
 * N times for that process (write faults by the user at successive pages)
 * and times the loop. Reading the file gives the last result:
 *
 *   records N ns T kept K lost L
 *
 * T is the whole loop, so T / N is the cost one fault pays for being
 * recorded, the page fault itself excluded. K and L are the fault records
 * kept and lost meanwhile, so the caller can tell a run that measured the
 * drop path (a full buffer) from one that measured the write path.
 */

static DEFINE_MUTEX(pgf_bench_mutex);
static char pgf_bench_result[128];

static ssize_t pgf_bench_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pgf_trace *t = current->signal->pgf_trace;
	struct pt_regs *regs = task_pt_regs(current);
	u64 kept, lost, start, ns;
	unsigned long n, i;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (!n || n > 100000000UL)
		return -EINVAL;
	if (!t || !READ_ONCE(t->active) || !current->mm ||
	    !(current->flags & PF_PGFAULT_HISTORY))
		return -ENODATA;	/* only a traced thread records */

	mutex_lock(&pgf_bench_mutex);
	spin_lock(&t->lock);
	kept = t->nr_faults;
	lost = t->total_lost_faults;
	spin_unlock(&t->lock);

	start = ktime_get_ns();
	for (i = 0; i < n; i++) {
		__pgf_record_fault(current->mm, PAGE_SIZE * (i & 0xffff),
				   FAULT_FLAG_USER | FAULT_FLAG_WRITE, 0, regs);
		cond_resched();
	}
	ns = ktime_get_ns() - start;

	spin_lock(&t->lock);
	kept = t->nr_faults - kept;
	lost = t->total_lost_faults - lost;
	spin_unlock(&t->lock);
	scnprintf(pgf_bench_result, sizeof(pgf_bench_result),
		  "records %lu ns %llu kept %llu lost %llu\n", n, ns, kept, lost);
	mutex_unlock(&pgf_bench_mutex);
	return count;
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
