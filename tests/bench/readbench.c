// SPDX-License-Identifier: GPL-2.0
/*
 * readbench - the cost of a read() of page cache pages, in ns per read,
 * with the process untraced, untraced while another process is traced
 * (the static key on), traced without file I/O, or traced with "files"
 * (a cache record per run of pages a read uses); and the rate at which
 * one reader drains a traced process's file records.
 *
 *   readbench [-r reps] [-n reads] [-s KB,...] [-m mode,...] [-f ramfs|tmpfs]
 *             [-d] [-c cpu] [-b buffer_kb]
 *
 * A file of the largest size is made on a ramfs (filemap_read(), the path
 * of ext4, XFS and most file systems; -f tmpfs: shmem_file_read_iter())
 * and read once, so that every page is cached. Each measurement forks a
 * child that opens it, says it is ready, waits on a pipe for "go", then
 * pread()s SIZE bytes at offset 0, N times (N for 4 KiB, and as many
 * bytes in all for a larger SIZE, 20 reads at least): ns/read is the wall
 * time of that loop over its reads. Modes:
 *   off     nobody traces anything (on a kernel without pgfault_history,
 *           the only mode);
 *   key     another process is traced (the static key is on), the child
 *           is not;
 *   faults  the child is traced ("1"), without file I/O;
 *   files   the child is traced with "1 files": a record per read.
 * A reader drains the traced child's trace to EOF, counting "cache"
 * records and the OTHER counts of "lost" lines; -d starts it once the
 * loop is over (make bench-icount: guest time counts every CPU's
 * instructions), and -b sets vm.pgfault_history_buffer_kb meanwhile so
 * that it loses nothing. Without -d, "drain" is the records per second
 * the reader took while the child read (files mode). -c CPU: everything
 * on that CPU. Measurements are interleaved (rep, size, mode); results
 * are the median, min and max over the reps.
 */
#include <getopt.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "pgf.h"
#include "bench.h"

#define MAXLIST		8
#define BUF_PATH	"/proc/sys/vm/pgfault_history_buffer_kb"

enum { M_OFF, M_KEY, M_FAULTS, M_FILES, NMODES };
static const char * const mode_names[NMODES] = { "off", "key", "faults", "files" };

static long reads = 2000, reps = 7, pin_cpu = -1, buffer_kb;
static int defer, ramfs = 1;
static char dir[64], path[96], buf_was[32];

struct one {
	double ns;			/* per read */
	double drain;			/* records a second, reader concurrent */
	unsigned long long records, lost;
};

static void restore(void)
{
	if (*buf_was) {
		FILE *f = fopen(BUF_PATH, "w");

		if (f) {
			fputs(buf_was, f);
			fclose(f);
		}
	}
	if (*path)
		unlink(path);
	if (ramfs && *dir) {
		umount(dir);
		rmdir(dir);
	}
}

static void die(const char *what)
{
	fprintf(stderr, "readbench: %s: %s\n", what, strerror(errno));
	restore();
	exit(1);
}

/* The file: @bytes on a ramfs (or tmpfs), every page cached. */
static void make_file(size_t bytes)
{
	char *b = malloc(bytes);
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/readbench.%d", (int)getpid());
	if (mkdir(dir, 0700))
		die("mkdir");
	if (ramfs && mount("readbench", dir, "ramfs", 0, NULL))
		die("mount ramfs");
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !b)
		die("the file");
	memset(b, 0x3c, bytes);
	if (write(fd, b, bytes) != (ssize_t)bytes || pread(fd, b, bytes, 0) != (ssize_t)bytes)
		die("write the file");
	close(fd);
	free(b);
}

/* Count the trace's cache records and lost OTHER from @fd to EOF. */
static void count(int fd, unsigned long long *records, unsigned long long *lost)
{
	static char b[128 * 1024];
	unsigned long long a, o;
	size_t have = 0;
	ssize_t n;

	*records = *lost = 0;
	while ((n = read(fd, b + have, sizeof(b) - have - 1)) > 0) {
		char *l, *nl;

		have += n;
		b[have] = '\0';
		for (l = b; (nl = strchr(l, '\n')); l = nl + 1) {
			*nl = '\0';
			if (!strncmp(l, "cache ", 6))
				(*records)++;
			else if (sscanf(l, "lost %llu %llu", &a, &o) == 2)
				*lost += o;
		}
		have -= l - b;
		memmove(b, l, have);
	}
}

/* The reads of @size bytes: -n's bytes of 4 KiB reads, 20 at least. */
static long reads_of(size_t size)
{
	long n = reads * 4096 / (long)size;

	return n < 20 ? 20 : n;
}

/* One measurement: SIZE bytes read by a child in @mode. */
static struct one measure(size_t size, int mode)
{
	long nr = reads_of(size);
	int ready[2], go[2], res[2], rfd = -1;
	struct one r = { 0 };
	pid_t pid, other = -1;
	double t0 = 0;
	char c;

	if (pipe(ready) || pipe(go) || pipe(res))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		char *b = malloc(size);
		int fd = open(path, O_RDONLY);
		double t;

		if (!b || fd < 0 || write(ready[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		t = now();
		for (long i = 0; i < nr; i++)
			if (pread(fd, b, size, 0) != (ssize_t)size)
				_exit(2);
		t = (now() - t) * 1e9 / nr;
		_exit(write(res[1], &t, sizeof(t)) != sizeof(t));
	}
	if (read(ready[0], &c, 1) != 1)
		die("the child");
	if (mode == M_KEY) {
		/* another process, traced, asleep: the key is on */
		other = fork();
		if (!other) {
			pause();
			_exit(0);
		}
		if (pgf_ctl(other, "1", 1))
			die("trace another process");
	} else if (mode == M_FAULTS || mode == M_FILES) {
		if (mode == M_FAULTS ? pgf_ctl(pid, "1", 1) : pgf_ctl(pid, "1 files", 7))
			die("trace the child");
		rfd = pgf_open(pid, 0);
		if (rfd < 0)
			die("open the trace");
	}
	if (write(go[1], "g", 1) != 1)
		die("go");
	if (rfd >= 0 && !defer) {
		t0 = now();
		count(rfd, &r.records, &r.lost);
		r.drain = r.records / (now() - t0);
	}
	if (read(res[0], &r.ns, sizeof(r.ns)) != sizeof(r.ns))
		die("the child's time");
	if (rfd >= 0 && defer)
		count(rfd, &r.records, &r.lost);
	waitpid(pid, NULL, 0);
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	if (rfd >= 0)
		close(rfd);
	close(ready[0]); close(ready[1]); close(go[0]); close(go[1]);
	close(res[0]); close(res[1]);
	return r;
}

int main(int argc, char **argv)
{
	long sizes[MAXLIST] = { 4, 1024 }, nsizes = 2, maxkb = 0;
	int modes[NMODES], nmodes = 0, opt;
	bool pgf = !access("/proc/self/pgfault_history", F_OK);

	while ((opt = getopt(argc, argv, "r:n:s:m:f:dc:b:")) != -1) {
		switch (opt) {
		case 'r':
			if (parse_num_opt("readbench", optarg, 'r', 1, 1000, &reps))
				return 2;
			break;
		case 'n':
			if (parse_num_opt("readbench", optarg, 'n', 1, 10000000, &reads))
				return 2;
			break;
		case 's':
			nsizes = parse_numbers(optarg, MAXLIST, sizes);
			if (nsizes < 1) {
				fprintf(stderr, "readbench: -s: sizes in KiB, such as 4,1024\n");
				return 2;
			}
			break;
		case 'm': {
			char *s = strdup(optarg), *w, *save = NULL;

			for (w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				int m;

				for (m = 0; m < NMODES && strcmp(w, mode_names[m]); m++)
					;
				if (m == NMODES || nmodes == NMODES) {
					fprintf(stderr, "readbench: -m: off, key, faults, files\n");
					return 2;
				}
				modes[nmodes++] = m;
			}
			free(s);
			break;
		}
		case 'f':
			if (strcmp(optarg, "ramfs") && strcmp(optarg, "tmpfs")) {
				fprintf(stderr, "readbench: -f: ramfs or tmpfs\n");
				return 2;
			}
			ramfs = !strcmp(optarg, "ramfs");
			break;
		case 'd':
			defer = 1;
			break;
		case 'c':
			if (parse_num_opt("readbench", optarg, 'c', 0, 4095, &pin_cpu))
				return 2;
			break;
		case 'b':
			if (parse_num_opt("readbench", optarg, 'b', 4, 65536, &buffer_kb))
				return 2;
			break;
		default:
			fprintf(stderr, "usage: readbench [-r reps] [-n reads] [-s KB,...] "
				"[-m off,key,faults,files] [-f ramfs|tmpfs] [-d] [-c cpu] [-b KB]\n");
			return 2;
		}
	}
	if (!nmodes) {
		modes[nmodes++] = M_OFF;
		if (pgf) {
			modes[nmodes++] = M_KEY;
			modes[nmodes++] = M_FAULTS;
			modes[nmodes++] = M_FILES;
		}
	}
	for (int i = 0; i < nmodes; i++)
		if (modes[i] != M_OFF && !pgf) {
			fprintf(stderr, "readbench: -m %s: this kernel has no pgfault_history\n",
				mode_names[modes[i]]);
			return 2;
		}
	if (pin_cpu >= 0)
		bench_pin_cpu("readbench", pin_cpu);
	if (buffer_kb) {
		FILE *f = fopen(BUF_PATH, "r");

		if (!f || !fgets(buf_was, sizeof(buf_was), f))
			die(BUF_PATH);
		fclose(f);
		if (pgf_write_long(BUF_PATH, buffer_kb))
			die(BUF_PATH);
	}
	for (int i = 0; i < nsizes; i++)
		maxkb = sizes[i] > maxkb ? sizes[i] : maxkb;
	make_file(maxkb * 1024);

	static struct one got[MAXLIST][NMODES][1000];
	for (long rep = 0; rep < reps; rep++)
		for (int s = 0; s < nsizes; s++)
			for (int m = 0; m < nmodes; m++)
				got[s][m][rep] = measure(sizes[s] * 1024, modes[m]);
	for (int s = 0; s < nsizes; s++)
		for (int m = 0; m < nmodes; m++) {
			double ns[1000], dr[1000], rec[1000], lost[1000];

			for (long rep = 0; rep < reps; rep++) {
				ns[rep] = got[s][m][rep].ns;
				dr[rep] = got[s][m][rep].drain;
				rec[rep] = got[s][m][rep].records;
				lost[rep] = got[s][m][rep].lost;
			}
			double med = median(ns, reps);

			printf("result read fs=%s size_kb=%ld mode=%s reads=%ld ns=%.1f min=%.1f "
			       "max=%.1f records=%.0f lost=%.0f", ramfs ? "ramfs" : "tmpfs",
			       sizes[s], mode_names[modes[m]], reads_of(sizes[s] * 1024),
			       med, ns[0], ns[reps - 1],
			       median(rec, reps), median(lost, reps));
			if (modes[m] == M_FILES && !defer)
				printf(" drain=%.0f", median(dr, reps));
			printf("\n");
		}
	restore();
	return 0;
}
