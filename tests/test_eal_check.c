/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the checks before rte_eal_init (server/eal_check.h) against
 * a /proc and a /sys of the test's own making: the capabilities, the
 * hugetlbfs mounts and the free hugepages, each refusal one line naming
 * the fix. (The --file-prefix lock is tests/cli.sh's: two real servers.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/eal_check.h"
#include "test.h"

static char root[64], proc[96], sys[96], huge[96];

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* CapEff @p caps, hugetlbfs at huge[] when @p mounted, @p free pages. */
static void
host(const char *caps, int mounted, const char *free_pages)
{
	char p[192], t[256];

	snprintf(p, sizeof(p), "%s/self/status", proc);
	snprintf(t, sizeof(t), "Name:\ttfo-server\nCapEff:\t%s\n", caps);
	put(p, t);
	snprintf(p, sizeof(p), "%s/mounts", proc);
	snprintf(t, sizeof(t), "proc /proc proc rw 0 0\n%s%s%s",
		 mounted ? "hugetlbfs " : "", mounted ? huge : "",
		 mounted ? " hugetlbfs rw,pagesize=2M 0 0\n" : "");
	put(p, t);
	snprintf(p, sizeof(p), "%s/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", sys);
	put(p, free_pages);
}

static int
check(const char *const *args, int argc, int net_admin, char *err, size_t len)
{
	const struct tfo_eal_needs n = { .net_admin = net_admin != 0, .pages = 92 };

	err[0] = '\0';
	return tfo_eal_check(argc, (char *const *)(uintptr_t)args, &n, proc, sys, err, len);
}

static void
setup(void)
{
	char p[192];

	snprintf(root, sizeof(root), "/tmp/tfoerrunit.XXXXXX");
	if (mkdtemp(root) == NULL)
		abort();
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(huge, sizeof(huge), "%s/huge", root);
	mkdir(proc, 0755);
	snprintf(p, sizeof(p), "%s/self", proc);
	mkdir(p, 0755);
	mkdir(sys, 0755);
	snprintf(p, sizeof(p), "%s/kernel", sys);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/kernel/mm", sys);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/kernel/mm/hugepages", sys);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/kernel/mm/hugepages/hugepages-2048kB", sys);
	mkdir(p, 0755);
	mkdir(huge, 0755);
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (strncmp(root, "/tmp/tfoerrunit.", 16) == 0 && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

/* Every refusal: its errno, one line naming the fix. */
TFO_TEST(eal_check_refusals_name_the_fix)
{
	static const char *const huge_args[] = { "tfo", "-l", "0-1",
		"--file-prefix", "tfoerrunit_none", NULL };
	static const char *const nohuge_args[] = { "tfo", "--no-huge", "-m", "256",
		"--file-prefix=tfoerrunit_none", NULL };
	char err[512];

	setup();
	/* no CAP_NET_ADMIN (bit 12) with a net_tap port */
	host("00000000a80425fb", 1, "5\n");
	CHECK_EQ(check(nohuge_args, 5, 1, err, sizeof(err)), -EPERM);
	CHECK_MSG(strstr(err, "no CAP_NET_ADMIN") != NULL && strchr(err, '\n') == NULL,
		  "%s", err);
	/* without a tap port it is not needed */
	CHECK_EQ(check(nohuge_args, 5, 0, err, sizeof(err)), 0);
	/* root's set: passes, and --no-huge needs no hugepage */
	host("000001ffffffffff", 0, "0\n");
	CHECK_EQ(check(nohuge_args, 5, 1, err, sizeof(err)), 0);
	/* hugepages wanted, none mounted */
	CHECK_EQ(check(huge_args, 5, 1, err, sizeof(err)), -ENOMEM);
	CHECK_MSG(strcmp(err, "no hugetlbfs mounted: reserve 92 (setup-host.sh --pages 92) "
			 "or --no-huge") == 0, "%s", err);
	/* mounted, none free */
	host("000001ffffffffff", 1, "0\n");
	CHECK_EQ(check(huge_args, 5, 1, err, sizeof(err)), -ENOMEM);
	CHECK_MSG(strcmp(err, "no free hugepages: reserve 92 (setup-host.sh --pages 92) "
			 "or --no-huge") == 0, "%s", err);
	/* mounted and free: passes */
	host("000001ffffffffff", 1, "7\n");
	CHECK_EQ(check(huge_args, 5, 1, err, sizeof(err)), 0);
	/* a hint for whatever the EAL still refuses, never empty */
	CHECK(tfo_eal_fail_hint(0)[0] != '\0');
	CHECK(strstr(tfo_eal_fail_hint(EACCES), "--no-huge") != NULL);
	teardown();
}

TFO_TEST_MAIN()
