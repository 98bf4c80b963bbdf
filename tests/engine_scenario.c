/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the engine scenarios' shared steps (engine_scenario.h).
 */
#include <stdlib.h>
#include <string.h>

#include "engine_scenario.h"

const struct h_seg *
seg(const struct cl *c, unsigned int nth)
{
	int i = cl_seg(c, nth);

	return i < 0 ? NULL : &c->h->out[i];
}

uint32_t
nstate(struct harness *h, enum tfo_conn_state s)
{
	uint32_t n[TFO_CONN_NB_STATES];

	tfo_engine_conn_counts(h->e, n);
	return n[s];
}

/* Handshake without TFO; returns with the client synchronised. */
void
plain_open(struct cl *c)
{
	cl_syn(c, NULL, 0);
	cl_recv(c);
	cl_send(c, TFO_TCP_ACK, NULL, 0);
	h_clear(c->h);
}

bool
rx_is(const struct cl *c, const char *line)
{
	static uint8_t exp[1 << 20];
	uint32_t n = h_gen_expect(line, exp, sizeof(exp));

	if (n != c->rx_len) {
		fprintf(stderr, "  got %u bytes, want %u\n", c->rx_len, n);
		return false;
	}
	return memcmp(exp, c->rx, n) == 0;
}

/* Client side of a close after the server's FIN: ACK + FIN, then the
 * server's last ACK. */
void
client_close(struct cl *c)
{
	cl_recv(c);
	cl_send(c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_recv(c);
}

/*
 * The client acks every segment of the server's flight, one ACK each (as
 * Linux does in quickack mode), until the FIN. @return the rounds taken.
 */
unsigned int
ack_each_until_fin(struct cl *c, unsigned int max_rounds)
{
	struct harness *h = c->h;
	unsigned int rounds = 0;

	while (!c->fin && rounds < max_rounds && h->n_out > 0) {
		unsigned int n = h->n_out;
		struct h_seg *batch = malloc(n * sizeof(*batch));

		memcpy(batch, h->out, n * sizeof(*batch));
		h_clear(h);
		for (unsigned int i = 0; i < n; i++) {
			if (!cl_owns(c, &batch[i]))
				continue;
			cl_fold(c, &batch[i]);
			cl_send(c, TFO_TCP_ACK, NULL, 0);
		}
		free(batch);
		rounds++;
	}
	return rounds;
}
