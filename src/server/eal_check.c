/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: what rte_eal_init reports badly, checked before it runs
 * (see server/eal_check.h). Start-up only.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "server/eal_check.h"
#include "tfo/log.h"

/* The EAL arguments that matter here (eal_common_options.c's names). */
struct eal_opts {
	bool no_huge;
	bool no_shconf;		/* --no-shconf or --in-memory: no config file */
	bool secondary;		/* --proc-type secondary/auto: the lock is expected */
	const char *prefix;	/* --file-prefix, "rte" by default */
	const char *huge_dir;	/* --huge-dir, NULL: any hugetlbfs mount */
};

static void
eal_opts_parse(int argc, char *const argv[], struct eal_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->prefix = "rte";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "--no-huge") == 0)
			o->no_huge = true;
		else if (strcmp(a, "--no-shconf") == 0 || strcmp(a, "--in-memory") == 0)
			o->no_shconf = true;
		else if (strcmp(a, "--file-prefix") == 0 && i + 1 < argc)
			o->prefix = argv[++i];
		else if (strncmp(a, "--file-prefix=", 14) == 0)
			o->prefix = a + 14;
		else if (strcmp(a, "--proc-type") == 0 && i + 1 < argc)
			o->secondary = strcmp(argv[++i], "primary") != 0;
		else if (strncmp(a, "--proc-type=", 12) == 0)
			o->secondary = strcmp(a + 12, "primary") != 0;
		else if (strcmp(a, "--huge-dir") == 0 && i + 1 < argc)
			o->huge_dir = argv[++i];
		else if (strncmp(a, "--huge-dir=", 11) == 0)
			o->huge_dir = a + 11;
	}
}

/* This process's effective capability set, from @p proc/self/status. */
static uint64_t
cap_effective(const char *proc)
{
	char path[256], line[256];
	uint64_t caps = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/status", proc);
	f = fopen(path, "r");
	if (f == NULL)
		return UINT64_MAX;	/* cannot tell: let the EAL say */
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %" SCNx64, &caps) == 1)
			break;
	fclose(f);
	return caps;
}

/*
 * A hugetlbfs mount the EAL would use (--huge-dir's, else any) that this
 * process may write: the EAL creates its page files there. @return 1, 0
 * when mounted but not writable, -ENOENT when none is mounted.
 */
static int
huge_mount(const char *proc, const char *huge_dir, char *where, size_t len)
{
	char path[256], line[512], dev[128], dir[256], type[64];
	int found = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/mounts", proc);
	f = fopen(path, "r");
	if (f == NULL)
		return 1;	/* cannot tell: let the EAL say */
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%127s %255s %63s", dev, dir, type) != 3 ||
		    strcmp(type, "hugetlbfs") != 0)
			continue;
		if (huge_dir != NULL && strcmp(dir, huge_dir) != 0)
			continue;
		snprintf(where, len, "%s", dir);
		if (access(dir, W_OK) == 0) {
			found = 1;
			break;
		}
		found = 0;
	}
	fclose(f);
	return found;
}

/* Free hugepages of every size, from @p sys's per-size counters. */
static unsigned long
huge_free(const char *sys)
{
	char pattern[256], line[64];
	unsigned long n = 0;
	glob_t g;

	snprintf(pattern, sizeof(pattern),
		 "%s/kernel/mm/hugepages/hugepages-*/free_hugepages", sys);
	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (f == NULL)
			continue;
		if (fgets(line, sizeof(line), f) != NULL)
			n += strtoul(line, NULL, 10);
		fclose(f);
	}
	globfree(&g);
	return n;
}

/*
 * The PID holding @p prefix's config file lock: the EAL of a primary
 * process keeps a write lock on part of /var/run/dpdk/PREFIX/config
 * (eal_common_config's rte_config_init) for its life. F_GETLK over the
 * whole file finds it without taking it, and opening an existing file
 * read-only creates nothing. @return the PID, or 0.
 */
static int
prefix_holder(const char *prefix, char *path, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, pid = 0;

	/* eal_get_runtime_dir's choice */
	if (getuid() == 0 || xdg == NULL)
		snprintf(path, len, "%s/dpdk/%s/config",
			 getuid() == 0 ? "/var/run" : "/tmp", prefix);
	else
		snprintf(path, len, "%s/dpdk/%s/config", xdg, prefix);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
		pid = fl.l_pid;
	close(fd);
	return pid;
}

int
tfo_eal_check(int argc, char *const argv[], const struct tfo_eal_needs *n,
	      const char *proc, const char *sys, char *err, size_t errlen)
{
	uint64_t caps = cap_effective(proc);
	struct eal_opts o;
	char where[256], path[512];
	int pid, m;

	eal_opts_parse(argc, argv, &o);
	/* net_tap's TUNSETIFF and af_xdp's socket and map need it */
	if (n->net_admin && (caps & (1ULL << CAP_NET_ADMIN)) == 0) {
		tfo_errmsg(err, errlen, "not root and no CAP_NET_ADMIN: net_tap and "
			   "net_af_xdp ports need it (run as root, or grant it: "
			   "AmbientCapabilities=CAP_NET_ADMIN, setcap cap_net_admin+ep)");
		return -EPERM;
	}
	if (!o.no_huge) {
		m = huge_mount(proc, o.huge_dir, where, sizeof(where));
		if (m == -ENOENT) {
			tfo_errmsg(err, errlen, "no hugetlbfs mounted%s%s: reserve %u "
				   "(setup-host.sh --pages %u) or --no-huge",
				   o.huge_dir != NULL ? " at --huge-dir " : "",
				   o.huge_dir != NULL ? o.huge_dir : "", n->pages, n->pages);
			return -ENOMEM;
		}
		if (m == 0) {
			tfo_errmsg(err, errlen, "hugetlbfs at %s is not writable by this "
				   "user: run as root, give it the mount (uid=/gid= "
				   "options), or --no-huge", where);
			return -EPERM;
		}
		if (huge_free(sys) == 0) {
			tfo_errmsg(err, errlen, "no free hugepages: reserve %u "
				   "(setup-host.sh --pages %u) or --no-huge",
				   n->pages, n->pages);
			return -ENOMEM;
		}
	}
	/* a secondary attaches to the holder: that is the point */
	if (!o.no_shconf && !o.secondary) {
		pid = prefix_holder(o.prefix, path, sizeof(path));
		if (pid > 0) {
			tfo_errmsg(err, errlen, "--file-prefix %s is in use by process %d "
				   "(it holds %s): stop it or give this server another "
				   "--file-prefix", o.prefix, pid, path);
			return -EBUSY;
		}
	}
	return 0;
}

const char *
tfo_eal_fail_hint(int rte_err)
{
	switch (rte_err) {
	case EACCES:
	case EPERM:
		return "privileges or hugepages: run as root, reserve hugepages "
		       "(setup-host.sh --pages N) or --no-huge";
	case ENOMEM:
		return "memory: reserve more hugepages (--print-config says how many) "
		       "or raise -m";
	case EALREADY:
		return "the EAL was started twice in this process";
	default:
		return "see the EAL's lines above; --print-config checks the "
		       "configuration without starting";
	}
}
