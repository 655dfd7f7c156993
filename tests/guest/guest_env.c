// SPDX-License-Identifier: GPL-2.0
/*
 * guest_env - the guest is what the other suites assume: the patched 6.12
 * kernel, /proc, the host share, a second user, and fault counters that
 * move by exactly one per first touch of an anonymous page (the oracle the
 * pgfault_history tests compare against).
 */
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include "ktap.h"
#include "util.h"


TEST(kernel_is_6_12)
{
	struct utsname u;

	ASSERT_SYS(uname(&u));
	ktap_diag("kernel %s %s", u.release, u.machine);
	ASSERT_EQ(strncmp(u.release, "6.12", 4), 0);
}

TEST(proc_stat_is_ours)
{
	struct pgf_stat st;

	ASSERT_SYS(pgf_read_stat(getpid(), &st));
	ASSERT_EQ(st.pid, getpid());
}

/*
 * UML mounts the host folder through hostfs, the x86_64 guest through 9p
 * (whose statfs reports the host filesystem's type: ask /proc/mounts).
 */
TEST(host_share_is_the_host_folder)
{
	char dev[256], dir[256], type[64], line[1024];
	const char *want = is_uml() ? "hostfs" : "9p";
	int found = 0;
	FILE *f = fopen("/proc/mounts", "r");

	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(dir, "/host")) {
			if (strcmp(type, want))
				KTAP_FAIL_(0, "/host is %s, expected %s", type, want);
			found++;
		}
	fclose(f);
	if (!found)
		SKIP("/host not mounted");
	EXPECT_EQ(found, 1);
}

TEST(cpus_are_what_the_guest_was_given)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* UML is uniprocessor; QEMU gets 2 vCPUs (scripts/guest.py SMP). */
	ASSERT_EQ(n, is_uml() ? 1 : 2);
}

TEST(second_user_is_confined)
{
	/* What the permission tests rely on: uid 1000 cannot poke init. */
	ASSERT_SYS(setgid(PGF_TEST_UID));
	ASSERT_SYS(setuid(PGF_TEST_UID));
	ASSERT_EQ(getuid(), PGF_TEST_UID);
	ASSERT_ERRNO(open("/proc/1/mem", O_RDONLY), EACCES);
}

TEST(minflt_counts_first_touches)
{
	const int pages = 64;
	long psz = sysconf(_SC_PAGESIZE);
	struct pgf_stat before, after;
	char *p;

	p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	/*
	 * Once for nothing: the first read faults in the stack, heap and
	 * stdio pages reading stat needs (3 on x86_64 when the tools'
	 * library grew), which are not what is counted here.
	 */
	ASSERT_SYS(pgf_read_stat(getpid(), &before));
	ASSERT_SYS(pgf_read_stat(getpid(), &before));
	for (int i = 0; i < pages; i++)
		p[i * psz] = 1;
	ASSERT_SYS(pgf_read_stat(getpid(), &after));
	/* Reading /proc/self/stat itself may fault on its buffer: allow 2. */
	EXPECT_GE(after.minflt - before.minflt, pages);
	EXPECT_LE(after.minflt - before.minflt, pages + 2);
	EXPECT_EQ(after.majflt, before.majflt);
}

KTAP_MAIN()
