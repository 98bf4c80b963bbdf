/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: the kernel's counters of net_af_xdp's sockets (see
 * net/xsk.h). No DPDK call: start-up (the walk) and a control lcore (the
 * reads) only.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/if_xdp.h>

#include "net/xsk.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static bool
xsk_known(const int *known, unsigned int nb_known, int fd)
{
	for (unsigned int i = 0; i < nb_known; i++)
		if (known[i] == fd)
			return true;
	return false;
}

int
tfo_xsk_find(const int *known, unsigned int nb_known, int *fds, unsigned int max)
{
	unsigned int n = 0;
	struct dirent *de;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL && n < max) {
		int domain = 0;
		socklen_t len = sizeof(domain);
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		struct stat st;

		if (*end != '\0' || end == de->d_name || fd < 0 || fd == dirfd(d))
			continue;
		if (fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (getsockopt((int)fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
		    domain != AF_XDP || xsk_known(known, nb_known, (int)fd))
			continue;
		fds[n++] = (int)fd;
	}
	closedir(d);
	return (int)n;
}

int
tfo_xsk_stats(const int *fds, unsigned int n, struct tfo_xsk_stats *out)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < n; i++) {
		struct xdp_statistics xs;
		socklen_t len = sizeof(xs);

		memset(&xs, 0, sizeof(xs));
		if (getsockopt(fds[i], SOL_XDP, XDP_STATISTICS, &xs, &len) != 0) {
			rc = -errno;
			continue;
		}
		out->rx_dropped += xs.rx_dropped;
		out->rx_invalid += xs.rx_invalid_descs;
		out->tx_invalid += xs.tx_invalid_descs;
		/* the last three came with kernel 5.9: a shorter answer has none */
		if (len >= sizeof(xs)) {
			out->rx_ring_full += xs.rx_ring_full;
			out->rx_fill_empty += xs.rx_fill_ring_empty_descs;
			out->tx_ring_empty += xs.tx_ring_empty_descs;
		}
	}
	return rc;
}
