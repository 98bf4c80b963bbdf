/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: AF_XDP mode (see net/xdp.h): tfo-server's XDP program on a
 * net_af_xdp port, handed to the PMD through xdp_prog=, found again on the
 * interface once attached, and filled with what we serve. Start-up and
 * shut-down only: nothing here runs per packet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <rte_common.h>

#include "net/dev_owner.h"
#include "net/xdp.h"
#include "tfo/log.h"

#ifdef TFO_HAVE_XDP
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "net/bpf/tfo_xdp.h"

/* the object file, embedded at build time (scripts/buildtools/embed.py) */
extern const char tfo_xdp_object[];
extern const unsigned long tfo_xdp_object_len;
#endif

#define XDP_PROG_NAME "tfo_xdp"	/* the SEC("xdp") function's name */

bool
tfo_xdp_built(const char **why)
{
#ifdef TFO_HAVE_XDP
	if (why != NULL)
		*why = "";
	return true;
#else
	if (why != NULL)
		*why = TFO_XDP_MISSING;
	return false;
#endif
}

bool
tfo_xdp_is_af_xdp(const char *vdev)
{
	return strncmp(vdev, "net_af_xdp", 10) == 0;
}

bool
tfo_xdp_any_port(const struct tfo_config *c)
{
	for (unsigned int i = 0; i < c->nb_ports; i++)
		if (tfo_xdp_is_af_xdp(c->ports[i].vdev))
			return true;
	return false;
}

bool
tfo_xdp_own(const struct tfo_cfg_port *p)
{
	return p->xdp == TFO_XDP_OWN ||
	       (p->xdp == TFO_XDP_AUTO && tfo_xdp_is_af_xdp(p->vdev));
}

int
tfo_xdp_devarg(const char *vdev, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *s = strchr(vdev, ',');

	while (s != NULL) {
		const char *v = s + 1, *end;

		s = strchr(v, ',');
		if (strncmp(v, key, klen) != 0 || v[klen] != '=')
			continue;
		v += klen + 1;
		end = s != NULL ? s : v + strlen(v);
		if ((size_t)(end - v) >= len)
			return -ENOSPC;
		memcpy(buf, v, (size_t)(end - v));
		buf[end - v] = '\0';
		return (int)(end - v);
	}
	return -ENOENT;
}

int
tfo_xdp_check(const struct tfo_cfg_port *p, char *err, size_t errlen)
{
	const char *why;
	char v[IF_NAMESIZE];

	if (p->xdp == TFO_XDP_OWN && !tfo_xdp_is_af_xdp(p->vdev))
		return tfo_errmsg(err, errlen, "[port %s] xdp = own: only for a net_af_xdp "
				  "vdev (vdev = net_af_xdp0,iface=IF,...), not \"%s\"",
				  p->device, p->vdev);
	if (!tfo_xdp_own(p))
		return 0;
	if (!tfo_xdp_built(&why))
		return tfo_errmsg(err, errlen, "[port %s] xdp = own: this tfo-server was built "
				  "without its XDP program: %s; rebuild with clang and "
				  "libbpf-dev (scripts/setup.sh installs them), or set "
				  "xdp = off (every frame of the queues to tfo-server, which "
				  "then answers ARP/ND itself)", p->device, why);
	if (tfo_xdp_devarg(p->vdev, "iface", v, sizeof(v)) <= 0)
		return tfo_errmsg(err, errlen, "[port %s] vdev = %s: no iface=IF (the kernel "
				  "interface to share, at most %d characters)", p->device,
				  p->vdev, IF_NAMESIZE - 1);
	if (tfo_xdp_devarg(p->vdev, "xdp_prog", v, sizeof(v)) != -ENOENT)
		return tfo_errmsg(err, errlen, "[port %s] vdev has xdp_prog=: with xdp = own "
				  "tfo-server loads its own program; set xdp = off to run "
				  "yours", p->device);
	if (p->exception)
		return tfo_errmsg(err, errlen, "[port %s] exception = on with xdp = own: the "
				  "kernel already keeps every frame we do not serve (the XDP "
				  "program passes it); remove exception", p->device);
	if (p->syn_steering)
		return tfo_errmsg(err, errlen, "[port %s] syn_steering = on with xdp = own: "
				  "net_af_xdp has no rte_flow; remove syn_steering", p->device);
	if (p->rss == TFO_RSS_PEER)
		return tfo_errmsg(err, errlen, "[port %s] rss = peer with xdp = own: the NIC's "
				  "RSS spreads flows over the interface's queues (ethtool -L); "
				  "remove rss", p->device);
	return 0;
}

/* The vdev's queues: start_queue, queue_count (net_af_xdp's defaults). */
static void
xdp_queues(const struct tfo_cfg_port *p, unsigned long *first, unsigned long *count)
{
	char v[16];

	*first = 0;
	*count = 1;
	if (tfo_xdp_devarg(p->vdev, "start_queue", v, sizeof(v)) > 0)
		*first = strtoul(v, NULL, 0);
	if (tfo_xdp_devarg(p->vdev, "queue_count", v, sizeof(v)) > 0)
		*count = strtoul(v, NULL, 0);
}

int
tfo_xdp_check_workers(const struct tfo_cfg_port *p, unsigned int nb_workers, char *err,
		      size_t errlen)
{
	unsigned long first, queues;

	xdp_queues(p, &first, &queues);
	if (queues == nb_workers)
		return 0;
	return tfo_errmsg(err, errlen, "[port %s] queue_count = %lu, but %u worker%s: "
			  "AF_XDP mode wants one interface queue per worker (vdev "
			  "start_queue=S,queue_count=%u, and ethtool -L IF combined N so "
			  "that RSS spreads flows over exactly those queues)", p->device,
			  queues, nb_workers, nb_workers == 1 ? "" : "s", nb_workers);
}

int
tfo_xdp_check_ports(const struct tfo_config *c, char *err, size_t errlen)
{
	char a[IF_NAMESIZE], b[IF_NAMESIZE];

	for (unsigned int i = 0; i < c->nb_ports; i++) {
		if (tfo_xdp_check(&c->ports[i], err, errlen) < 0)
			return -EINVAL;
		if (!tfo_xdp_own(&c->ports[i]))
			continue;
		tfo_xdp_devarg(c->ports[i].vdev, "iface", a, sizeof(a));
		for (unsigned int j = 0; j < i; j++)
			if (tfo_xdp_own(&c->ports[j]) &&
			    tfo_xdp_devarg(c->ports[j].vdev, "iface", b, sizeof(b)) > 0 &&
			    strcmp(a, b) == 0)
				return tfo_errmsg(err, errlen, "[port %s] and [port %s] share "
						  "interface %s: one XDP program per interface, "
						  "one port (give it queue_count = workers)",
						  c->ports[j].device, c->ports[i].device, a);
	}
	return 0;
}

void
tfo_xdp_warn_foreign(const struct tfo_config *c, const struct tfo_cfg_port *p)
{
	char v[8];
	bool udp = false;

	if (tfo_xdp_own(p) || !tfo_xdp_is_af_xdp(p->vdev) ||
	    tfo_xdp_devarg(p->vdev, "xdp_prog", v, sizeof(v)) == -ENOENT)
		return;
	for (unsigned int s = 0; s < c->nb_services; s++)
		udp |= c->services[s].udp;
	/* not ours to read: the service lines above may claim more than
	 * that program hands over */
	TFO_LOG(WARNING, "[port %s] xdp = off with the vdev's xdp_prog=: tfo-server gets "
		"only what that program redirects to its xsks_map; the services' TCP "
		"ports%s must be among it, or they reach the kernel", p->device,
		udp ? " and the UDP ports of those with udp = on" : "");
}

#ifdef TFO_HAVE_XDP

/* The program attached to @p ifindex: its id and attach mode flag. */
static int
xdp_query(int ifindex, uint32_t *id, uint32_t *flags)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int rc = bpf_xdp_query(ifindex, 0, &q);

	if (rc < 0)
		return rc;
	*id = q.prog_id;
	*flags = q.attach_mode == XDP_ATTACHED_SKB ? XDP_FLAGS_SKB_MODE :
		 q.attach_mode == XDP_ATTACHED_HW ? XDP_FLAGS_HW_MODE : XDP_FLAGS_DRV_MODE;
	return 0;
}

/* Program @p id's name and up to @p nb_maps map ids; the fd, or < 0. */
static int
xdp_prog_info(uint32_t id, char *name, size_t len, uint32_t *maps, uint32_t *nb_maps)
{
	struct bpf_prog_info info;
	uint32_t ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = *nb_maps;
	info.map_ids = (uint64_t)(uintptr_t)maps;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	snprintf(name, len, "%s", info.name);
	*nb_maps = RTE_MIN(*nb_maps, info.nr_map_ids);
	return fd;
}

/* Does the fdinfo of /proc/@p pid/fd/@p fd say "prog_id: *@p arg"? */
static bool
xdp_fd_holds(int pid, int fd, const char *link, const void *arg)
{
	uint32_t id = *(const uint32_t *)arg;
	char path[64], line[64];
	bool yes = false;
	FILE *f;

	if (strcmp(link, "anon_inode:bpf-prog") != 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	while (!yes && fgets(line, sizeof(line), f) != NULL)
		yes = strncmp(line, "prog_id:", 8) == 0 && strtoul(line + 8, NULL, 10) == id;
	fclose(f);
	return yes;
}

/*
 * A process that holds program @p id open (net_af_xdp keeps its fd for as
 * long as the port lives): the pid of the first one found in /proc (this
 * PID namespace), 0 if none, or a negative errno. It tells a running
 * tfo-server's program from one a dead one left. Start-up only.
 */
static int
xdp_prog_holder(uint32_t id)
{
	return tfo_dev_owner_scan(xdp_fd_holds, &id);
}

int
tfo_xdp_prepare(const struct tfo_cfg_port *p, char *vdev, size_t len, char *err,
		size_t errlen)
{
	char iface[IF_NAMESIZE], name[BPF_OBJ_NAME_LEN];
	uint32_t id = 0, flags = 0, nb_maps = 0;
	int ifindex, fd, rc, claim;

	tfo_xdp_devarg(p->vdev, "iface", iface, sizeof(iface));
	ifindex = (int)if_nametoindex(iface);
	if (ifindex == 0)
		return tfo_errmsg(err, errlen, "[port %s] no interface %s in this network "
				  "namespace", p->device, iface);
	/* one server per interface, also for two started at one instant: the
	 * program check below sees a server only once its PMD has loaded the
	 * program, at EAL probe */
	claim = tfo_dev_owner_claim(p->device, "interface", iface, "iface=", err, errlen);
	if (claim < 0 && claim != -EBUSY)
		return claim;
	rc = xdp_query(ifindex, &id, &flags);
	if (rc < 0)
		return tfo_errmsg(err, errlen, "[port %s] cannot query %s's XDP program: %s",
				  p->device, iface, strerror(-rc));
	if (id == 0 && claim == -EBUSY)
		return claim;	/* the other one is starting: err says who */
	if (id != 0) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, o);

		fd = xdp_prog_info(id, name, sizeof(name), NULL, &nb_maps);
		if (fd >= 0 && strcmp(name, XDP_PROG_NAME) != 0)
			close(fd);
		if (fd < 0 || strcmp(name, XDP_PROG_NAME) != 0)
			return tfo_errmsg(err, errlen, "[port %s] %s already runs XDP program "
					  "%u (%s): tfo-server does not share it; remove it "
					  "(ip link set dev %s xdp off) or use another "
					  "interface", p->device, iface, id,
					  fd < 0 ? strerror(-fd) : name, iface);
		/* a tfo-server that died left it (its sockets are gone, so it
		 * passes everything to the kernel), or one runs: never take
		 * its interface away */
		rc = xdp_prog_holder(id);
		if (rc != 0)
			close(fd);
		if (rc > 0)
			return tfo_errmsg(err, errlen, "[port %s] %s runs XDP program %u (%s), "
					  "held by process %d: another tfo-server serves this "
					  "interface (stop it first)", p->device, iface, id,
					  name, rc);
		if (rc < 0)
			return tfo_errmsg(err, errlen, "[port %s] %s runs XDP program %u (%s), "
					  "and /proc cannot tell whether a tfo-server still "
					  "holds it (%s): if none runs, remove it (ip link set "
					  "dev %s xdp off)", p->device, iface, id, name,
					  strerror(-rc), iface);
		if (claim == -EBUSY) {	/* not a leftover: the starting one's */
			close(fd);
			return claim;
		}
		/* only that program: not one attached meanwhile */
		o.old_prog_fd = fd;
		rc = bpf_xdp_detach(ifindex, flags, &o);
		close(fd);
		if (rc < 0)
			return tfo_errmsg(err, errlen, "[port %s] cannot remove the XDP program "
					  "%u a previous tfo-server left on %s: %s", p->device,
					  id, iface, strerror(-rc));
		TFO_LOG(WARNING, "[port %s] removed XDP program %u (%s) that a previous "
			"tfo-server left on %s", p->device, id, name, iface);
	}
	fd = memfd_create("tfo_xdp.o", MFD_CLOEXEC);
	if (fd < 0)
		return tfo_errmsg(err, errlen, "[port %s] memfd_create: %s", p->device,
				  strerror(errno));
	if (write(fd, tfo_xdp_object, tfo_xdp_object_len) != (ssize_t)tfo_xdp_object_len) {
		close(fd);
		return tfo_errmsg(err, errlen, "[port %s] cannot write the XDP program to a "
				  "memfd", p->device);
	}
	/* libbpf opens it by name: the memfd through /proc */
	rc = snprintf(vdev, len, "%s,xdp_prog=/proc/self/fd/%d", p->vdev, fd);
	if (rc < 0 || (size_t)rc >= len) {
		close(fd);
		return tfo_errmsg(err, errlen, "[port %s] vdev too long", p->device);
	}
	return 0;
}

/* Fill the served map: every address of @p p times every service port,
 * valued TCP, and UDP too for a service with udp = on (its datagrams
 * would reach the kernel, which has no socket on that port). @p nb: the
 * pairs; @p nb_udp: those with UDP. */
static int
xdp_fill(const struct tfo_config *c, const struct tfo_cfg_port *p, int map_fd,
	 unsigned int *nb, unsigned int *nb_udp)
{
	*nb = 0;
	*nb_udp = 0;
	for (unsigned int a = 0; a < p->nb_addrs; a++) {
		for (unsigned int s = 0; s < c->nb_services; s++) {
			uint32_t v = TFO_XDP_SERVE_TCP;
			struct tfo_xdp_key k;

			memset(&k, 0, sizeof(k));
			k.family = p->addrs[a].family == AF_INET ? TFO_XDP_V4 : TFO_XDP_V6;
			k.port = htons(c->services[s].port);
			memcpy(k.addr, p->addrs[a].addr.b, sizeof(k.addr));
			if (c->services[s].udp)
				v |= TFO_XDP_SERVE_UDP;
			if (bpf_map_update_elem(map_fd, &k, &v, BPF_ANY) < 0)
				return -errno;
			(*nb)++;
			*nb_udp += c->services[s].udp;
		}
	}
	return 0;
}

/* RX queues of @p iface (sysfs of this network namespace), or < 0. */
static int
xdp_iface_rx_queues(const char *iface)
{
	char path[64 + IF_NAMESIZE];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", iface);
	dir = opendir(path);
	if (dir == NULL)
		return -errno;
	while ((d = readdir(dir)) != NULL)
		n += strncmp(d->d_name, "rx-", 3) == 0;
	closedir(dir);
	return n;
}

/* Served TCP (and UDP) that RSS puts on a queue without one of our
 * sockets goes to the kernel, which has no listener there: it resets the
 * connection (answers the datagram port unreachable). */
/* XXX the interface's RSS is not set here: served TCP that it puts on a
 * queue no worker polls reaches the kernel and is reset; only a warning */
static void
xdp_check_queues(const struct tfo_cfg_port *p, const char *iface, unsigned long first,
		 unsigned long count)
{
	int n = xdp_iface_rx_queues(iface);

	if (n < 0 || (first == 0 && (unsigned long)n <= count))
		return;
	TFO_LOG(WARNING, "[port %s] %s has %d RX queues, tfo-server serves %lu..%lu: "
		"served TCP that RSS puts on another queue reaches the kernel, which "
		"resets it (served UDP: port unreachable); make RSS use exactly these (ethtool -L %s combined %lu with "
		"start_queue=0, or ethtool -X %s start %lu equal %lu)", p->device, iface,
		n, first, first + count - 1, iface, count, iface, first, count);
}

int
tfo_xdp_attach(const struct tfo_config *c, const struct tfo_cfg_port *p,
	       unsigned int nb_workers, struct tfo_xdp *x, char *err, size_t errlen)
{
	char iface[IF_NAMESIZE], name[BPF_OBJ_NAME_LEN];
	uint32_t maps[8], nb_maps = RTE_DIM(maps), id = 0, flags = 0;
	int ifindex, fd, served_fd = -1, rc;
	unsigned long queues, first;

	memset(x, 0, sizeof(*x));
	x->stats_fd = -1;
	xdp_queues(p, &first, &queues);
	tfo_xdp_devarg(p->vdev, "iface", iface, sizeof(iface));
	ifindex = (int)if_nametoindex(iface);
	rc = ifindex == 0 ? -ENODEV : xdp_query(ifindex, &id, &flags);
	if (rc < 0 || id == 0)
		return tfo_errmsg(err, errlen, "[port %s] no XDP program on %s after the "
				  "port's start (%s)", p->device, iface,
				  rc < 0 ? strerror(-rc) : "net_af_xdp did not attach it");
	fd = xdp_prog_info(id, name, sizeof(name), maps, &nb_maps);
	if (fd < 0 || strcmp(name, XDP_PROG_NAME) != 0) {
		if (fd >= 0)
			close(fd);
		return tfo_errmsg(err, errlen, "[port %s] the XDP program on %s is %s, not "
				  "tfo-server's: was the vdev given on the command line "
				  "(--vdev)? With xdp = own, give it in the configuration",
				  p->device, iface, fd < 0 ? strerror(-fd) : name);
	}
	close(fd);
	x->ifindex = ifindex;	/* ours from here: removed at close */
	x->prog_id = id;
	x->attach_flags = flags;
	for (uint32_t i = 0; i < nb_maps; i++) {
		struct bpf_map_info mi;
		uint32_t mlen = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(maps[i]);

		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (bpf_obj_get_info_by_fd(mfd, &mi, &mlen) == 0 &&
		    strcmp(mi.name, "tfo_served") == 0 && served_fd < 0)
			served_fd = mfd;
		else if (strcmp(mi.name, "tfo_xdp_stats") == 0 && x->stats_fd < 0)
			x->stats_fd = mfd;
		else
			close(mfd);
	}
	if (served_fd < 0)
		return tfo_errmsg(err, errlen, "[port %s] the XDP program on %s has no "
				  "tfo_served map", p->device, iface);
	xdp_check_queues(p, iface, first, queues);
	rc = xdp_fill(c, p, served_fd, &x->nb_served, &x->nb_served_udp);
	close(served_fd);
	if (rc < 0)
		return tfo_errmsg(err, errlen, "[port %s] cannot fill the XDP program's "
				  "tfo_served map: %s", p->device, strerror(-rc));
	TFO_LOG(INFO, "[port %s] xdp = own: program %s (id %u, %s mode) on %s, queues "
		"%u: TCP to %u address/port pair%s and UDP to %u to tfo-server, the rest "
		"(IP fragments too) to the kernel", p->device, name, id,
		flags == XDP_FLAGS_SKB_MODE ? "generic" : "native", iface, nb_workers,
		x->nb_served, x->nb_served == 1 ? "" : "s", x->nb_served_udp);
	return 0;
}

int
tfo_xdp_counters(const struct tfo_xdp *x, uint64_t *redirected, uint64_t *passed)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *out[TFO_XDP_NB_COUNTERS] = { redirected, passed };
	uint64_t *v;
	int rc = 0;

	if (x->ifindex == 0 || x->stats_fd < 0 || ncpu <= 0)
		return -ENOENT;
	v = calloc((size_t)ncpu, sizeof(*v));	/* one value per possible CPU */
	if (v == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < TFO_XDP_NB_COUNTERS && rc == 0; k++) {
		if (bpf_map_lookup_elem(x->stats_fd, &k, v) < 0) {
			rc = -errno;
			break;
		}
		*out[k] = 0;
		for (int i = 0; i < ncpu; i++)
			*out[k] += v[i];
	}
	free(v);
	return rc;
}

void
tfo_xdp_detach(struct tfo_xdp *x)
{
	uint32_t id = 0, flags = 0;

	/* a zeroed struct (a port without the program) holds nothing */
	if (x->ifindex == 0)
		return;
	if (x->stats_fd >= 0)
		close(x->stats_fd);
	x->stats_fd = -1;
	/* only ours: another program may have replaced it meanwhile */
	if (xdp_query(x->ifindex, &id, &flags) == 0 && id == x->prog_id) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, o);
		int fd = bpf_prog_get_fd_by_id(id);

		o.old_prog_fd = fd;
		if (bpf_xdp_detach(x->ifindex, flags, &o) < 0)
			TFO_LOG(WARNING, "cannot remove XDP program %u from interface %d: %s",
				id, x->ifindex, strerror(errno));
		else
			TFO_LOG(INFO, "XDP program %u removed from interface %d", id,
				x->ifindex);
		if (fd >= 0)
			close(fd);
	}
	x->ifindex = 0;
}

#else	/* built without the program: tfo_xdp_check refuses xdp = own */

int
tfo_xdp_prepare(const struct tfo_cfg_port *p, char *vdev, size_t len, char *err,
		size_t errlen)
{
	return tfo_xdp_check(p, err, errlen) < 0 ? -EINVAL : -ENOTSUP;
}

int
tfo_xdp_attach(const struct tfo_config *c, const struct tfo_cfg_port *p,
	       unsigned int nb_workers, struct tfo_xdp *x, char *err, size_t errlen)
{
	memset(x, 0, sizeof(*x));
	x->stats_fd = -1;
	return tfo_xdp_check(p, err, errlen) < 0 ? -EINVAL : -ENOTSUP;
}

int
tfo_xdp_counters(const struct tfo_xdp *x, uint64_t *redirected, uint64_t *passed)
{
	return -ENOTSUP;
}

void
tfo_xdp_detach(struct tfo_xdp *x)
{
}

#endif
