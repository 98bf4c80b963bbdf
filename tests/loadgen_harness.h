/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the harness of tfo-loadgen's unit tests (test_loadgen_*.c,
 * one program, "loadgen"): a generator on one lcore and one port, whose
 * frames are captured, and a fake server's parse of them; no device, a fake
 * clock.
 */
#ifndef TFO_TEST_LOADGEN_HARNESS_H
#define TFO_TEST_LOADGEN_HARNESS_H

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/pkt.h"
#include "net/port.h"
#include "net/tcpopt.h"
#include "net/tx.h"

#include "lg.h"
#include "test.h"

#define NCAP 64

/* The generator under test, and the frames it sent since cap_clear(). */
extern struct rte_mempool *pool;
extern struct rte_mbuf *cap[NCAP];
extern unsigned int ncap;
extern struct lg_shared sh;
extern struct lg_opts opts;
extern struct lg_lcore lcore;
extern struct tfo_port_info srv_port;	/* the fake server's view */
extern const struct rte_ether_addr lg_mac;
extern const struct rte_ether_addr srv_mac;
extern uint64_t hz;

/* The generator's TX flush: frames into cap[] (at most NCAP). */
void
capture(struct tfo_tx *tx, uint8_t port_idx);

/* Free the captured frames. */
void
cap_clear(void);

/* A fresh generator (one lcore, one port) with the options in @p argv. */
int
fixture(int argc, char **argv);

/* fixture() of 4 clients sending 100-byte echo requests, 2 retries. */
int
fixture_echo(void);

/* What the server sees of a captured frame. */
struct seen {
	struct tfo_pkt p;
	struct tfo_tcpopts o;
	uint8_t data[2048];
};

/* Parse a captured frame as the server: 0, or -1 when it is not TCP. */
int
server_parse(struct rte_mbuf *m, struct seen *s);

/* Feed one frame and collect what the generator sends in answer. */
void
feed(struct rte_mbuf *m, uint64_t now);

#endif /* TFO_TEST_LOADGEN_HARNESS_H */
