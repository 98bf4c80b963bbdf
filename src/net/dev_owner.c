/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: one server per device (see net/dev_owner.h). Start-up only.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <rte_common.h>

#include "net/dev_owner.h"
#include "net/xdp.h"
#include "tfo/log.h"

/* net_memif's socket when the vdev names none (rte_eth_memif.h) */
#define MEMIF_DEFAULT_SOCKET "/run/memif.sock"
/* /proc/net/unix's Flags of a listening socket (__SO_ACCEPTCON) */
#define UNIX_LISTENING 0x10000
#define MAX_INODES 8

/* Is /proc/@p pid's network namespace ours? An interface name means
 * something only there: another namespace may have its own tfo0. */
static bool
owner_same_netns(int pid)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	if (stat(path, &a) < 0 || stat("/proc/self/ns/net", &b) < 0)
		return true;	/* cannot tell: assume it is, and say so */
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int
tfo_dev_owner_scan(tfo_dev_owner_match_t match, const void *arg)
{
	char path[64], link[64];
	struct dirent *p, *d;
	DIR *procs, *fds;
	int holder = 0;

	procs = opendir("/proc");
	if (procs == NULL)
		return -errno;
	while (holder == 0 && (p = readdir(procs)) != NULL) {
		int pid = atoi(p->d_name);

		if (pid <= 0 || pid == (int)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		fds = opendir(path);
		if (fds == NULL)
			continue;	/* gone, or not ours to read */
		while (holder == 0 && (d = readdir(fds)) != NULL) {
			int fd = atoi(d->d_name);
			ssize_t n;

			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (match(pid, fd, link, arg))
				holder = pid;
		}
		closedir(fds);
	}
	closedir(procs);
	return holder;
}

/* A /dev/net/tun fd attached to interface @p arg: its fdinfo says
 * "iff:\tNAME" (drivers/net/tun.c, tun_chr_show_fdinfo). */
static bool
owner_tun_match(int pid, int fd, const char *link, const void *arg)
{
	const char *iface = arg;
	char path[64], line[64];
	bool yes = false;
	FILE *f;

	if (strcmp(link, "/dev/net/tun") != 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	while (!yes && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		yes = strncmp(line, "iff:", 4) == 0 &&
		      strcmp(line + 4 + strspn(line + 4, " \t"), iface) == 0;
	}
	fclose(f);
	return yes && owner_same_netns(pid);
}

/* The tun_flags of interface @p iface (IFF_TAP, IFF_MULTI_QUEUE, ...), or
 * -1 when it has none: not a tun/tap device. */
static long
owner_tun_flags(const char *iface)
{
	char path[64 + IF_NAMESIZE], line[32];
	long flags = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tun_flags", iface);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) != NULL)
		flags = strtol(line, NULL, 0);
	fclose(f);
	return flags;
}

struct owner_inodes {
	unsigned long ino[MAX_INODES];
	unsigned int n;
};

static bool
owner_sock_match(int pid, int fd, const char *link, const void *arg)
{
	const struct owner_inodes *s = arg;
	unsigned long ino;

	RTE_SET_USED(pid);
	RTE_SET_USED(fd);
	if (sscanf(link, "socket:[%lu]", &ino) != 1)
		return false;
	for (unsigned int i = 0; i < s->n; i++)
		if (s->ino[i] == ino)
			return true;
	return false;
}

/* The inodes of the listening unix sockets bound to @p path, as a file
 * or (net_memif's socket-abstract=yes) in the abstract namespace: both
 * forms, whichever the holder used, name the same intent. */
static int
owner_unix_listeners(const char *path, struct owner_inodes *s)
{
	char line[512], name[320];
	FILE *f = fopen("/proc/net/unix", "re");

	s->n = 0;
	if (f == NULL)
		return -errno;
	if (fgets(line, sizeof(line), f) == NULL) {	/* the header */
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f) != NULL && s->n < MAX_INODES) {
		unsigned int flags;
		unsigned long ino;
		const char *n;

		name[0] = '\0';
		if (sscanf(line, "%*s %*s %*s %x %*x %*x %lu %319s", &flags, &ino, name) < 2 ||
		    (flags & UNIX_LISTENING) == 0)
			continue;
		n = name[0] == '@' ? name + 1 : name;
		if (strcmp(n, path) == 0)
			s->ino[s->n++] = ino;
	}
	fclose(f);
	return 0;
}

/*
 * The claim (dev_owner.h): an abstract unix socket named for the
 * interface, listening until the process ends (its fd is never closed;
 * the kernel frees the name at any exit, a crash included). The scans
 * see a holder only once it has opened the device, so two servers
 * started at the same instant both passed them and shared one tap; the
 * kernel lets one bind win. Abstract names live in the network namespace,
 * as interface names do. The loser finds the winner's PID as the memif
 * check finds a memif server's.
 */
static int
owner_claim(const char *dev, const char *what, const char *space, const char *iface,
	    const char *key, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct owner_inodes held;
	char *name = sa.sun_path + 1;	/* sun_path[0] = 0: abstract */
	int fd, len, rc, holder = 0;

	len = snprintf(name, sizeof(sa.sun_path) - 1, "tfo-fastpath/%s/%s", space, iface);
	if (len >= (int)sizeof(sa.sun_path) - 1) {
		/* a long memif path: its FNV-1a hash names it as well */
		uint64_t h = 0xcbf29ce484222325ull;

		for (const char *c = iface; *c != '\0'; c++)
			h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
		len = snprintf(name, sizeof(sa.sun_path) - 1, "tfo-fastpath/%s#%016" PRIx64,
			       space, h);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return tfo_errmsg(err, errlen, "[port %s] cannot claim %s %s: socket: %s", dev,
				  what, iface, strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, offsetof(struct sockaddr_un, sun_path) + 1 + len)
	    == 0 && listen(fd, 1) == 0)
		return 0;	/* held for the life of the process */
	rc = -errno;
	close(fd);
	if (rc != -EADDRINUSE)
		return tfo_errmsg(err, errlen, "[port %s] cannot claim %s %s: %s", dev, what,
				  iface, strerror(-rc));
	if (owner_unix_listeners(name, &held) == 0 && held.n > 0)
		holder = tfo_dev_owner_scan(owner_sock_match, &held);
	if (holder <= 0)
		return tfo_errmsg(err, errlen, "[port %s] %s %s is claimed twice (two ports of "
				  "this configuration, or a process this one cannot see): give "
				  "each its own %s", dev, what, iface, key);
	tfo_errmsg(err, errlen, "[port %s] %s %s is held by process %d (starting on it at "
		   "the same time): another tfo-server serves it; a second one would take its "
		   "traffic over. Stop process %d first, or give this one another %s", dev,
		   what, iface, holder, holder, key);
	return -EBUSY;
}

int
tfo_dev_owner_claim(const char *dev, const char *what, const char *iface, const char *key,
		    char *err, size_t errlen)
{
	return owner_claim(dev, what, "iface", iface, key, err, errlen);
}

/* A process that holds tap @p iface: -EBUSY and one line in @p err. */
static int
owner_tap_holder(const char *dev, const char *what, const char *iface, const char *key,
		 char *err, size_t errlen)
{
	int holder = tfo_dev_owner_scan(owner_tun_match, iface);

	if (holder <= 0)
		return tfo_dev_owner_claim(dev, what, iface, key, err, errlen);
	tfo_errmsg(err, errlen, "[port %s] %s %s is held by process %d (a /dev/net/tun file "
		   "on it): another tfo-server or DPDK application serves this interface; "
		   "a second one would take its traffic over. Stop process %d first, or "
		   "give this one another %s", dev, what, iface, holder, holder, key);
	return -EBUSY;
}

int
tfo_dev_owner_exception(const char *dev, const char *iface, char *err, size_t errlen)
{
	return owner_tap_holder(dev, "exception tap", iface, "exception_iface", err, errlen);
}

static int
owner_tap(const char *dev, const char *vdev, enum tfo_tap_mode mode, char *what,
	  size_t whatlen, char *err, size_t errlen)
{
	char iface[IF_NAMESIZE];
	long flags;
	int rc;

	rc = tfo_xdp_devarg(vdev, "iface", iface, sizeof(iface));
	if (rc == -ENOSPC)
		return tfo_errmsg(err, errlen, "[port %s] iface= longer than %d characters",
				  dev, IF_NAMESIZE - 1);
	if (rc <= 0) {
		/* the PMD picks a free dtapN itself */
		snprintf(what, whatlen, "net_tap creates a tap of its own naming (no iface=)");
		return 0;
	}
	if (owner_tap_holder(dev, "tap", iface, "iface=", err, errlen) < 0)
		return -EBUSY;
	if (if_nametoindex(iface) == 0) {
		if (mode == TFO_TAP_ATTACH) {
			tfo_errmsg(err, errlen, "[port %s] tap = attach: no interface %s in this "
				   "network namespace (a typo in iface=?); create it (ip tuntap "
				   "add dev %s mode tap multi_queue) or set tap = create", dev,
				   iface, iface);
			return -ENODEV;
		}
		/* what a typo in iface= also gives: said plainly at start */
		snprintf(what, whatlen, "net_tap creates tap %s (no interface of that name in "
			 "this network namespace; removed at exit)", iface);
		return 0;
	}
	flags = owner_tun_flags(iface);
	if (flags < 0 || (flags & IFF_TAP) == 0) {
		tfo_errmsg(err, errlen, "[port %s] interface %s exists and is not a tap: "
			   "net_tap cannot use it; name a free interface name in iface= "
			   "(net_tap creates it) or a persistent tap (ip tuntap add dev NAME "
			   "mode tap multi_queue); for a NIC or a veth, see AF_XDP mode", dev,
			   iface);
		return -ENODEV;
	}
	if (mode == TFO_TAP_CREATE) {
		tfo_errmsg(err, errlen, "[port %s] tap = create: %s already exists (a "
			   "persistent tap nobody holds): remove it (ip tuntap del dev %s mode "
			   "tap multi_queue) or set tap = attach", dev, iface, iface);
		return -EEXIST;
	}
	/* net_tap opens its queues with IFF_MULTI_QUEUE: the kernel refuses
	 * that on a tap made without it, with a bare EINVAL */
	if ((flags & IFF_MULTI_QUEUE) == 0) {
		tfo_errmsg(err, errlen, "[port %s] tap %s was made without multi_queue: "
			   "net_tap cannot attach to it; make it again (ip tuntap del dev %s "
			   "mode tap; ip tuntap add dev %s mode tap multi_queue)", dev, iface,
			   iface, iface);
		return -ENODEV;
	}
	snprintf(what, whatlen, "net_tap attaches to the existing tap %s (a persistent "
		 "tap nobody holds)", iface);
	return 0;
}

static int
owner_memif(const char *dev, const char *vdev, char *err, size_t errlen)
{
	char role[16], path[256];
	struct owner_inodes s;
	int holder;

	/* a client connects to a listening socket: someone must hold it */
	if (tfo_xdp_devarg(vdev, "role", role, sizeof(role)) > 0 &&
	    strcmp(role, "server") != 0)
		return 0;
	if (tfo_xdp_devarg(vdev, "socket", path, sizeof(path)) <= 0)
		snprintf(path, sizeof(path), "%s", MEMIF_DEFAULT_SOCKET);
	if (owner_unix_listeners(path, &s) < 0 || s.n == 0)
		return owner_claim(dev, "memif socket", "memif", path, "socket=", err, errlen);
	holder = tfo_dev_owner_scan(owner_sock_match, &s);
	if (holder <= 0)
		return owner_claim(dev, "memif socket", "memif", path, "socket=", err, errlen);
	tfo_errmsg(err, errlen, "[port %s] memif socket %s is held by process %d (listening, "
		   "role server): another memif server uses it. Stop process %d first, or "
		   "give this one another socket=", dev, path, holder, holder);
	return -EBUSY;
}

int
tfo_dev_owner_check(const char *vdev, enum tfo_tap_mode tap, char *what, size_t whatlen,
		    char *err, size_t errlen)
{
	char dev[64], none[8];
	size_t n = strcspn(vdev, ",");

	if (what == NULL || whatlen == 0) {
		what = none;
		whatlen = sizeof(none);
	}
	what[0] = '\0';
	snprintf(dev, sizeof(dev), "%.*s", (int)RTE_MIN(n, sizeof(dev) - 1), vdev);
	if (strncmp(dev, "net_tap", 7) == 0)
		return owner_tap(dev, vdev, tap, what, whatlen, err, errlen);
	if (strncmp(dev, "net_memif", 9) == 0)
		return owner_memif(dev, vdev, err, errlen);
	return 0;
}
