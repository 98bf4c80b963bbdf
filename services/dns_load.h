/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's zone sets loaded (dns_load.c), private
 * to the service: master files (dns_zparse.h) and transferred records
 * made into a set ready to serve: its tables (dns_zone.h), its DNSSEC
 * chains (dns_sec.h), the answers prebuilt for every node that answers
 * for itself (dns_answer.h) in one IOVA-contiguous memzone, and the size
 * of the largest answer composed per query. The top of the zone side:
 * create(), reload() and the secondaries' thread call it. Any thread may:
 * rte_malloc and memzones only, never on the hot path.
 */
#ifndef TFO_DNS_LOAD_H
#define TFO_DNS_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "dns_wire.h"
#include "dns_zone.h"
#include "dns_zparse.h"

/** One zone to load: "origin:path". */
struct dns_zone_src {
	uint8_t origin[DNS_NAME_MAX];
	char path[4096];
};

/**
 * Load @p nb zones into a new set (DPDK memory on @p socket), and with
 * them the @p nb_more zones already read: @p more[i] for zone
 * @p more_origins[i], named @p more_names[i] in errors (secondary zones;
 * only read). @p why: the reason it failed. @return 0 or a negative errno.
 */
int dns_set_load(const struct dns_zone_src *z, unsigned int nb, const struct dns_recs *more,
		 const uint8_t (*more_origins)[DNS_NAME_MAX], const char *const *more_names,
		 unsigned int nb_more, int socket, uint16_t edns_size, struct dns_set **out,
		 char *why, size_t whylen);
/** The same from records already read: @p recs[i] for zone
 *  @p origins[i] read from @p files[i] (for errors; may be NULL). */
int dns_set_build(struct dns_recs *recs, const uint8_t (*origins)[DNS_NAME_MAX],
		  unsigned int nb, int socket, uint16_t edns_size,
		  struct dns_set **out, char *why, size_t whylen,
		  const char *const *files);

#endif /* TFO_DNS_LOAD_H */
