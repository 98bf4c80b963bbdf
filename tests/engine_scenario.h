/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the steps the TCP engine scenarios (test_engine_*.c, one
 * program, "engine") share, on the harness of engine_harness.h: crafted
 * segments in, the engine's segments checked, fake clock. Every scenario
 * ends with h_finish(): the connection pool, the buffers and every mbuf
 * must be back.
 */
#ifndef TFO_TEST_ENGINE_SCENARIO_H
#define TFO_TEST_ENGINE_SCENARIO_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "tcp/access_log.h"
#include "tcp/conn.h"
#include "tcp/latency.h"
#include "net/neigh.h"
#include "net/tx.h"
#include "engine_harness.h"
#include "server/start_plan.h"
#include "test.h"

#define SEC 1000000ull
#define MS 1000ull

/* The @nth segment the server sent @c since the last h_clear(), or NULL. */
const struct h_seg *
seg(const struct cl *c, unsigned int nth);

/* How many of @h's connections are in state @s. */
uint32_t
nstate(struct harness *h, enum tfo_conn_state s);

/* Handshake without TFO; returns with the client synchronised. */
void
plain_open(struct cl *c);

/* @c received exactly the gen service's answer to request @line. */
bool
rx_is(const struct cl *c, const char *line);

/* Client side of a close after the server's FIN: ACK + FIN, then the
 * server's last ACK. */
void
client_close(struct cl *c);

/*
 * The client acks every segment of the server's flight, one ACK each (as
 * Linux does in quickack mode), until the FIN. @return the rounds taken.
 */
unsigned int
ack_each_until_fin(struct cl *c, unsigned int max_rounds);

#endif /* TFO_TEST_ENGINE_SCENARIO_H */
