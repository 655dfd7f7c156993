// SPDX-License-Identifier: GPL-2.0
/*
 * The operations of /proc/<pid>/pgfault_history: start and stop page
 * fault tracing of a process, and read its trace as text.
 *
 * fs/proc/base.c registers the file; its open finds the process and calls
 * pgfault_history_open(). Writing "1" starts tracing the process, "0"
 * stops it. Reading streams the records (core.c keeps them) formatted as
 * in include/uapi/linux/pgfault_history.h (format.c), blocking while there
 * are none and the process lives, and returns EOF once it has exited and
 * everything has been read. Opening needs the right to ptrace-attach to
 * the process, and the file is bound to the process's credential
 * generation: after an exec that raises privileges it can neither start,
 * stop nor read (see the DOC: in core.c). One file at a time may read a
 * trace (another gets -EBUSY).
 */
#ifdef PGF_STAGE_INHERIT
/*
 * The reader of a trace started with "inherit" claims the traces of the
 * processes it records as children with the PGFAULT_HISTORY_IOC_CHILD
 * ioctl, which returns a read-only file reading one, even once that
 * process has been reaped.
 */
#endif
#define pr_fmt(fmt) "pgfault: " fmt

#ifdef PGF_STAGE_INHERIT
#include <linux/anon_inodes.h>
#endif
#include <linux/cred.h>
#ifdef PGF_STAGE_INHERIT
#include <linux/file.h>
#endif
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pgfault_history.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/linux/pgfault_history.h>

#include "internal.h"

#define PGF_RAW_SIZE	(2 * PGF_REC_MAX)
#define PGF_TEXT_SIZE	(32 * 1024)

struct pgf_file {
	struct pid *pid;		/* the process */
	struct pid_namespace *ns;	/* of the /proc it was opened through */
	u64 exec_gen;			/* credential generation at open */
#ifdef PGF_STAGE_PHYS
	bool frames;			/* the opener may see frames */
#endif
	struct pgf_trace *trace;	/* once attached as its reader */
	struct mutex attach_lock;
	struct mutex read_lock;		/* one read() at a time */
	void *raw;			/* records taken, not yet formatted */
	size_t raw_len, raw_off;
	size_t text_raw;		/* in raw: the first record in text */
	char *text;			/* formatted, not yet read */
	size_t text_len, text_off;
};

/* Format taken records while there is room for the longest line. */
static void pgf_format(struct pgf_file *pf)
{
	const struct pgf_rec *r;

	if (pf->text_off == pf->text_len) {
		pf->text_off = 0;
		pf->text_len = 0;
		pf->text_raw = pf->raw_off;
	}
	while (pf->raw_off < pf->raw_len &&
	       PGF_TEXT_SIZE - pf->text_len >= PGF_LINE_MAX) {
		r = pf->raw + pf->raw_off;
#ifdef PGF_STAGE_PHYS
		pf->text_len += pgf_format_rec(r, pf->text + pf->text_len,
					       PGF_TEXT_SIZE - pf->text_len,
					       pf->frames);
#else
		pf->text_len += pgf_format_rec(r, pf->text + pf->text_len,
					       PGF_TEXT_SIZE - pf->text_len);
#endif
		pf->raw_off += r->len;
	}
}

/*
 * Where in raw the first record starts whose line has not been read: the
 * lines of the records from text_raw to raw_off are in text, read up to
 * text_off (whole lines only), so formatting them again tells which. The
 * header line is never among them: it is read whole before a record is
 * formatted, and the text starts again empty then (pgf_format()). Only
 * when the file is closed: the text is not needed any more.
 */
static size_t pgf_unread_off(struct pgf_file *pf)
{
	size_t off = pf->text_raw, done = 0;
	const struct pgf_rec *r;

	while (off < pf->raw_off) {
		r = pf->raw + off;
#ifdef PGF_STAGE_PHYS
		done += pgf_format_rec(r, pf->text, PGF_TEXT_SIZE, pf->frames);
#else
		done += pgf_format_rec(r, pf->text, PGF_TEXT_SIZE);
#endif
		if (done > pf->text_off)
			break;
		off += r->len;
	}
	return off;
}

/* The reader's buffers, made once. */
static int pgf_reader_buffers(struct pgf_file *pf)
{
	if (!pf->raw)
		pf->raw = kmalloc(PGF_RAW_SIZE, GFP_KERNEL_ACCOUNT);
	if (!pf->text)
		pf->text = kvmalloc(PGF_TEXT_SIZE, GFP_KERNEL_ACCOUNT);
	return pf->raw && pf->text ? 0 : -ENOMEM;
}

/* @pf is now the reader of @t: the header line comes first. */
static void pgf_reader_start(struct pgf_file *pf, struct pgf_trace *t)
{
	/* The process's id in the namespace the trace's ids are in. */
	pf->text_len = scnprintf(pf->text, PGF_TEXT_SIZE,
				 PGFAULT_HISTORY_MAGIC " %d pid %d page_size %lu\n",
				 PGFAULT_HISTORY_VERSION,
				 pid_nr_ns(pf->pid, t->pid_ns), PAGE_SIZE);
	pf->text_off = 0;
	/* The reader's buffers count against the trace's budget, always. */
	pgf_charge(t, PGF_RAW_SIZE + PGF_TEXT_SIZE, true);
	/* Pairs with smp_load_acquire() in pgfault_history_poll(). */
	smp_store_release(&pf->trace, t);
}

/*
 * Find the trace and become its reader, with the opener's credentials;
 * the header line comes first. The reader's buffers are made here, not at
 * every open.
 */
static int pgf_attach(struct file *file, struct pgf_file *pf)
{
	struct task_struct *task;
	struct pgf_trace *t;
	int err = 0;

	if (READ_ONCE(pf->trace))
		return 0;
	mutex_lock(&pf->attach_lock);
	if (pf->trace)
		goto out_unlock;
	err = pgf_reader_buffers(pf);
	if (err)
		goto out_unlock;
	err = -ESRCH;
	task = get_pid_task(pf->pid, PIDTYPE_TGID);
	if (!task)
		goto out_unlock;
	err = pgf_reader_attach(task, file->f_cred, pf->exec_gen, &t);
	put_task_struct(task);
	if (err)
		goto out_unlock;
	pgf_reader_start(pf, t);
out_unlock:
	mutex_unlock(&pf->attach_lock);
	return err;
}

static void pgf_file_free(struct pgf_file *pf)
{
	kvfree(pf->text);
	kfree(pf->raw);
	put_pid(pf->pid);
	kfree(pf);
}

/**
 * pgfault_history_open() - open /proc/<pid>/pgfault_history
 * @file: the file being opened
 * @task: the process, found by the caller, which keeps its reference
 * @pid: its pid
 * @ns: the pid namespace of the /proc the file is opened through
 *
 * The opener needs the right to ptrace-attach to @task; the file is bound
 * to its credential generation. A file opened for reading becomes the
 * reader of the process's trace if there is one, else at its first read.
 *
 * Return: 0, or -errno (-ENOMEM; those of pgf_check_access() and
 * pgf_reader_attach()).
 */
int pgfault_history_open(struct file *file, struct task_struct *task,
			 struct pid *pid, struct pid_namespace *ns)
{
	struct pgf_file *pf;
	int err;

	pf = kzalloc(sizeof(*pf), GFP_KERNEL_ACCOUNT);
	if (!pf)
		return -ENOMEM;
	err = pgf_check_access(task, file->f_cred, &pf->exec_gen);
	if (err) {
		kfree(pf);
		return err;
	}
	pf->pid = get_pid(pid);
	pf->ns = ns;
#ifdef PGF_STAGE_PHYS
	/* As /proc/<pid>/pagemap shows frames: to the opener's capability. */
	pf->frames = pgf_cred_sees_frames(file->f_cred);
#endif
	mutex_init(&pf->attach_lock);
	mutex_init(&pf->read_lock);
	file->private_data = pf;
	if (!(file->f_mode & FMODE_READ))
		return 0;

	/* A process that does not trace yet may start later: attach then. */
	err = pgf_attach(file, pf);
	if (err && err != -ESRCH)
		goto out_free;
	return 0;

out_free:
	pgf_file_free(pf);
	return err;
}

/**
 * pgfault_history_release() - close a file of pgfault_history
 * @inode: its inode
 * @file: the file
 *
 * What the file's reader took from the trace and did not read goes back
 * for the next reader.
 *
 * Return: 0.
 */
int pgfault_history_release(struct inode *inode, struct file *file)
{
	struct pgf_file *pf = file->private_data;

	if (pf->trace) {
		/* What was taken and not read goes to the next reader. */
		size_t off = pgf_unread_off(pf);

		if (off < pf->raw_len &&
		    pgf_unread(pf->trace, pf->raw, PGF_RAW_SIZE, off,
			       pf->raw_len - off))
			pf->raw = NULL;
		pgf_uncharge(pf->trace, PGF_RAW_SIZE + PGF_TEXT_SIZE);
		pgf_reader_detach(pf->trace);
	}
	pgf_file_free(pf);
	return 0;
}

#ifdef PGF_STAGE_REARM
/* "NAME=N" with N in [@min, @max] into *@val; false if it is not that. */
static bool pgf_parse_param(const char *word, const char *name,
			    unsigned int min, unsigned int max,
			    unsigned int *val)
{
	size_t n = strlen(name);

	return !strncmp(word, name, n) && word[n] == '=' &&
	       !kstrtouint(word + n + 1, 10, val) && *val >= min && *val <= max;
}

/*
 * "1", then a mode (NAME=N) at most and the options, in any order: the
 * mode to start in; 0, or -EINVAL for anything else.
 */
static int pgf_parse_start(char *s, struct pgf_mode *mode)
{
	bool moded = false;
	char *word;

	memset(mode, 0, sizeof(*mode));
	if (strcmp(strsep(&s, " "), "1"))
		return -EINVAL;
	while ((word = strsep(&s, " ")) != NULL) {
		if (!*word)
			continue;	/* more than one space */
#ifdef PGF_STAGE_INHERIT
		if (!strcmp(word, "inherit")) {
			if (mode->inherit)
				return -EINVAL;
			mode->inherit = true;
			continue;
		}
#endif
#ifdef PGF_STAGE_FILES
		if (!strcmp(word, "files")) {
			if (mode->files)
				return -EINVAL;
			mode->files = true;
			continue;
		}
#endif
		if (moded)
			return -EINVAL;
		moded = true;
		if (pgf_parse_param(word, "interval", PGF_INTERVAL_MIN_MS,
				    PGF_INTERVAL_MAX_MS, &mode->interval_ms))
			continue;
#ifdef PGF_STAGE_WINDOW
		if (pgf_parse_param(word, "window", PGF_WINDOW_MIN,
				    PGF_WINDOW_MAX, &mode->window))
			continue;
#endif
#ifdef PGF_STAGE_SAMPLE
		if (pgf_parse_param(word, "sample", PGF_INTERVAL_MIN_MS,
				    PGF_INTERVAL_MAX_MS, &mode->sample_ms))
			continue;
#endif
		return -EINVAL;
	}
	return 0;
}

/**
 * pgfault_history_write() - a command to pgfault_history
 * @file: the file
 * @ubuf: the command
 * @count: its length
 * @ppos: the file position, which must be 0 and does not move
 *
 * "1" starts, in a mode if one is given (pgf_parse_start()), "0" stops,
 * "rearm" re-arms every page. As the offset does not move, one descriptor
 * can be written any number of times.
 *
 * Return: @count, or -errno (-EINVAL, -EFAULT, -ESRCH, and those of the
 * command's function in core.c).
 */
#else
/**
 * pgfault_history_write() - a command to pgfault_history
 * @file: the file
 * @ubuf: the command
 * @count: its length
 * @ppos: the file position, which must be 0 and does not move
 *
 * "1" starts, "0" stops. As the offset does not move, one descriptor can
 * be written any number of times.
 *
 * Return: @count, or -errno (-EINVAL, -EFAULT, -ESRCH, and those of the
 * command's function in core.c).
 */
#endif
ssize_t pgfault_history_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct pgf_file *pf = file->private_data;
#ifdef PGF_STAGE_REARM
	struct pgf_mode mode = {};
#endif
	struct task_struct *task;
	char kbuf[32], *s;
	int err;

	if (*ppos != 0 || count == 0 || count >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	/* "1\0junk" is not "1": nothing is taken that the command is not. */
	if (memchr(kbuf, '\0', count))
		return -EINVAL;
	kbuf[count] = '\0';
	s = strim(kbuf);
#ifdef PGF_STAGE_REARM
	if (s[0] == '1') {
		err = pgf_parse_start(s, &mode);
		if (err)
			return err;
	} else if (strcmp(s, "0") && strcmp(s, "rearm")) {
		return -EINVAL;
	}
#else
	if (strcmp(s, "1") && strcmp(s, "0"))
		return -EINVAL;
#endif

	task = get_pid_task(pf->pid, PIDTYPE_TGID);
	if (!task)
		return -ESRCH;
	/* Checked again, with the opener's credentials, under exec_update_lock. */
#ifdef PGF_STAGE_REARM
	if (s[0] == '1')
		err = pgf_start(task, file->f_cred, pf->exec_gen, pf->ns,
				&mode);
	else if (s[0] == 'r')
		err = pgf_rearm(task, file->f_cred, pf->exec_gen);
	else
		err = pgf_stop(task, file->f_cred, pf->exec_gen);
#else
	if (s[0] == '1')
		err = pgf_start(task, file->f_cred, pf->exec_gen, pf->ns);
	else
		err = pgf_stop(task, file->f_cred, pf->exec_gen);
#endif
	put_task_struct(task);
	return err ? err : count;
}

/* Copy whole lines of formatted text; returns bytes or -errno. */
static ssize_t pgf_copy_lines(struct pgf_file *pf, char __user *ubuf,
			      size_t room)
{
	size_t n = min(room, pf->text_len - pf->text_off);
	const char *start = pf->text + pf->text_off;

	/* Cut after the last newline that fits. */
	if (n < pf->text_len - pf->text_off) {
		while (n && start[n - 1] != '\n')
			n--;
		if (!n)
			return 0;
	}
	if (copy_to_user(ubuf, start, n))
		return -EFAULT;
	pf->text_off += n;
	return n;
}

/**
 * pgfault_history_read() - read the trace as text
 * @file: the file
 * @ubuf: where the lines go
 * @count: room at @ubuf, for one line at least
 * @ppos: unused: the trace is a stream
 *
 * Whole lines only. Blocks while the trace is empty and the process lives,
 * as inotify_read() does.
 *
 * Return: the bytes copied; 0 at the end of the trace; or -errno (-EINVAL
 * when not even one line fits, -EAGAIN, -ERESTARTSYS, -EFAULT, and those
 * of attaching as the trace's reader).
 */
ssize_t pgfault_history_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct pgf_file *pf = file->private_data;
	struct pgf_trace *t;
	ssize_t copied = 0, n;
#ifdef PGF_STAGE_REGIONS
	bool eof = false, stalled = false;
#else
	bool eof = false;
#endif
	int err;

	if (mutex_lock_interruptible(&pf->read_lock))
		return -ERESTARTSYS;
	err = pgf_attach(file, pf);
	if (err)
		goto out_unlock;
	t = pf->trace;

	for (;;) {
		if (pf->text_off < pf->text_len) {
			n = pgf_copy_lines(pf, ubuf + copied, count - copied);
			if (n < 0) {
				err = n;
				break;
			}
			if (!n) {
				/* Not even one line fits the caller's buffer. */
				if (!copied)
					err = -EINVAL;
				break;
			}
			copied += n;
			continue;
		}
		if (pf->raw_off < pf->raw_len) {
			pgf_format(pf);
			continue;
		}
		pf->raw_off = 0;
		pf->raw_len = pgf_pop(t, pf->raw, PGF_RAW_SIZE, &eof);
		if (pf->raw_len)
			continue;
		if (eof || copied)
			break;
#ifdef PGF_STAGE_REGIONS
		/*
		 * Drained, and owed a layout or its next part: ask for it
		 * before sleeping, as long as parts come.
		 */
		if (!stalled && READ_ONCE(t->need_layout) &&
		    READ_ONCE(t->active)) {
			err = pgf_resend_layout(t, pf->pid);
			if (err < 0)
				break;
			stalled = !err;
			err = 0;
			continue;
		}
#endif
		if (file->f_flags & O_NONBLOCK) {
			err = -EAGAIN;
			break;
		}
		if (wait_event_interruptible(t->wait, pgf_readable(t))) {
			err = -ERESTARTSYS;
			break;
		}
	}

out_unlock:
	mutex_unlock(&pf->read_lock);
	return copied ? copied : err;
}

/**
 * pgfault_history_poll() - whether a read would find a line
 * @file: the file
 * @wait: the poll table
 *
 * Return: %EPOLLIN when a read would not block (always, until a read has
 * attached the file), %EPOLLHUP once the process is gone, %EPOLLERR for a
 * file not open for reading.
 */
__poll_t pgfault_history_poll(struct file *file, poll_table *wait)
{
	struct pgf_file *pf = file->private_data;
	struct pgf_trace *t;
	__poll_t mask = 0;

	if (!(file->f_mode & FMODE_READ))
		return EPOLLERR;
	/*
	 * poll() never sleeps: attaching takes a mutex and the process's
	 * exec_update_lock. Until a read() has attached the file, it is
	 * readable: that read() attaches it, or says why it cannot.
	 */
	t = smp_load_acquire(&pf->trace);
	if (!t)
		return EPOLLIN | EPOLLRDNORM;
	poll_wait(file, &t->wait, wait);
	if (READ_ONCE(pf->text_off) < READ_ONCE(pf->text_len) ||
	    READ_ONCE(pf->raw_off) < READ_ONCE(pf->raw_len) || pgf_readable(t))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(t->dead))
		mask |= EPOLLHUP;
	return mask;
}

#ifdef PGF_STAGE_INHERIT
/* A child's trace, claimed by the reader of its parent's: read-only. */
static const struct file_operations pgf_child_fops = {
	.release	= pgfault_history_release,
	.read		= pgfault_history_read,
	.poll		= pgfault_history_poll,
	.unlocked_ioctl	= pgfault_history_ioctl,
	.compat_ioctl	= pgfault_history_ioctl,
	.llseek		= noop_llseek,
};

/*
 * PGFAULT_HISTORY_IOC_CHILD: a new read-only file reading the trace of a
 * child this file's trace recorded (@arg its pid, 0 for the oldest not yet
 * claimed). Only the trace's reader may claim; see the DOC: in
 * mm/pgfault_history/inherit.c.
 */
static long pgf_ioctl_child(struct file *file, struct pgf_file *pf,
			    unsigned long arg)
{
	struct pgf_file *cf;
	struct pgf_trace *c;
	struct file *cfile;
	int fd, err;

	if (arg > PID_MAX_LIMIT)
		return -EINVAL;
	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	err = pgf_attach(file, pf);
	if (err)
		return err;
	cf = kzalloc(sizeof(*cf), GFP_KERNEL_ACCOUNT);
	if (!cf)
		return -ENOMEM;
	mutex_init(&cf->attach_lock);
	mutex_init(&cf->read_lock);
	err = pgf_reader_buffers(cf);
	if (err)
		goto out_free;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto out_free;
	}
	/* Claimed last: every step that can fail is behind. */
	cfile = anon_inode_getfile("[pgfault_history]", &pgf_child_fops, cf,
				   O_RDONLY);
	if (IS_ERR(cfile)) {
		err = PTR_ERR(cfile);
		goto out_put_fd;
	}
	err = pgf_child_claim(pf->trace, arg, &c);
	if (err) {
		fput(cfile);	/* frees cf: it reads nothing */
		put_unused_fd(fd);
		return err;
	}
	pgf_trace_hold_cred(c, file->f_cred, true);
	cf->pid = get_pid(c->tgid);
	cf->ns = c->pid_ns;
#ifdef PGF_STAGE_PHYS
	cf->frames = pf->frames;
#endif
	pgf_reader_start(cf, c);
	fd_install(fd, cfile);
	return fd;

out_put_fd:
	put_unused_fd(fd);
out_free:
	pgf_file_free(cf);
	return err;
}

/**
 * pgfault_history_ioctl() - the ioctls of pgfault_history
 * @file: the file
 * @cmd: %PGFAULT_HISTORY_IOC_CHILD, the one there is
 * @arg: the pid of the child to claim, 0 for the oldest not yet claimed
 *
 * Return: a new file descriptor reading the child's trace, or -errno
 * (-ENOTTY for another @cmd, -EINVAL, -EBADF, -ENOMEM, -EMFILE, and those
 * of pgf_child_claim()).
 */
long pgfault_history_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	if (cmd == PGFAULT_HISTORY_IOC_CHILD)
		return pgf_ioctl_child(file, file->private_data, arg);
	return -ENOTTY;
}
#endif
