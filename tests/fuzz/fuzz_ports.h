/* SPDX-License-Identifier: BSD-3-Clause
 * The ports the harnesses (and gen_corpus.py) agree on: our MAC and
 * addresses on port 0 and port 1.
 */
#ifndef TFO_FUZZ_PORTS_H
#define TFO_FUZZ_PORTS_H

#include <string.h>
#include <sys/socket.h>

#include "net/pkt.h"

/* port 0: 02:00:00:00:00:01, 198.18.0.2/24, fd00:7f0::2/64
 * port 1: 02:00:00:00:01:01, 198.18.1.2/24, fd00:7f1::2/64 */
static inline void
fz_port_info(struct tfo_port_info *pi, uint8_t idx)
{
	memset(pi, 0, sizeof(*pi));
	pi->port_id = idx;
	pi->mtu = 1500;
	pi->mac.addr_bytes[0] = 0x02;
	pi->mac.addr_bytes[4] = idx;
	pi->mac.addr_bytes[5] = 0x01;
	pi->nb_addrs = 2;
	pi->addr_base = (uint8_t)(2 * idx);
	pi->addrs[0].family = AF_INET;
	pi->addrs[0].prefix_len = 24;
	pi->addrs[0].addr.b[0] = 198;
	pi->addrs[0].addr.b[1] = 18;
	pi->addrs[0].addr.b[2] = idx;
	pi->addrs[0].addr.b[3] = 2;
	pi->addrs[1].family = AF_INET6;
	pi->addrs[1].prefix_len = 64;
	pi->addrs[1].addr.b[0] = 0xfd;
	pi->addrs[1].addr.b[2] = 0x07;
	pi->addrs[1].addr.b[3] = (uint8_t)(0xf0 + idx);
	pi->addrs[1].addr.b[15] = 2;
}

#endif /* TFO_FUZZ_PORTS_H */
