// SPDX-License-Identifier: GPL-2.0
/*
 * torture - pgfault_history under fire, in the spirit of locktorture and
 * rcutorture: for a fixed time (PGF_TORTURE_SECONDS; default 60 s on UML,
 * 20 s elsewhere), traced processes with several threads fault, map,
 * unmap, protect, remap, fork, exec (themselves, busybox, a set-uid
 * program) and exit in every order, or are killed; meanwhile writers
 * start, stop and restart their traces, readers open, read, poll, close
 * and reopen them, and signals interrupt all of them. The buffer is 4 KiB
 * and targets fault 1,024 pages at a time now and then, so records are
 * lost (and the test fails if none were).
 *
 * Checked: every stream is well-formed (whole lines, each parses, the
 * header first); the records of a trace, read across many reader
 * sessions, add up to the totals of its exit record; a trace ends with
 * "exit" or "stop credentials"; no reader or writer hangs; afterwards the
 * kernel holds no trace, no buffer and no active key. The runner fails
 * the run on any kernel splat. The operation counts are printed.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include "ktap.h"
#include "pgf.h"
#include "pgfstats.h"
#include "util.h"

#define PAGE		4096UL
#define SLOTS		3
#define SELF		"/tmp/pgf-torture"
#define SUID		"/tmp/pgf-torture-suid"
#define SHM		"/tmp/pgf-torture-shm"
#define BURST_PAGES	1024	/* 32 KiB of fault records: 8 full rings */

/* Counters, shared by every process of the run. */
enum {
	OP_FAULT_PAGES, OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_MREMAP, OP_FORK,
	OP_EXEC_SELF, OP_EXEC_BUSYBOX, OP_EXEC_SUID, OP_THREAD_EXIT,
	OP_EXIT_GROUP, OP_KILLED, OP_TARGETS,
	OP_START_OK, OP_START_ESRCH, OP_START_EACCES, OP_STOP_OK,
	OP_OPEN_FAIL, OP_SESSIONS, OP_READS, OP_EAGAIN, OP_EINTR, OP_EBUSY,
	OP_RECORDS, OP_LOST_FAULTS, OP_LOST_OTHER, OP_EOF_EXIT,
	OP_EOF_CRED, OP_CHECKED, OP_SIGNALS, OP_REARM_OK, OP_START_EBUSY,
	OP_NR
};

static const char * const op_names[OP_NR] = {
	"pages faulted", "mmap", "munmap", "mprotect", "mremap", "fork",
	"exec (self)", "exec (busybox)", "exec (set-uid)", "thread exits",
	"exit_group", "killed", "targets",
	"start ok", "start ESRCH", "start EACCES", "stop ok",
	"open failed", "reader sessions", "reads", "EAGAIN", "EINTR", "EBUSY",
	"records read", "lost faults", "lost other", "traces ended by exit",
	"traces ended by credentials", "traces whose totals were checked",
	"signals sent", "rearm ok", "start EBUSY (other mode)",
};

struct slot {
	pthread_mutex_t lock;
	pid_t pid;			/* the current target */
	int done;			/* its trace was read to EOF */
	int mixed;			/* a set-uid exec: two traces, unchecked */
	unsigned long long ok, lost;	/* counted faults read, lost */
};

struct shared {
	atomic_ulong op[OP_NR];
	atomic_int bad;
	char why[512];
	struct slot slot[SLOTS];
	volatile double deadline;	/* the signaller may push it back */
	volatile int want_loss;		/* no loss yet: every reader is slow */
};

static struct shared *sh;

/* The counters live in a file, so that processes that exec keep them. */
static struct shared *map_shared(int create)
{
	int fd = open(SHM, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0666);
	struct shared *p;

	if (fd < 0 || (create && (ftruncate(fd, sizeof(*p)) || fchmod(fd, 0666))))
		return NULL;
	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void count(int op, unsigned long n)
{
	if (sh)
		atomic_fetch_add(&sh->op[op], n);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&sh->bad, 1) == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->why, sizeof(sh->why), fmt, ap);
		va_end(ap);
	}
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return rand_r(seed) % n;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* Handlers without SA_RESTART: blocked calls return EINTR. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
}

/* ---- targets -------------------------------------------------------------- */

static void become_user(void)
{
	if (setgid(PGF_TEST_UID) || setuid(PGF_TEST_UID) ||
	    prctl(PR_SET_DUMPABLE, 1))
		_exit(40);
}

/* One thread's work: a few dozen random operations on its own mappings. */
static void target_ops(unsigned int seed, int main_thread)
{
	char *map[8] = { 0 };
	size_t len[8] = { 0 };
	int fd = open("/tmp/pgf-torture-file", O_RDWR | O_CREAT, 0666);
	int ops = 20 + rnd(&seed, 60);

	if (fd >= 0 && ftruncate(fd, 16 * PAGE))
		fd = -1;
	for (int i = 0; i < ops; i++) {
		int k = rnd(&seed, 8), n;
		pid_t child;

		switch (rnd(&seed, 10)) {
		case 0:
		case 1:
			if (map[k])
				break;
			len[k] = (1 + rnd(&seed, 16)) * PAGE;
			map[k] = mmap(NULL, len[k], PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (map[k] == MAP_FAILED) {
				map[k] = NULL;
				break;
			}
			count(OP_MMAP, 1);
			/* fall through */
		case 2:
			if (!map[k])
				break;
			n = len[k] / PAGE;
			for (int p = 0; p < n; p += 1 + rnd(&seed, 2))
				map[k][p * PAGE] = i;
			count(OP_FAULT_PAGES, n);
			break;
		case 3:
			if (!map[k])
				break;
			munmap(map[k], len[k]);
			map[k] = NULL;
			count(OP_MUNMAP, 1);
			break;
		case 4:
			if (!map[k] || len[k] < 2 * PAGE)
				break;
			mprotect(map[k], PAGE, PROT_READ);
			mprotect(map[k], PAGE, PROT_READ | PROT_WRITE);
			count(OP_MPROTECT, 2);
			break;
		case 5: {
			char *m;

			if (!map[k])
				break;
			m = mremap(map[k], len[k], len[k] + 4 * PAGE, MREMAP_MAYMOVE);
			if (m != MAP_FAILED) {
				map[k] = m;
				len[k] += 4 * PAGE;
				m[len[k] - PAGE] = 1;
				count(OP_MREMAP, 1);
			}
			break;
		}
		case 6:
			child = fork();
			if (child == 0) {
				if (rnd(&seed, 4) == 0)
					execl("/bin/busybox", "true", NULL);
				if (map[k])
					map[k][0] = 2;
				_exit(0);
			}
			if (child > 0) {
				waitpid(child, NULL, 0);
				count(OP_FORK, 1);
			}
			break;
		case 7:
			if (fd >= 0) {
				char *f = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
					       MAP_SHARED, fd, 0);

				if (f != MAP_FAILED) {
					for (int p = 0; p < 16; p += 3)
						f[p * PAGE]++;
					munmap(f, 16 * PAGE);
					count(OP_FAULT_PAGES, 6);
				}
			}
			break;
		case 8:
			if (sbrk(PAGE) != (void *)-1)
				count(OP_MMAP, 1);
			break;
		case 9: {
			/*
			 * A burst: more faults at once than the 4 KiB rings
			 * hold, so that a reader that sleeps or is slow to
			 * wake loses records (on every CPU count).
			 */
			size_t blen = BURST_PAGES * PAGE;
			char *b = mmap(NULL, blen, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (b == MAP_FAILED)
				break;
			madvise(b, blen, MADV_NOHUGEPAGE);
			for (size_t p = 0; p < BURST_PAGES; p++)
				b[p * PAGE] = 1;
			munmap(b, blen);
			count(OP_MMAP, 1);
			count(OP_MUNMAP, 1);
			count(OP_FAULT_PAGES, BURST_PAGES);
			break;
		}
		}
	}
	(void)main_thread;
	if (fd >= 0)
		close(fd);
}

static void *target_thread(void *arg)
{
	unsigned int seed = (unsigned long)arg;

	target_ops(seed, 0);
	switch (rnd(&seed, 3)) {
	case 0:
		count(OP_EXIT_GROUP, 1);
		exit(0);
	default:
		count(OP_THREAD_EXIT, 1);
		return NULL;
	}
}

/* A target process: threads at work, then one of many ends. */
static int target_main(unsigned int seed, int depth)
{
	pthread_t th[3];
	int nth = 1 + rnd(&seed, 3);

	catch_signals();
	sh = map_shared(0);
	for (int i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, target_thread,
			       (void *)(unsigned long)rand_r(&seed));
	target_ops(seed, 1);
	switch (rnd(&seed, 6)) {
	case 0:
		if (depth < 3) {
			char s[16], d[16];

			snprintf(s, sizeof(s), "%u", rand_r(&seed));
			snprintf(d, sizeof(d), "%d", depth + 1);
			count(OP_EXEC_SELF, 1);
			execl(SELF, SELF, "--as-target", s, d, NULL);
		}
		break;
	case 1:
		count(OP_EXEC_BUSYBOX, 1);
		execl("/bin/busybox", "true", NULL);
		break;
	case 2:
		/*
		 * The trace ends here and the program makes a new one: a
		 * reader that had not read the old one to its end can no
		 * longer tell their records apart.
		 */
		for (int s = 0; sh && s < SLOTS; s++) {
			pthread_mutex_lock(&sh->slot[s].lock);
			if (sh->slot[s].pid == getpid())
				sh->slot[s].mixed = 1;
			pthread_mutex_unlock(&sh->slot[s].lock);
		}
		count(OP_EXEC_SUID, 1);
		execl(SUID, SUID, "--as-helper", NULL);
		break;
	case 3:
		count(OP_THREAD_EXIT, 1);
		pthread_exit(NULL);	/* main goes first */
	default:
		break;
	}
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	count(OP_EXIT_GROUP, 1);
	return 0;
}

/* The set-uid program: traces itself (as root may), faults, exits. */
static int helper_main(void)
{
	char *m;

	pgf_start(getpid());
	m = mmap(NULL, 32 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < 32; i++)
		m[i * PAGE] = 1;
	return 0;
}

/* Keeps a slot busy with one target after another until the deadline. */
static void slot_manager(int s, unsigned int seed)
{
	struct slot *sl = &sh->slot[s];

	catch_signals();
	while (pgf_now_s() < sh->deadline) {
		pid_t pid = fork();
		int status, kill_at;
		double died;

		if (pid == 0) {
			char a[16];

			become_user();
			snprintf(a, sizeof(a), "%u", rand_r(&seed));
			execl(SELF, SELF, "--as-target", a, "0", NULL);
			_exit(41);
		}
		if (pid < 0)
			break;
		pthread_mutex_lock(&sl->lock);
		sl->pid = pid;
		sl->done = 0;
		sl->mixed = 0;
		sl->ok = sl->lost = 0;
		pthread_mutex_unlock(&sl->lock);
		count(OP_TARGETS, 1);
		/* Traced from its first instruction, now and then. */
		if (rnd(&seed, 2) && !pgf_start(pid))
			count(OP_START_OK, 1);
		kill_at = 20 + rnd(&seed, 400);
		for (int i = 0; waitpid(pid, &status, WNOHANG) == 0; i++) {
			if (i == kill_at) {
				kill(pid, SIGKILL);
				count(OP_KILLED, 1);
			} else if (rnd(&seed, 20) == 0) {
				kill(pid, SIGUSR1);
				count(OP_SIGNALS, 1);
			}
			usleep(5000);
		}
		/* Give the reader time to finish the trace before the next. */
		died = pgf_now_s();
		while (pgf_now_s() < died + 2 && pgf_now_s() < sh->deadline) {
			pthread_mutex_lock(&sl->lock);
			if (sl->done) {
				pthread_mutex_unlock(&sl->lock);
				break;
			}
			pthread_mutex_unlock(&sl->lock);
			usleep(10 * 1000);
		}
	}
	_exit(0);
}

/* ---- writers and readers --------------------------------------------------- */

static pid_t slot_pid(int s)
{
	pid_t pid;

	pthread_mutex_lock(&sh->slot[s].lock);
	pid = sh->slot[s].pid;
	pthread_mutex_unlock(&sh->slot[s].lock);
	return pid;
}

static void writer(int s, unsigned int seed)
{
	catch_signals();
	while (pgf_now_s() < sh->deadline) {
		pid_t pid = slot_pid(s);
		int fd, n = 1 + rnd(&seed, 4);

		if (!pid) {
			usleep(1000);
			continue;
		}
		fd = pgf_open(pid, O_WRONLY);
		if (fd < 0) {
			count(OP_OPEN_FAIL, 1);
			usleep(5000);
			continue;
		}
		/*
		 * Several commands on one descriptor: 1 0 1 0 ..., a start
		 * now and then in interval or window mode, a rearm now and
		 * then.
		 */
		for (int i = 0; i < n; i++) {
			bool on = !(i & 1);
			char cmd[32] = "0";
			size_t len;

			if (on && rnd(&seed, 4) == 0)
				snprintf(cmd, sizeof(cmd), "1 interval=%u",
					 1 + rnd(&seed, 20));
			else if (on && rnd(&seed, 3) == 0)
				snprintf(cmd, sizeof(cmd), "1 window=%u",
					 16 + rnd(&seed, 48));
			else if (on)
				cmd[0] = '1';
			len = strlen(cmd);
			if (write(fd, cmd, len) == (ssize_t)len)
				count(on ? OP_START_OK : OP_STOP_OK, 1);
			else if (errno == ESRCH)
				count(OP_START_ESRCH, 1);
			else if (errno == EACCES)
				count(OP_START_EACCES, 1);
			else if (errno == EBUSY && on)
				count(OP_START_EBUSY, 1);
			else if (errno != EINTR)
				fail("writer: write: %s", strerror(errno));
			if (on && rnd(&seed, 3) == 0) {
				if (write(fd, "rearm", 5) == 5)
					count(OP_REARM_OK, 1);
				else if (errno != ESRCH && errno != EACCES &&
					 errno != EINTR)
					fail("writer: rearm: %s", strerror(errno));
			}
			usleep(rnd(&seed, 20000));
		}
		close(fd);
	}
	_exit(0);
}

/* Check one line of a stream; returns its type, or NULL if malformed. */
static const char *check_line(char *line, struct pgft_rec *r)
{
	static const char * const types[] = {
		[PGFT_START] = "start", [PGFT_FAULT] = "fault",
		[PGFT_LOST] = "lost", [PGFT_EXEC] = "exec", [PGFT_STOP] = "stop",
		[PGFT_EXIT] = "exit", [PGFT_LAYOUT] = "layout", [PGFT_MAP] = "map",
		[PGFT_CHANGE] = "change", [PGFT_UNMAP] = "unmap",
		[PGFT_REMOTE] = "remote", [PGFT_REARM] = "rearm",
	};

	if (pgft_parse(line, r))
		return NULL;
	return types[r->type];
}

/* One reader session on slot @s: open, read some or all, close. */
static void read_session(int s, unsigned int *seed)
{
	static char buf[16384], line[8192];
	unsigned long long ok = 0, lost = 0;
	size_t linelen = 0, lines = 0;
	pid_t pid = slot_pid(s);
	int fd, reads = 1 + rnd(seed, 50), end = 0;
	bool nonblock = rnd(seed, 2);
	struct pgft_rec r;
	ssize_t n;

	if (!pid)
		return;
	fd = pgf_open(pid, nonblock ? O_NONBLOCK : 0);
	if (fd < 0) {
		count(errno == EBUSY ? OP_EBUSY : OP_OPEN_FAIL, 1);
		usleep(5000);
		return;
	}
	count(OP_SESSIONS, 1);
	/*
	 * Now and then a slow reader: the 4 KiB buffer fills, records are
	 * lost. Every one, once the run is past its time with nothing lost.
	 */
	if (!rnd(seed, 4) || sh->want_loss)
		usleep(100 * 1000 + rnd(seed, 200 * 1000));
	for (int i = 0; i < reads && !end; i++) {
		if (nonblock) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (poll(&pfd, 1, 200) < 0 && errno == EINTR)
				count(OP_EINTR, 1);
		} else {
			alarm(1);	/* a blocked read is interrupted */
		}
		n = read(fd, buf, rnd(seed, 2) ? sizeof(buf) : 4096);
		alarm(0);
		count(OP_READS, 1);
		if (n < 0) {
			if (errno == EINTR)
				count(OP_EINTR, 1);
			else if (errno == EAGAIN)
				count(OP_EAGAIN, 1);
			else if (errno == ESRCH || errno == EACCES)
				break;		/* untraced, or no longer ours */
			else
				fail("reader: read: %s", strerror(errno));
			continue;
		}
		if (n == 0) {
			end = 1;
			break;
		}
		if (buf[n - 1] != '\n') {
			fail("reader: a read ended inside a line");
			break;
		}
		for (ssize_t k = 0; k < n; k++) {
			const char *type;

			if (buf[k] != '\n') {
				if (linelen < sizeof(line) - 1)
					line[linelen++] = buf[k];
				continue;
			}
			line[linelen] = '\0';
			linelen = 0;
			if (!lines++) {
				if (!pgf_header_ok(line))
					fail("reader: header \"%.80s\"", line);
				continue;
			}
			count(OP_RECORDS, 1);
			type = check_line(line, &r);
			if (!type) {
				fail("reader: malformed line");
				continue;
			}
			if ((r.type == PGFT_FAULT || r.type == PGFT_REMOTE) &&
			    pgft_counted(r.result))
				ok++;
			if (r.type == PGFT_LOST) {
				lost += r.n[0];
				count(OP_LOST_FAULTS, r.n[0]);
				count(OP_LOST_OTHER, r.n[1]);
			}
			if (r.type == PGFT_EXIT || (r.type == PGFT_STOP &&
						    !strcmp(r.text, "credentials")))
				end = 2 + (r.type == PGFT_EXIT);
			if (end == 3) {
				/* The whole trace, over every session: exact. */
				struct slot *sl = &sh->slot[s];

				pthread_mutex_lock(&sl->lock);
				if (sl->pid == pid && !sl->mixed) {
					sl->ok += ok;
					sl->lost += lost;
					ok = lost = 0;
					if (sl->ok + sl->lost != r.n[1] + r.n[2])
						fail("trace of %d: read %llu+%llu, exit says %llu+%llu",
						     pid, sl->ok, sl->lost, r.n[1], r.n[2]);
					else
						count(OP_CHECKED, 1);
				}
				pthread_mutex_unlock(&sl->lock);
			}
		}
	}
	if (end >= 2) {
		/* After its last record, a trace gives EOF. */
		n = read(fd, buf, sizeof(buf));
		if (n > 0)
			fail("reader: records after the end of a trace");
		count(end == 3 ? OP_EOF_EXIT : OP_EOF_CRED, 1);
	}
	{
		struct slot *sl = &sh->slot[s];

		pthread_mutex_lock(&sl->lock);
		if (sl->pid == pid) {
			sl->ok += ok;
			sl->lost += lost;
			if (end == 2) {	/* a set-uid exec: a new trace may follow */
				sl->ok = sl->lost = 0;
			}
			if (end == 3)
				sl->done = 1;
		}
		pthread_mutex_unlock(&sl->lock);
	}
	close(fd);
}

static void reader(int s, unsigned int seed)
{
	catch_signals();
	while (pgf_now_s() < sh->deadline + 3) {
		read_session(s, &seed);
		usleep(rnd(&seed, 5000));
	}
	_exit(0);
}

/* ---- the run --------------------------------------------------------------- */

static pid_t spawn(void (*fn)(int, unsigned int), int s, unsigned int seed)
{
	pid_t pid = fork();

	if (pid == 0)
		fn(s, seed);
	return pid;
}

TEST(torture)
{
	const char *env = getenv("PGF_TORTURE_SECONDS");
	int seconds = env ? atoi(env) : is_uml() ? 60 : 20;
	pid_t pids[3 * SLOTS], signaller;
	unsigned int seed = time(NULL);
	pthread_mutexattr_t ma;
	char cmd[256];
	int n = 0, status;
	double start;

	ASSERT_GT(seconds, 0);
	sh = map_shared(1);
	ASSERT_NE(sh, NULL);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	for (int s = 0; s < SLOTS; s++)
		pthread_mutex_init(&sh->slot[s].lock, &ma);
	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe " SELF " && cp " SELF " " SUID
		 " && chmod 755 " SELF " && chmod 4755 " SUID, getpid());
	ASSERT_EQ(system(cmd), 0);
	ASSERT_EQ(pgf_set_buffer_kb(4), 0);
	ktap_diag("%d s, seed %u", seconds, seed);
	start = pgf_now_s();
	sh->deadline = start + seconds;

	for (int s = 0; s < SLOTS; s++) {
		pids[n++] = spawn(slot_manager, s, rand_r(&seed));
		pids[n++] = spawn(writer, s, rand_r(&seed));
		pids[n++] = spawn(reader, s, rand_r(&seed));
	}
	/* Signals at the readers and writers, now and then. */
	signaller = fork();
	if (signaller == 0) {
		/*
		 * A slow host gets less done in the time: until a trace was
		 * checked and faults were lost, the run goes on, up to 20 s
		 * more (within the harness's limit of 120 s a test); while
		 * nothing was lost, every reader session starts late, so that
		 * a target's burst fills the buffer whatever the host's speed.
		 */
		double last = sh->deadline + 20;

		while (pgf_now_s() < sh->deadline) {
			kill(pids[rnd(&seed, n)], SIGUSR1);
			count(OP_SIGNALS, 1);
			usleep(rnd(&seed, 50000));
			if (pgf_now_s() + 1 > sh->deadline && pgf_now_s() < last &&
			    (!sh->op[OP_CHECKED] || !sh->op[OP_LOST_FAULTS])) {
				sh->deadline = pgf_now_s() + 1;
				sh->want_loss = !sh->op[OP_LOST_FAULTS];
			}
		}
		_exit(0);
	}
	waitpid(signaller, NULL, 0);

	/* Everyone must be done soon after the deadline: nobody hangs. */
	for (int i = 0; i < n; i++) {
		double until = sh->deadline + 30;

		while (waitpid(pids[i], &status, WNOHANG) == 0) {
			if (pgf_now_s() > until) {
				fail("process %d (%s of slot %d) hangs", pids[i],
				     i % 3 == 0 ? "manager" : i % 3 == 1 ? "writer" : "reader",
				     i / 3);
				kill(pids[i], SIGKILL);
				waitpid(pids[i], &status, 0);
				break;
			}
			usleep(20 * 1000);
		}
	}
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	unlink(SELF);
	unlink(SUID);
	unlink("/tmp/pgf-torture-file");
	unlink(SHM);

	ktap_diag("ran %.0f s", sh->deadline - start);
	for (int i = 0; i < OP_NR; i++)
		ktap_diag("%-32s %lu", op_names[i], (unsigned long)sh->op[i]);
	if (sh->bad)
		ktap_diag("%d failures; the first: %s", sh->bad, sh->why);
	EXPECT_EQ(sh->bad, 0);
	EXPECT_GT(sh->op[OP_CHECKED], 0);
	EXPECT_GT(sh->op[OP_LOST_FAULTS], 0);
	EXPECT_EQ(pgf_debug_wait("traces", 0), 0);
	EXPECT_EQ(pgf_debug_wait("active", 0), 0);
	EXPECT_EQ(pgf_debug_wait("buffer_bytes", 0), 0);
	EXPECT_EQ(pgf_debug_wait("key", 0), 0);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--as-target"))
		return target_main(strtoul(argv[2], NULL, 10), atoi(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "--as-helper"))
		return helper_main();
	/* The harness's limit per test: the run, plus time for the checks. */
	if (getenv("PGF_TORTURE_SECONDS") && !getenv("KTAP_TIMEOUT")) {
		char limit[16];

		snprintf(limit, sizeof(limit), "%d",
			 atoi(getenv("PGF_TORTURE_SECONDS")) + 120);
		setenv("KTAP_TIMEOUT", limit, 1);
	}
	return ktap_main(argc, argv);
}
