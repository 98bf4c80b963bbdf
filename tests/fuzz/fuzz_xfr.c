/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the dns service's zone transfer reader
 * (services/dns_xfr.c), what a primary (or anyone answering in its place)
 * sends to a secondary.
 *
 * Input: a mode byte, then a TCP stream of 2-byte-length framed messages
 * for zone example.com. (the first message's ID is taken as ours). Mode &
 * 1: we asked IXFR holding serial 1 of a small zone (diffs are applied to
 * it); mode & 2: a zone that results is built into a zone set, as the
 * refresh thread would publish it.
 *
 * Invariants: the reader reads only each message's bytes (exact-size
 * copies); a failure names a reason (enum dns_xfr_err); a zone that
 * results has every owner in the zone, exactly one SOA, at the apex, of
 * the stream's serial.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_memory.h>

#include "../../services/dns_load.h"
#include "../../services/dns_wire.h"
#include "../../services/dns_zparse.h"
#include "../../services/dns_xfr.h"
#include "fuzz_common.h"

static const uint8_t ORG[] = "\7example\3com";
static struct dns_recs held;

static void
held_add(const char *owner, uint16_t type, const void *rd, uint16_t len)
{
	struct dns_rec r = { .owner = (uint8_t *)(uintptr_t)owner, .type = type,
			     .ttl = 300, .rdlen = len, .rdata = (uint8_t *)(uintptr_t)rd };

	if (dns_recs_push(&held, &r) < 0)
		abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t soa[] = "\3ns1\7example\3com\0\12hostmaster\7example\3com\0"
		"\0\0\0\1" "\0\0\16\20" "\0\0\2\130" "\0\1\121\200" "\0\0\1\54";

	(void)argc;
	(void)argv;
	fz_eal_init("fuzz_xfr", 256);
	held_add((const char *)ORG, DNS_T_SOA, soa, sizeof(soa) - 1);
	held_add((const char *)ORG, DNS_T_NS, "\3ns1\7example\3com", 17);
	held_add("\3www\7example\3com", DNS_T_A, "\306\22\0\1", 4);
	return 0;
}

static void
check_zone(const struct dns_xfr_rx *rx, const struct dns_recs *out)
{
	unsigned int soas = 0;

	for (unsigned int i = 0; i < out->n; i++) {
		uint8_t low[DNS_NAME_MAX];
		uint32_t serial, x;

		dns_name_lower(low, out->r[i].owner);
		FZ_ASSERT(dns_name_under(low, ORG), "record %u outside the zone", i);
		if (out->r[i].type != DNS_T_SOA)
			continue;
		soas++;
		FZ_ASSERT(dns_name_len(low) == sizeof(ORG) && memcmp(low, ORG, sizeof(ORG)) == 0,
			  "an SOA below the apex");
		FZ_ASSERT(dns_soa_times(out->r[i].rdata, out->r[i].rdlen, &serial, &x, &x,
					&x) == 0 && serial == rx->serial,
			  "the SOA is not the stream's serial %u", rx->serial);
	}
	FZ_ASSERT(soas == 1, "%u SOAs", soas);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode = size > 0 ? data[0] : 0;
	const uint8_t *p = data + (size > 0);
	size_t n = size - (size > 0);
	struct dns_xfr_rx rx = { .origin = ORG, .ixfr = (mode & 1) != 0, .our_serial = 1 };
	struct dns_recs out = { 0 };
	enum dns_xfr_err err = DNS_XE_NONE;
	char why[512];
	bool ix;
	int rc = 0;

	rx.id = n >= 4 ? (uint16_t)(p[2] << 8 | p[3]) : 0;
	while (n >= 2 && !rx.done) {
		size_t len = (size_t)(p[0] << 8 | p[1]);
		uint8_t *m;

		if (2 + len > n)
			break;
		m = malloc(len ? len : 1);	/* exact size: ASan bounds the reads */
		if (m == NULL)
			abort();
		memcpy(m, p + 2, len);
		rc = dns_xfr_msg(&rx, m, (uint32_t)len, &err, why, sizeof(why));
		free(m);
		if (rc < 0) {
			FZ_ASSERT(err > DNS_XE_NONE && err < DNS_XE_MAX, "no reason: %s", why);
			break;
		}
		p += 2 + len;
		n -= 2 + len;
	}
	if (rc == 0) {
		rc = dns_xfr_result(&rx, &held, (mode & 1) != 0, 1, &out, &ix, &err, why,
				    sizeof(why));
		FZ_ASSERT(rc >= 0 || (err > DNS_XE_NONE && err < DNS_XE_MAX), "no reason: %s",
			  why);
		FZ_ASSERT(rc == 1 || out.n == 0, "records left after %d", rc);
		if (rc == 1) {
			check_zone(&rx, &out);
			if (mode & 2) {
				uint8_t origin[1][DNS_NAME_MAX];
				struct dns_set *s = NULL;

				memcpy(origin[0], ORG, sizeof(ORG));
				if (dns_set_build(&out, (const uint8_t (*)[DNS_NAME_MAX])origin, 1,
						  SOCKET_ID_ANY, 1232, &s, why, sizeof(why),
						  NULL) == 0)
					dns_set_free(s);
			}
		}
	}
	dns_recs_free(&out);
	dns_xfr_rx_free(&rx);
	return 0;
}
