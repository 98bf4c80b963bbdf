/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the exception path. A port with `exception = on` gets a
 * kernel interface (a net_tap with the port's MAC): the frames the server
 * does not serve (TCP to a port no service listens on, IP to addresses that
 * are not ours, IP protocols other than TCP/ICMP, ARP that is not a request
 * for one of our addresses, ICMP/ICMPv6 other than echo requests, NS for
 * our addresses and path-MTU errors) go to it from the control core, and
 * what the kernel sends on it leaves through the port. So the host keeps its SSH,
 * BGP and ICMP on a NIC bound to DPDK. Bounded both ways by exception_pps
 * (token buckets, counted drops), so a flood for the kernel costs the
 * workers one ring enqueue per frame at most and never the kernel's pace.
 *
 * net_tap, not virtio-user on /dev/vhost-net (the faster, recommended way
 * on real machines): net_tap needs only /dev/net/tun, runs in the test
 * namespaces and is already the project's test device; the module talks
 * to any ethdev, so virtio-user is a change of the vdev string.
 */
#ifndef TFO_EXCEPTION_H
#define TFO_EXCEPTION_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "net/pkt.h"
#include "net/tx.h"
#include "ops/config.h"
#include "ops/stats.h"
#include "tcp/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One port's kernel interface; the control core's, used by it only. */
struct tfo_exc {
	bool on;
	uint16_t tap_id;	/**< the net_tap's DPDK port id */
	uint32_t pps;		/**< exception_pps */
	uint64_t cap;		/**< bucket size, in frames * 1e6 */
	uint64_t tok_to;	/**< tokens toward the kernel (frames * 1e6) */
	uint64_t tok_from;	/**< tokens from the kernel */
	uint64_t last_us;
	char iface[16];
};

/**
 * Create and start the kernel interface of port @p port_idx when @p cfg
 * asks for it (else leave @p x off and return 0), with the MAC of @p info,
 * RX buffers from @p pool; set info->exception.
 * @return 0, or a negative errno with one line in @p err.
 */
int tfo_exc_setup(const struct tfo_cfg_port *cfg, uint8_t port_idx,
		  struct tfo_port_info *info, struct rte_mempool *pool,
		  struct tfo_exc *x, char *err, size_t errlen);

/**
 * Worker side: is a frame the parser dropped for reason @p p->drop one for
 * the kernel interface (IP not to our addresses, IP protocols we do not
 * serve)? Then it goes to the control core instead of being dropped.
 */
static inline bool
tfo_exc_wants_drop(const struct tfo_port_info *port, const struct tfo_pkt *p)
{
	return port->exception && (p->drop == TFO_PKT_DROP_ip_not_ours ||
				   p->drop == TFO_PKT_DROP_l4_proto);
}

/**
 * Control side: does the frame @p m (parsed into @p p) on a port with an
 * exception interface go to the kernel: a parser drop of
 * tfo_exc_wants_drop, TCP to a port no service of @p e listens on (@p e
 * NULL: any TCP), ARP other than a request for one of our addresses, ICMP
 * other than echo requests and "fragmentation needed", ICMPv6 other than
 * echo requests, packet too big and (valid) NS for one of our addresses?
 */
bool tfo_exc_wants(const struct tfo_port_info *port, const struct tfo_engine *e,
		   const struct rte_mbuf *m, const struct tfo_pkt *p);

/**
 * Hand @p m to the kernel interface (exc_to_kernel). @return true if it was
 * taken; false: one frame-drop reason counted (drop_exc_rate over
 * exception_pps, drop_exc_full when the interface refused it), caller frees.
 */
bool tfo_exc_to_kernel(struct tfo_exc *x, struct tfo_stats *st, struct rte_mbuf *m,
		       uint64_t now_us);

/**
 * Take up to @p burst frames the kernel sent on the interface and queue
 * them on port @p port_idx of @p tx (exc_from_kernel; over exception_pps:
 * exc_from_kernel_drop). @return the frames taken from the interface.
 */
unsigned int tfo_exc_poll(struct tfo_exc *x, struct tfo_tx *tx, uint8_t port_idx,
			  struct tfo_stats *st, uint64_t now_us, unsigned int burst);

/** Stop and remove the interface (nothing when off). */
void tfo_exc_close(struct tfo_exc *x);

#ifdef __cplusplus
}
#endif

#endif /* TFO_EXCEPTION_H */
