// SPDX-License-Identifier: GPL-2.0
/*
 * runner_selftest - failures the host runner must catch. Never part of the
 * normal suite: tests/host/runner_boot.py boots the guest with one of these
 * selected and checks that the run is reported as failed, for the right
 * reason.
 */
#include <fcntl.h>
#include "ktap.h"

TEST(passes)
{
	EXPECT_EQ(1, 1);
}

TEST(crashes)
{
	volatile int *p = NULL;

	*p = 1;
}

TEST(hangs)
{
	for (;;)
		pause();
}

TEST(warns)
{
	/* A real kernel WARNING, through LKDTM. */
	int fd = ASSERT_SYS(open("/sys/kernel/debug/provoke-crash/DIRECT", O_WRONLY));

	ASSERT_SYS(write(fd, "WARNING", 7));
	close(fd);
}

KTAP_MAIN()
