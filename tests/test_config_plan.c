/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the start plan (--print-config): the lcores
 * the EAL would take, the sockets from sysfs, the memory plan per socket.
 */
#include "config_harness.h"

/* ---- the start plan (--print-config): lcores and memory ---------------- */

static int
layout(struct tfo_eal_layout *l, const char *args)
{
	char buf[256], *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = (char *)(uintptr_t)"tfo-server";
	for (char *t = strtok_r(buf, " ", &save); t != NULL && argc < 31;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	err[0] = '\0';
	return tfo_eal_layout_parse(argc, argv, l, err, sizeof(err));
}

/* The lcores the EAL would take, in the order the server uses them. */
TFO_TEST(eal_layout_reads_lcores_as_the_eal)
{
	static struct tfo_eal_layout l;

	REQUIRE(layout(&l, "-l 0-1 --no-huge -m 512") == 0);
	CHECK_EQ(l.nb_lcores, 2);
	CHECK(l.no_huge);
	CHECK_EQ(l.mem_mb, 512);
	REQUIRE(layout(&l, "-l1,3,5-6 --main-lcore 3") == 0);
	CHECK_EQ(l.nb_lcores, 4);
	CHECK_EQ(l.lcore[0], 3);	/* the main lcore is control 0 */
	CHECK_EQ(l.lcore[1], 1);
	CHECK_EQ(l.lcore[3], 6);
	REQUIRE(layout(&l, "-c 0x1e") == 0);
	CHECK_EQ(l.nb_lcores, 4);
	CHECK_EQ(l.lcore[0], 1);
	REQUIRE(layout(&l, "--lcores 0@1,(1-3)@(4-5) --socket-mem 100,200") == 0);
	CHECK_EQ(l.nb_lcores, 4);
	CHECK_EQ(l.cpu[0], 1);
	CHECK_EQ(l.cpu[2], 4);
	CHECK(l.has_socket_mem);
	CHECK_EQ(l.socket_mem_mb[1], 200);
	/* the last lcore option wins, as in the EAL */
	REQUIRE(layout(&l, "-l 0-7 -l 2-3") == 0);
	CHECK_EQ(l.nb_lcores, 2);
	CHECK(layout(&l, "-l 3-1") == -EINVAL);
	CHECK(strstr(err, "-l") != NULL);
	CHECK(layout(&l, "-l 0-1 --main-lcore 5") == -EINVAL);
	CHECK(strstr(err, "--main-lcore 5") != NULL);
	/* none given: every CPU the process may use (at least one) */
	REQUIRE(layout(&l, "--no-pci") == 0);
	CHECK(l.nb_lcores >= 1);
}

/* Each lcore's node from sysfs (cpuN/nodeK), 0 where there is none. */
TFO_TEST(eal_layout_sockets_from_sysfs)
{
	static struct tfo_eal_layout l;
	char root[] = "/tmp/tfo-sysfs.XXXXXX", path[256];

	REQUIRE(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu5/node1", root);
	for (char *p = path + strlen(root) + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	REQUIRE(mkdir(path, 0700) == 0);
	REQUIRE(layout(&l, "--lcores 0@4,1@5,2@6") == 0);
	tfo_eal_layout_sockets(&l, root);
	CHECK_EQ(l.socket[0], 0);	/* cpu4: no directory */
	CHECK_EQ(l.socket[1], 1);
	CHECK_EQ(l.socket[2], 0);
	rmdir(path);
	for (int up = 0; up < 4; up++) {
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
	CHECK(rmdir(root) == 0);
}

/* control_lcores = 16 with -l 0-1 passed --print-config and failed at
 * start: now refused before, naming both numbers. */
TFO_TEST(mem_plan_refuses_more_controls_than_lcores)
{
	static struct tfo_eal_layout l;
	static struct tfo_mem_plan p;

	REQUIRE(parse(tfo_config_embedded()) == 0);
	REQUIRE(layout(&l, "-l 0-1") == 0);
	cfg.control_lcores = 16;
	CHECK(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == -EINVAL);
	CHECK_MSG(strstr(err, "control_lcores = 16") != NULL && strstr(err, "17") != NULL &&
		  strstr(err, "gives 2") != NULL, "%s", err);
	cfg.control_lcores = 1;
	CHECK(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.nb_workers, 1);
}

/* The memory per socket: grows with the tables, pages cover the total,
 * and a two-socket layout gets a share on each socket with lcores. */
TFO_TEST(mem_plan_sizes_each_socket)
{
	static struct tfo_eal_layout l;
	static struct tfo_mem_plan p, big;
	char msg[256];

	REQUIRE(parse(tfo_config_embedded()) == 0);
	REQUIRE(layout(&l, "-l 0-3") == 0);
	REQUIRE(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.nb_workers, 3);
	CHECK(p.s[0].mbufs > 0 && p.s[0].pool > (uint64_t)p.s[0].mbufs * p.data_room);
	CHECK(p.s[0].tables > 4ull * cfg.max_conns * 128);
	CHECK_EQ(p.s[0].eal, (uint64_t)TFO_PLAN_EAL_MB << 20);
	CHECK(p.s[0].total >= p.s[0].pool + p.s[0].tables + p.s[0].bufs + p.s[0].other +
	      p.s[0].eal);
	CHECK_EQ(p.s[0].pages, (p.s[0].total + (2u << 20) - 1) >> 21);
	CHECK_EQ(p.s[1].total, 0);
	cfg.max_conns *= 4;
	REQUIRE(tfo_mem_plan(&cfg, &l, &big, err, sizeof(err)) == 0);
	/* 4 engines, 3 x the old max_conns more entries of 128 bytes each */
	CHECK(big.s[0].tables - p.s[0].tables >= 4ull * 3 * (cfg.max_conns / 4) * 128);
	/* lcores 2, 3 on socket 1: their engines and pool there */
	l.socket[2] = l.socket[3] = 1;
	REQUIRE(tfo_mem_plan(&cfg, &l, &big, err, sizeof(err)) == 0);
	CHECK(big.s[1].mbufs > 0 && big.s[1].tables > 0);
	/* two workers' against a worker's and the control's (TIME-WAIT
	 * capped at its entries) */
	CHECK(big.s[1].tables > big.s[0].tables);
	CHECK_EQ(big.pages, big.s[0].pages + big.s[1].pages);
	/* --no-huge: all of it on socket 0, and -m below it is said */
	REQUIRE(layout(&l, "-l 0-1 --no-huge -m 64") == 0);
	REQUIRE(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == 0);
	CHECK(tfo_mem_plan_short(&l, &p, msg, sizeof(msg)));
	CHECK(strstr(msg, "-m 64") != NULL);
	l.mem_mb = 1u << 20;
	CHECK(!tfo_mem_plan_short(&l, &p, msg, sizeof(msg)));
}
