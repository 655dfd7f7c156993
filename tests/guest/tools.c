// SPDX-License-Identifier: GPL-2.0
/*
 * tools - tracepgfault and pgfreport in the guest: exit statuses, signals,
 * attaching with -p, every error tracepgfault promises, and a trace that
 * the tools' reader replays from start to exit.
 */
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "../../tools/lib/pgftrace.h"

struct run {
	int status;
	char out[65536], err[4096];
};

/* Run argv with stdout and stderr captured; @uid >= 0 runs it as that uid. */
static void run_as(int uid, char *const argv[], struct run *r)
{
	int o[2], e[2];
	ssize_t n;
	size_t lo = 0, le = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	ASSERT_SYS(pipe(o));
	ASSERT_SYS(pipe(e));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		if (uid >= 0 && (setgid(uid) || setuid(uid) ||
				 prctl(PR_SET_DUMPABLE, 1)))
			_exit(99);
		execvp(argv[0], argv);
		_exit(98);
	}
	close(o[1]);
	close(e[1]);
	while ((n = read(o[0], r->out + lo, sizeof(r->out) - 1 - lo)) > 0)
		lo += n;
	while ((n = read(e[0], r->err + le, sizeof(r->err) - 1 - le)) > 0)
		le += n;
	close(o[0]);
	close(e[0]);
	waitpid(pid, &r->status, 0);
	ASSERT_TRUE(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
	if (r->err[0])
		ktap_diag("stderr: %.200s", r->err);
}

#define RUN(r, ...) run_as(-1, (char *const[]){ __VA_ARGS__, NULL }, r)

/*
 * The same, started in the background, stderr to @errpath (stdout to
 * /dev/null): the test waits for what it needs while the tool runs, then
 * finish_tool() collects the status and stderr.
 */
static pid_t start_tool(const char *errpath, char *const argv[])
{
	pid_t pid = ASSERT_SYS(fork());

	if (pid == 0) {
		int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int o = open("/dev/null", O_WRONLY);

		if (e < 0 || o < 0)
			_exit(99);
		dup2(o, 1);
		dup2(e, 2);
		execvp(argv[0], argv);
		_exit(98);
	}
	return pid;
}

#define START(errpath, ...) start_tool(errpath, (char *const[]){ __VA_ARGS__, NULL })

static void finish_tool(pid_t pid, const char *errpath, struct run *r)
{
	int fd;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	ASSERT_EQ(waitpid(pid, &r->status, 0), pid);
	ASSERT_TRUE(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
	fd = open(errpath, O_RDONLY);
	ASSERT_SYS(fd);
	n = read(fd, r->err, sizeof(r->err) - 1);
	close(fd);
	r->err[n > 0 ? n : 0] = '\0';
	unlink(errpath);
	if (r->err[0])
		ktap_diag("stderr: %.200s", r->err);
}

/*
 * Lines of @path that start with @prefix and do not contain @without
 * (NULL: any); a file not there yet has none.
 */
static int count_lines(const char *path, const char *prefix, const char *without)
{
	char line[4096];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)) &&
		    (!without || !strstr(line, without)))
			n++;
	fclose(f);
	return n;
}

/*
 * Wait until @path holds @n such lines: what a running tracepgfault has
 * written (it writes what it reads as it reads it). A bounded wait: the
 * caller's assertion fails if they never come.
 */
static int wait_lines(const char *path, const char *prefix, const char *without,
		      int n, int seconds)
{
	for (int i = 0; i < seconds * 100; i++) {
		if (count_lines(path, prefix, without) >= n)
			return 1;
		usleep(10 * 1000);
	}
	return 0;
}

struct replayed {
	unsigned long long faults, outside, records;
	int exec_seen, last_type;
	unsigned long long exit_status;
};

/* Replay a trace file with the tools' reader. */
static void replay_file(const char *path, struct replayed *res)
{
	struct pgft_space s = { 0 };
	struct pgft_reader rd;
	struct pgft_rec r;
	FILE *f = fopen(path, "r");
	int ret;

	memset(res, 0, sizeof(*res));
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(pgft_open(&rd, f, path), 0);
	while ((ret = pgft_next(&rd, &r)) > 0) {
		res->records++;
		pgft_apply(&s, &r);
		res->last_type = r.type;
		res->exec_seen += r.type == PGFT_EXEC;
		if (r.type == PGFT_EXIT)
			res->exit_status = r.n[0];
		if (r.type == PGFT_FAULT && pgft_counted(r.result)) {
			res->faults++;
			res->outside += !pgft_find(&s, r.addr);
		}
	}
	if (ret < 0)
		ktap_diag("%s", rd.error);
	EXPECT_EQ(ret, 0);
	pgft_close(&rd);
	pgft_space_free(&s);
	fclose(f);
}

TEST(exit_status_passes_through_and_trace_replays)
{
	struct replayed res;
	struct run r;

	RUN(&r, "tracepgfault", "-q", "-o", "/tmp/t1.trace", "sh", "-c", "exit 3");
	EXPECT_EQ(r.status, 3);
	EXPECT_EQ(r.err[0], '\0');			/* -q */
	replay_file("/tmp/t1.trace", &res);
	EXPECT_EQ(res.exec_seen, 1);
	EXPECT_GT(res.faults, 10);
	EXPECT_EQ(res.outside, 0);
	EXPECT_EQ(res.last_type, PGFT_EXIT);
	EXPECT_EQ(res.exit_status, 3 << 8);
	unlink("/tmp/t1.trace");
}

TEST(killed_command_gives_128_plus_signal)
{
	struct run r;

	RUN(&r, "tracepgfault", "-q", "-o", "/tmp/t2.trace", "sh", "-c", "kill -TERM $$");
	EXPECT_EQ(r.status, 128 + SIGTERM);
	unlink("/tmp/t2.trace");
}

TEST(summary_line_counts_the_trace)
{
	unsigned long long faults, major, regions, lost;
	struct replayed res;
	struct run r;

	RUN(&r, "tracepgfault", "-o", "/tmp/t3.trace", "ls", "/");
	EXPECT_EQ(r.status, 0);
	ASSERT_EQ(sscanf(r.err, "tracepgfault: %llu faults (%llu major), %llu regions, "
			 "%llu lost records,", &faults, &major, &regions, &lost), 4);
	replay_file("/tmp/t3.trace", &res);
	/* Every fault line, failed ones too, is counted. */
	EXPECT_GE(faults, res.faults);
	EXPECT_EQ(lost, 0);
	EXPECT_GT(regions, 5);
	unlink("/tmp/t3.trace");
}

TEST(command_not_found_is_127)
{
	struct run r;

	RUN(&r, "tracepgfault", "-o", "/tmp/t4.trace", "no-such-command-here");
	EXPECT_EQ(r.status, 127);
	EXPECT_TRUE(strstr(r.err, "command not found") != NULL);
	EXPECT_NE(access("/tmp/t4.trace", F_OK), 0);	/* nothing left behind */
}

TEST(unwritable_outfile_fails_before_the_command_runs)
{
	struct run r;

	unlink("/tmp/pgf-ran");
	RUN(&r, "tracepgfault", "-o", "/no/such/dir/x.trace", "touch", "/tmp/pgf-ran");
	EXPECT_EQ(r.status, 125);
	EXPECT_TRUE(strstr(r.err, "/no/such/dir/x.trace") != NULL);
	EXPECT_NE(access("/tmp/pgf-ran", F_OK), 0);	/* never ran */
}

/* The contents of a small file, for comparing before and after. */
static size_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, size) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? (size_t)n : 0;
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/*
 * The output is -o FILE, pgfault.trace by default, and an existing file is
 * never overwritten without -F: the first form's arguments swapped
 * ("tracepgfault ./myprog out.trace") runs ./myprog, and leaves it as it
 * was; with -o, the first form's OUTFILE ("tracepgfault -o new.trace
 * out.trace ./myprog") is a command not found, and leaves nothing behind.
 */
TEST(an_existing_file_is_never_overwritten_without_force)
{
	static const char prog[] = "#!/bin/sh\nexit 0\n";
	char before[256], after[256];
	struct run r;
	size_t n;

	ASSERT_TRUE(!mkdir("/tmp/pgf-out", 0755) || errno == EEXIST);
	ASSERT_SYS(chdir("/tmp/pgf-out"));
	unlink("pgfault.trace");
	unlink("out.trace");
	write_text("myprog", prog, 0755);

	RUN(&r, "tracepgfault", "-q", "./myprog", "out.trace");
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(slurp("myprog", after, sizeof(after)), strlen(prog));
	EXPECT_EQ(memcmp(after, prog, strlen(prog)), 0);
	EXPECT_EQ(access("out.trace", F_OK), -1);	/* an argument, no more */
	EXPECT_EQ(slurp("pgfault.trace", after, 16), 16);	/* the default */
	EXPECT_EQ(memcmp(after, "pgfault_history ", 16), 0);

	/* Again: pgfault.trace exists, and is kept as it is. */
	n = slurp("pgfault.trace", before, sizeof(before));
	RUN(&r, "tracepgfault", "-q", "./myprog");
	EXPECT_EQ(r.status, 125);
	EXPECT_TRUE(strstr(r.err, "pgfault.trace exists") != NULL);
	EXPECT_TRUE(strstr(r.err, "-F") != NULL);
	EXPECT_EQ(slurp("pgfault.trace", after, sizeof(after)), n);
	EXPECT_EQ(memcmp(after, before, n), 0);

	/* The old habit: the output file first. */
	RUN(&r, "tracepgfault", "-q", "-o", "new.trace", "out.trace", "./myprog");
	EXPECT_EQ(r.status, 127);
	EXPECT_NE(access("new.trace", F_OK), 0);	/* it made it: it removed it */
	EXPECT_EQ(slurp("myprog", after, sizeof(after)), strlen(prog));

	/* -F overwrites; a command not found then leaves the file it did not make. */
	write_text("old.trace", "keep me\n", 0644);
	RUN(&r, "tracepgfault", "-q", "-o", "old.trace", "./myprog");
	EXPECT_EQ(r.status, 125);
	EXPECT_EQ(slurp("old.trace", after, sizeof(after)), 8);
	RUN(&r, "tracepgfault", "-q", "-F", "-o", "old.trace", "./myprog");
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(slurp("old.trace", after, 16), 16);
	EXPECT_EQ(memcmp(after, "pgfault_history ", 16), 0);
	RUN(&r, "tracepgfault", "-q", "--force", "-o", "old.trace", "no-such-command-here");
	EXPECT_EQ(r.status, 127);
	EXPECT_EQ(access("old.trace", F_OK), 0);
	unlink("old.trace");
	unlink("pgfault.trace");
	unlink("myprog");
}

/*
 * The faults of the trace in @path if it is whole: its reader reads it to
 * an exit record whose totals are the faults read, nothing lost; else -1.
 */
static long whole_trace(const char *path)
{
	struct pgft_reader rd;
	struct pgft_rec r;
	FILE *f = fopen(path, "r");
	long faults = 0, lost = 0, ret = -1;
	int got;

	if (!f || pgft_open(&rd, f, path)) {
		ktap_diag("%s: not a trace", path);
		if (f)
			fclose(f);
		return -1;
	}
	while ((got = pgft_next(&rd, &r)) > 0) {
		if ((r.type == PGFT_FAULT || r.type == PGFT_REMOTE) &&
		    pgft_counted(r.result))
			faults++;
		if (r.type == PGFT_LOST)
			lost += r.n[0];
		if (r.type == PGFT_EXIT)
			ret = (long)r.n[1] == faults && !lost && !r.n[2] ?
			      faults : -1;
	}
	if (got < 0)
		ret = -1;
	pgft_close(&rd);
	fclose(f);
	return ret;
}

/*
 * The project's first form, exactly as its specification writes it:
 * "tracepgfault outfile cmd arg0 arg1 ...". The same command line runs
 * again (outfile holds a trace); an empty file is written; a file that is
 * not a trace is kept unless -F; an executable is never written, -F or
 * not (it is the command the user meant).
 */
TEST(outfile_cmd_args_writes_the_trace_of_cmd_to_outfile)
{
	static const char prog[] = "#!/bin/sh\nexit 0\n";
	char buf[256];
	struct run r;

	ASSERT_TRUE(!mkdir("/tmp/pgf-first", 0755) || errno == EEXIST);
	ASSERT_SYS(chdir("/tmp/pgf-first"));
	unlink("outfile");
	unlink("pgfault.trace");

	RUN(&r, "tracepgfault", "outfile", "ls", "-l", "/");
	EXPECT_EQ(r.status, 0);
	EXPECT_TRUE(strstr(r.out, "bin") != NULL);	/* ls ran, with its args */
	EXPECT_GT(whole_trace("outfile"), 0);
	EXPECT_NE(access("pgfault.trace", F_OK), 0);
	RUN(&r, "tracepgfault", "outfile", "ls", "-l", "/");	/* again */
	EXPECT_EQ(r.status, 0);
	EXPECT_GT(whole_trace("outfile"), 0);
	/* A command's status is still its own in this form. */
	RUN(&r, "tracepgfault", "outfile", "sh", "-c", "exit 3");
	EXPECT_EQ(r.status, 3);
	EXPECT_GT(whole_trace("outfile"), 0);
	/* Compressed by its name, recognised by its bytes when run again. */
	unlink("outfile.zst");
	RUN(&r, "tracepgfault", "-q", "outfile.zst", "true");
	EXPECT_EQ(r.status, 0);
	RUN(&r, "tracepgfault", "-q", "outfile.zst", "true");
	EXPECT_EQ(r.status, 0);
	RUN(&r, "pgfreport", "summary", "outfile.zst");
	EXPECT_EQ(r.status, 0);
	unlink("outfile.zst");

	write_text("empty", "", 0644);
	RUN(&r, "tracepgfault", "-q", "empty", "true");
	EXPECT_EQ(r.status, 0);
	EXPECT_GT(whole_trace("empty"), 0);
	unlink("empty");

	write_text("notes", "keep me\n", 0644);
	RUN(&r, "tracepgfault", "-q", "notes", "true");
	EXPECT_EQ(r.status, 125);
	EXPECT_TRUE(strstr(r.err, "notes exists and is not a trace") != NULL);
	EXPECT_TRUE(strstr(r.err, "-F") != NULL);
	EXPECT_EQ(slurp("notes", buf, sizeof(buf)), 8);
	RUN(&r, "tracepgfault", "-q", "-F", "notes", "true");
	EXPECT_EQ(r.status, 0);
	EXPECT_GT(whole_trace("notes"), 0);
	unlink("notes");

	/* Not on PATH, so not a command: an OUTFILE that is never written. */
	write_text("myprog", prog, 0755);
	RUN(&r, "tracepgfault", "-q", "-F", "myprog", "true");
	EXPECT_EQ(r.status, 125);
	EXPECT_TRUE(strstr(r.err, "./myprog") != NULL);
	EXPECT_TRUE(strstr(r.err, "-o myprog") != NULL);
	EXPECT_EQ(slurp("myprog", buf, sizeof(buf)), strlen(prog));
	EXPECT_EQ(memcmp(buf, prog, strlen(prog)), 0);
	/* A path to it is a command; so is a name on PATH. */
	RUN(&r, "tracepgfault", "-q", "./myprog", "arg");
	EXPECT_EQ(r.status, 0);
	EXPECT_GT(whole_trace("pgfault.trace"), 0);
	EXPECT_EQ(slurp("myprog", buf, sizeof(buf)), strlen(prog));
	unlink("pgfault.trace");
	RUN(&r, "tracepgfault", "-q", "true", "outfile");
	EXPECT_EQ(r.status, 0);
	EXPECT_GT(whole_trace("pgfault.trace"), 0);
	/* One word is the command, whatever it is. */
	unlink("pgfault.trace");
	RUN(&r, "tracepgfault", "-q", "outfile");
	EXPECT_EQ(r.status, 127);
	unlink("myprog");
	unlink("outfile");
	unlink("pgfault.trace");
}

/*
 * The specification's other reader: a process writes '1' to
 * /proc/<its pid>/pgfault_history and execs; cat of that file, started
 * before, copies the trace and ends (EOF) once the process is reaped.
 */
TEST(cat_of_a_process_that_traces_itself_ends_when_it_is_reaped)
{
	int ready[2], go[2], out, status;
	char c, path[64];
	pid_t p, cat;

	ASSERT_SYS(pipe(ready));
	ASSERT_SYS(pipe(go));
	p = ASSERT_SYS(fork());
	if (p == 0) {
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/pgfault_history", getpid());
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "1", 1) != 1)
			_exit(90);
		close(fd);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(91);
		execlp("ls", "ls", "-l", "/", NULL);
		_exit(92);
	}
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	snprintf(path, sizeof(path), "/proc/%d/pgfault_history", p);
	out = open("/tmp/cat.trace", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_SYS(out);
	cat = ASSERT_SYS(fork());
	if (cat == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(out, 1);
		dup2(null, 0);
		execlp("cat", "cat", path, NULL);
		_exit(98);
	}
	close(out);
	/* cat has the file open once it reads the header's line. */
	for (int i = 0; i < 6000 && count_lines("/tmp/cat.trace", "pgfault_history ", NULL) == 0; i++)
		usleep(10 * 1000);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(waitpid(p, &status, 0), p);	/* reaped: cat ends */
	EXPECT_EQ(status, 0);
	ASSERT_EQ(waitpid(cat, &status, 0), cat);
	EXPECT_EQ(status, 0);
	EXPECT_GT(whole_trace("/tmp/cat.trace"), 0);
	unlink("/tmp/cat.trace");
}

/*
 * Run tracepgfault with its stderr on a pseudo-terminal; collect what the
 * terminal shows until it closes. @stop, if set, is created once the
 * terminal shows @until (waited for, 60 s at most).
 */
static void on_terminal(char *const argv[], const char *until,
			const char *stop, char *buf, size_t size, int *status)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY), waited = 0;
	size_t len = 0;
	pid_t pid;

	ASSERT_TRUE(master >= 0);
	ASSERT_SYS(grantpt(master));
	ASSERT_SYS(unlockpt(master));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
		int null = open("/dev/null", O_WRONLY);

		if (slave < 0 || null < 0 || dup2(slave, 2) < 0 || dup2(null, 1) < 0)
			_exit(99);
		close(master);
		execvp(argv[0], argv);
		_exit(98);
	}
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 1000) == 0) {
			if (++waited > 60)
				break;
			continue;
		}
		n = read(master, buf + len, size - 1 - len);
		if (n <= 0)
			break;		/* EIO: the last slave closed */
		len += n;
		buf[len] = '\0';
		if (stop && until && strstr(buf, until)) {
			close(ASSERT_SYS(open(stop, O_WRONLY | O_CREAT, 0644)));
			until = NULL;
		}
	}
	buf[len] = '\0';
	close(master);
	ASSERT_EQ(waitpid(pid, status, 0), pid);
}

/*
 * On a terminal, a status line redrawn as the trace is read (erased with
 * ESC [ K before the summary); with -q, nothing; on a pipe, no status line
 * (the other tests read the summary from the start of stderr).
 */
TEST(a_status_line_on_a_terminal_only)
{
	static char buf[65536];
	char *const cmd[] = { "tracepgfault", "-o", "/tmp/st.trace", "sh", "-c",
			      "while [ ! -e /tmp/st.stop ]; do :; done", NULL };
	char *const quiet[] = { "tracepgfault", "-q", "-o", "/tmp/st.trace", "true",
				NULL };
	char *summary;
	struct run r;
	int status;

	unlink("/tmp/st.trace");
	unlink("/tmp/st.stop");
	on_terminal(cmd, " records, ", "/tmp/st.stop", buf, sizeof(buf), &status);
	unlink("/tmp/st.stop");
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_TRUE(strstr(buf, "\033[Ktracepgfault: ") != NULL);
	EXPECT_TRUE(strstr(buf, " faults/s, ") != NULL);
	summary = strstr(buf, " faults (");
	ASSERT_TRUE(summary != NULL);
	/* The line is erased, then the summary comes on a clean line. */
	EXPECT_TRUE(strstr(buf, "\r\033[Ktracepgfault: ") != NULL);
	EXPECT_EQ(strstr(summary, "\033[K"), NULL);
	unlink("/tmp/st.trace");

	on_terminal(quiet, NULL, NULL, buf, sizeof(buf), &status);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(buf[0], '\0');
	unlink("/tmp/st.trace");

	RUN(&r, "tracepgfault", "-o", "/tmp/st.trace", "true");
	EXPECT_EQ(strchr(r.err, '\033'), NULL);
	unlink("/tmp/st.trace");
}

/*
 * Records lost are warned of on the terminal as they happen: a fault storm
 * (dd's 16 MiB buffer) into the smallest rings. Whether this host loses
 * any is up to its speed; the warning and the summary must agree.
 */
TEST(a_loss_is_warned_of_on_a_terminal)
{
	static char buf[65536];
	char *const cmd[] = { "tracepgfault", "-o", "/tmp/sl.trace", "dd",
			      "if=/dev/zero", "of=/dev/null", "bs=16M", "count=4",
			      NULL };
	unsigned long long lost = 0;
	char *sum;
	int status;

	unlink("/tmp/sl.trace");
	ASSERT_EQ(pgf_set_buffer_kb(4), 0);
	on_terminal(cmd, NULL, NULL, buf, sizeof(buf), &status);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	unlink("/tmp/sl.trace");
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	sum = strstr(buf, " regions, ");
	ASSERT_TRUE(sum != NULL);
	ASSERT_EQ(sscanf(sum, " regions, %llu lost records", &lost), 1);
	ktap_diag("%llu records lost; %s", lost,
		  strstr(buf, "WARNING") ? "warned" : "no warning");
	if (lost)
		EXPECT_TRUE(strstr(buf, "tracepgfault: WARNING: ") != NULL);
	else
		EXPECT_EQ(strstr(buf, "WARNING"), NULL);
}

TEST(both_tools_say_their_version)
{
	struct run r;

	RUN(&r, "tracepgfault", "--version");
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(strncmp(r.out, "tracepgfault ", 13), 0);
	EXPECT_TRUE(strstr(r.out, "trace format up to") != NULL);
	RUN(&r, "pgfreport", "--version");
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(strncmp(r.out, "pgfreport ", 10), 0);
}

TEST(dash_writes_the_trace_to_stdout)
{
	struct run r;

	RUN(&r, "tracepgfault", "-q", "-o", "-", "true");
	EXPECT_EQ(r.status, 0);
	EXPECT_TRUE(pgf_header_ok(r.out));
	EXPECT_TRUE(strstr(r.out, "\nexit ") != NULL);
}

TEST(bad_usage_and_help)
{
	struct run r;

	RUN(&r, "tracepgfault", "--help");
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(strncmp(r.out, "Usage: tracepgfault", 19), 0);
	RUN(&r, "tracepgfault", "-o", "/tmp/x.trace");
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(strstr(r.err, "no COMMAND") != NULL);
	RUN(&r, "tracepgfault", "-p", "1", "-o", "/tmp/x.trace", "true");
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(strstr(r.err, "no COMMAND") != NULL);
	EXPECT_NE(access("/tmp/x.trace", F_OK), 0);
	RUN(&r, "tracepgfault", "-p", "abc", "-o", "/tmp/x.trace");
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(strstr(r.err, "not a process id") != NULL);
	RUN(&r, "tracepgfault", "-w", "15", "-o", "/tmp/x.trace", "true");
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(strstr(r.err, "from 16 to 1048576") != NULL);
	RUN(&r, "tracepgfault", "-w", "16", "-i", "10", "-o", "/tmp/x.trace", "true");
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(strstr(r.err, "choose one") != NULL);
}

TEST(window_mode_traces_the_misses_of_a_command)
{
	unsigned long long faults = 0, rerefs = 0;
	struct pgf_trace t;
	struct run r;
	FILE *f;

	/*
	 * A shell loop over the same few commands: with 16 pages accessible
	 * its pages fault again and again (reref); the start says the mode.
	 */
	RUN(&r, "tracepgfault", "-w", "16", "-o", "/tmp/w.trace", "/bin/sh", "-c",
	    "for i in 1 2 3; do :; done");
	EXPECT_EQ(r.status, 0);
	f = fopen("/tmp/w.trace", "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(pgf_read_file(fileno(f), &t), 0);
	fclose(f);
	unlink("/tmp/w.trace");
	ASSERT_GT(t.nr, 0);
	EXPECT_EQ(strcmp(t.rec[0].text, "window=16"), 0);
	for (size_t i = 0; i < t.nr; i++) {
		faults += !strcmp(t.rec[i].type, "fault");
		rerefs += !strcmp(t.rec[i].result, "reref");
	}
	ktap_diag("%llu faults, %llu re-references", faults, rerefs);
	EXPECT_GT(rerefs, 0);
	/* The summary line counts them too. */
	EXPECT_TRUE(strstr(r.err, "re-references") != NULL);
}

TEST(sampling_mode_samples_a_command)
{
	unsigned long long samples = 0, referenced = 0, in_runs = 0, pending = 0;
	struct pgft_reader rd;
	struct pgft_rec rec;
	struct run r;
	char want[64];
	pid_t pid;
	FILE *f;
	int ret;

	RUN(&r, "tracepgfault", "-s", "0", "-o", "/tmp/s.trace", "true");
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(strstr(r.err, "from 1 to 3600000") != NULL);
	RUN(&r, "tracepgfault", "-s", "10", "-w", "16", "-o", "/tmp/s.trace", "true");
	EXPECT_EQ(r.status, 2);
	EXPECT_TRUE(strstr(r.err, "choose one") != NULL);
	/*
	 * A shell loop sampled every 10 ms that runs until three samples are
	 * in the file, however fast the host.
	 */
	unlink("/tmp/s.stop");
	pid = START("/tmp/s.err", "tracepgfault", "-s", "10", "-o", "/tmp/s.trace",
		    "/bin/sh", "-c", "while [ ! -e /tmp/s.stop ]; do :; done");
	EXPECT_TRUE(wait_lines("/tmp/s.trace", "sample ", "baseline", 3, 30));
	close(ASSERT_SYS(open("/tmp/s.stop", O_WRONLY | O_CREAT, 0644)));
	finish_tool(pid, "/tmp/s.err", &r);
	unlink("/tmp/s.stop");
	EXPECT_EQ(r.status, 0);
	f = fopen("/tmp/s.trace", "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(pgft_open(&rd, f, "/tmp/s.trace"), 0);
	while ((ret = pgft_next(&rd, &rec)) > 0) {
		if (rec.type == PGFT_START)
			EXPECT_EQ(strcmp(rec.text, "sample=10"), 0);
		if (rec.type == PGFT_REFS) {
			const char *p = rec.text;
			unsigned long long a, n;

			while (pgft_run(&p, &a, &n))
				pending += n;
		}
		/* A scan the exit ends has no sample record. */
		if (rec.type == PGFT_EXIT)
			pending = 0;
		if (rec.type == PGFT_SAMPLE && !(rec.flags & PGFT_SAMPLE_BASELINE)) {
			samples++;
			referenced += rec.n[1];
			in_runs += pending;
			pending = 0;
		}
	}
	EXPECT_EQ(ret, 0);
	pgft_close(&rd);
	fclose(f);
	unlink("/tmp/s.trace");
	ktap_diag("%llu samples, %llu pages referenced in all", samples, referenced);
	EXPECT_GE(samples, 3);
	EXPECT_GT(referenced, 0);
	EXPECT_EQ(in_runs, referenced);
	/* The summary counts the samples the file holds. */
	snprintf(want, sizeof(want), "; %llu sample%s", samples,
		 samples == 1 ? "" : "s");
	EXPECT_TRUE(strstr(r.err, want) != NULL);
}

/*
 * A shell running @script, its standard input a pipe whose other end is
 * *@release (a script that reads a line waits there until the test writes
 * one); returned once it runs the shell.
 */
static pid_t spawn_shell(const char *script, int *release)
{
	char path[64], comm[32] = "";
	int p[2], fd, i;
	ssize_t n;
	pid_t pid;

	ASSERT_SYS(pipe(p));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		dup2(p[0], 0);
		close(p[0]);
		close(p[1]);
		execl("/bin/sh", "sh", "-c", script, NULL);
		_exit(97);
	}
	close(p[0]);
	*release = p[1];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	for (i = 0; i < 1000 && strcmp(comm, "sh\n"); i++) {
		usleep(10 * 1000);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, comm, sizeof(comm) - 1);
		comm[n > 0 ? n : 0] = '\0';
		if (fd >= 0)
			close(fd);
	}
	ASSERT_EQ(strcmp(comm, "sh\n"), 0);
	return pid;
}

/* Attached: the trace's header is in the file, written after the start,
 * the open and the SIGINT handler. */
#define WAIT_ATTACHED(path) EXPECT_TRUE(wait_lines(path, "pgfault_history ", NULL, 1, 30))

TEST(attach_then_ctrl_c_leaves_a_complete_file)
{
	int release;
	pid_t target = spawn_shell("while :; do sleep 0.05; done", &release);
	struct replayed res;
	pid_t tool;
	int status;

	unlink("/tmp/t5.trace");
	tool = fork();
	if (tool == 0) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", target);
		execlp("tracepgfault", "tracepgfault", "-q", "-p", pid,
		       "-o", "/tmp/t5.trace", NULL);
		_exit(98);
	}
	WAIT_ATTACHED("/tmp/t5.trace");
	/* and the shell has forked a sleep or two meanwhile */
	EXPECT_TRUE(wait_lines("/tmp/t5.trace", "fault ", NULL, 6, 30));
	kill(tool, SIGINT);
	ASSERT_EQ(waitpid(tool, &status, 0), tool);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	close(release);
	replay_file("/tmp/t5.trace", &res);
	/* The shell forked sleeps: its own faults, all in known regions. */
	EXPECT_GT(res.records, 5);
	EXPECT_EQ(res.outside, 0);
	EXPECT_EQ(res.last_type, PGFT_STOP);
	unlink("/tmp/t5.trace");
}

TEST(attach_until_the_process_exits)
{
	int release;
	pid_t target = spawn_shell("read x; exit 5", &release);
	struct replayed res;
	struct run r;
	char pid[16];
	pid_t tool;

	unlink("/tmp/t6.trace");
	snprintf(pid, sizeof(pid), "%d", target);
	tool = START("/tmp/t6.err", "tracepgfault", "-q", "-p", pid, "-o", "/tmp/t6.trace");
	WAIT_ATTACHED("/tmp/t6.trace");
	ASSERT_EQ(write(release, "\n", 1), 1);
	close(release);
	finish_tool(tool, "/tmp/t6.err", &r);
	EXPECT_EQ(r.status, 0);
	waitpid(target, NULL, 0);
	replay_file("/tmp/t6.trace", &res);
	EXPECT_EQ(res.last_type, PGFT_EXIT);
	EXPECT_EQ(res.exit_status, 5 << 8);
	unlink("/tmp/t6.trace");
}

/* ---- -f: trees ----------------------------------------------------------- */

#define MAXT 64

struct treed {
	int n;
	struct {
		int pid;
		unsigned long long kept, lost, exit_kept, exit_lost;
		bool started_inherit, exited;
		unsigned long long status;
		char exec[64];
	} p[MAXT];
	int children[MAXT];	/* pids named by child records */
	int nchildren;
};

/* Read a tree file with the tools' reader; per process what it holds. */
static void read_tree(const char *path, struct treed *t)
{
	struct pgft_reader rd;
	struct pgft_rec r;
	FILE *f = fopen(path, "r");
	int ret, i;

	memset(t, 0, sizeof(*t));
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(pgft_open(&rd, f, path), 0);
	ASSERT_TRUE(rd.tree);
	while ((ret = pgft_next(&rd, &r)) > 0) {
		for (i = 0; i < t->n && t->p[i].pid != r.pid; i++)
			;
		if (i == t->n) {
			ASSERT_LT(t->n, MAXT);
			t->p[t->n++].pid = r.pid;
		}
		if ((r.type == PGFT_FAULT || r.type == PGFT_REMOTE) &&
		    pgft_counted(r.result))
			t->p[i].kept++;
		if (r.type == PGFT_LOST)
			t->p[i].lost += r.n[0];
		if (r.type == PGFT_START)
			t->p[i].started_inherit = r.n[0] == 1;
		if (r.type == PGFT_EXEC)
			snprintf(t->p[i].exec, sizeof(t->p[i].exec), "%s", r.text);
		if (r.type == PGFT_EXIT) {
			t->p[i].exited = true;
			t->p[i].status = r.n[0];
			t->p[i].exit_kept = r.n[1];
			t->p[i].exit_lost = r.n[2];
		}
		if (r.type == PGFT_CHILD && t->nchildren < MAXT)
			t->children[t->nchildren++] = r.n[0];
	}
	EXPECT_EQ(ret, 0);
	if (ret < 0)
		ktap_diag("%s", rd.error);
	pgft_close(&rd);
	fclose(f);
}

/* Every process: traced with inherit, ended, nothing lost on the way. */
static void check_treed(const struct treed *t)
{
	for (int i = 0; i < t->n; i++) {
		EXPECT_TRUE(t->p[i].started_inherit);
		EXPECT_TRUE(t->p[i].exited);
		/* The kernel's totals in "exit" against what the file holds. */
		EXPECT_EQ(t->p[i].kept, t->p[i].exit_kept);
		EXPECT_EQ(t->p[i].lost, t->p[i].exit_lost);
	}
	/* Every child recorded was followed, and only those. */
	EXPECT_EQ(t->nchildren, t->n - 1);
	for (int c = 0; c < t->nchildren; c++) {
		int found = 0;

		for (int i = 0; i < t->n; i++)
			found |= t->p[i].pid == t->children[c];
		EXPECT_TRUE(found);
	}
}

/*
 * tracepgfault -f on a shell script: the shell and every program it runs,
 * a background one in a subshell included, each a whole trace in one
 * file; pgfreport tree lists them all.
 */
TEST(follow_a_shell_script_and_its_programs)
{
	struct treed t;
	struct run r;
	char want[32];
	int trues = 0;

	RUN(&r, "tracepgfault", "-f", "-o", "/tmp/tf.trace", "sh", "-c",
	    "/bin/true; /bin/true; (/bin/true &); wait; /bin/false; exit 3");
	EXPECT_EQ(r.status, 3);
	read_tree("/tmp/tf.trace", &t);
	ktap_diag("%d processes", t.n);
	/* sh, true, true, the subshell, its true, false */
	EXPECT_EQ(t.n, 6);
	check_treed(&t);
	for (int i = 0; i < t.n; i++)
		trues += !strcmp(t.p[i].exec, "/bin/true");
	EXPECT_EQ(trues, 3);
	snprintf(want, sizeof(want), "tracepgfault: %d processes,", t.n);
	EXPECT_TRUE(strstr(r.err, want) != NULL);
	RUN(&r, "pgfreport", "tree", "/tmp/tf.trace");
	EXPECT_EQ(r.status, 0);
	EXPECT_TRUE(strstr(r.out, "/bin/false") != NULL);
	snprintf(want, sizeof(want), "# %d processes traced", t.n);
	EXPECT_TRUE(strstr(r.out, want) != NULL);
	unlink("/tmp/tf.trace");
}

/* -f -p: the children of a running process, from now on. */
TEST(follow_children_of_an_attached_process)
{
	int release;
	pid_t target = spawn_shell("read x; /bin/true; /bin/true; exit 4", &release);
	struct treed t;
	struct run r;
	char pid[16];
	pid_t tool;

	unlink("/tmp/tg.trace");
	snprintf(pid, sizeof(pid), "%d", target);
	tool = START("/tmp/tg.err", "tracepgfault", "-q", "-f", "-p", pid, "-o", "/tmp/tg.trace");
	WAIT_ATTACHED("/tmp/tg.trace");
	ASSERT_EQ(write(release, "\n", 1), 1);
	close(release);
	finish_tool(tool, "/tmp/tg.err", &r);
	EXPECT_EQ(r.status, 0);
	waitpid(target, NULL, 0);
	read_tree("/tmp/tg.trace", &t);
	/* the shell, true, true */
	EXPECT_EQ(t.n, 3);
	check_treed(&t);
	unlink("/tmp/tg.trace");
}

TEST(attach_to_another_users_process_is_refused)
{
	struct run r;

	run_as(PGF_TEST_UID, (char *const[]){ "tracepgfault", "-p", "1",
					      "-o", "/tmp/t7.trace", NULL }, &r);
	EXPECT_EQ(r.status, 125);
	EXPECT_TRUE(strstr(r.err, "cannot trace process 1") != NULL);
	EXPECT_TRUE(strstr(r.err, "denied") != NULL);
	/* The file it made for nothing is gone. */
	EXPECT_NE(access("/tmp/t7.trace", F_OK), 0);
	unlink("/tmp/t7.trace");
}

TEST(kernel_without_the_feature_is_named)
{
	struct run r;
	pid_t pid;
	int st;

	/* A /proc without pgfault_history: a tmpfs over it, in a private
	 * mount namespace, is what the tool sees on such a kernel. */
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("none", "/proc", "tmpfs", 0, NULL))
			_exit(90);
		RUN(&r, "tracepgfault", "-o", "/tmp/t9.trace", "true");
		_exit(r.status == 125 && strstr(r.err, "CONFIG_PGFAULT_HISTORY") ? 0 : 91);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0);
	EXPECT_NE(access("/tmp/t9.trace", F_OK), 0);
}

TEST(pgfreport_reads_what_tracepgfault_wrote)
{
	struct run r;

	RUN(&r, "tracepgfault", "-q", "-o", "/tmp/t8.trace", "ps");
	EXPECT_EQ(r.status, 0);
	RUN(&r, "pgfreport", "map", "/tmp/t8.trace");
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(strncmp(r.out, "Region: ", 8), 0);
	EXPECT_TRUE(strstr(r.out, "[stack]") != NULL);
	EXPECT_TRUE(strstr(r.out, "/bin/busybox") != NULL);
	unlink("/tmp/t8.trace");
}

/*
 * tracepgfault -o @path of ps: the file starts with @magic, and pgfreport
 * reads it; its counted faults (its own and remote ones) are the exit
 * record's count, as in a plain trace.
 */
static void traced_ps_reads_whole(char *path, const char *magic)
{
	unsigned long long faults = 0, exit_faults = ~0ULL;
	size_t n = strlen(magic), cap = 0;
	char head[16] = { 0 }, *line = NULL;
	struct run r;
	FILE *json;
	int fd;

	unlink(path);
	RUN(&r, "tracepgfault", "-q", "-o", path, "ps");
	EXPECT_EQ(r.status, 0);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(read(fd, head, n), (ssize_t)n);
	close(fd);
	EXPECT_EQ(memcmp(head, magic, n), 0);
	/* To a file: the records with their frames pass a pipe's buffer. */
	RUN(&r, "pgfreport", "export", "json", "-o", "/tmp/t.json", path);
	EXPECT_EQ(r.status, 0);
	json = fopen("/tmp/t.json", "r");
	ASSERT_TRUE(json != NULL);
	while (getline(&line, &cap, json) > 0) {
		/* the kernel counts remote faults (exec's arguments) too */
		faults += (!strncmp(line, "{\"type\":\"fault\",", 16) ||
			   !strncmp(line, "{\"type\":\"remote\",", 17)) &&
			  (strstr(line, "\"result\":\"minor\"") ||
			   strstr(line, "\"result\":\"major\"") ||
			   strstr(line, "\"result\":\"reref\""));
		if (!strncmp(line, "{\"type\":\"exit\",", 15))
			sscanf(strstr(line, "\"faults\":"), "\"faults\":%llu",
			       &exit_faults);
	}
	fclose(json);
	free(line);
	unlink("/tmp/t.json");
	ktap_diag("%s: %llu faults, the exit record says %llu", path, faults,
		  exit_faults);
	EXPECT_GT(faults, 10);
	EXPECT_EQ(faults, exit_faults);
	unlink(path);
}

/* A name ending in .zst is written with zstd. */
TEST(a_zst_name_writes_a_zstd_trace_pgfreport_reads)
{
	traced_ps_reads_whole("/tmp/t9.trace.zst", "\x28\xb5\x2f\xfd");
}

/*
 * A name ending in .pgfb is written in the binary form, .pgfb.zst in the
 * binary form compressed; pgfreport convert gives the text back.
 */
TEST(a_pgfb_name_writes_the_binary_form)
{
	struct run r;

	traced_ps_reads_whole("/tmp/t10.pgfb", "\x89PGFB\r\n\n");
	traced_ps_reads_whole("/tmp/t10.pgfb.zst", "\x28\xb5\x2f\xfd");
	RUN(&r, "tracepgfault", "-q", "-o", "/tmp/t10.pgfb", "ps");
	EXPECT_EQ(r.status, 0);
	RUN(&r, "pgfreport", "convert", "-o", "/tmp/t10.trace", "/tmp/t10.pgfb");
	EXPECT_EQ(r.status, 0);
	RUN(&r, "pgfreport", "map", "/tmp/t10.trace");
	EXPECT_EQ(r.status, 0);
	EXPECT_TRUE(strstr(r.out, "[stack]") != NULL);
	unlink("/tmp/t10.pgfb");
	unlink("/tmp/t10.trace");
}

KTAP_MAIN()
