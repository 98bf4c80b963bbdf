/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the Internet checksum (RFC 1071) over buffers, mbuf chains
 * and the TCP/UDP pseudo-header, with a 64-bit accumulator.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net/pkt.h"

/*
 * Sums native-order 64-bit loads with their carries counted apart: the ones'
 * complement sum is byte-order independent and 2^16 - 1 divides 2^64 - 1,
 * so the folded result is already in network order when stored as a native
 * 16-bit value. Fewer instructions per byte than 32-bit lanes, and the
 * 0..7-byte tail is one word: most calls here are 20..60-byte headers.
 */
uint64_t
tfo_cksum_add(uint64_t sum, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t s = 0, carry = 0, a, b;

	while (len >= 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		s += a;
		carry += s < a;
		s += b;
		carry += s < b;
		p += 16;
		len -= 16;
	}
	if (len & 8) {
		memcpy(&a, p, 8);
		s += a;
		carry += s < a;
		p += 8;
	}
	a = 0;
	/* the last 0..7 bytes, zero-padded, as one native 64-bit word */
	if (len & 4) {
		uint32_t w;

		memcpy(&w, p, 4);
		a = w;
		p += 4;
	}
	if (len & 2) {
		uint16_t h;

		memcpy(&h, p, 2);
		a += (uint64_t)h << ((len & 4) * 8);
		p += 2;
	}
	if (len & 1) {
		uint8_t t[8] = { 0 };

		t[len & 6] = *p;
		memcpy(&b, t, 8);
		a += b;
	}
	s += a;
	carry += s < a;
	/* fold to < 2^34: callers add further small terms to the result */
	return sum + (s & 0xffffffffull) + (s >> 32) + carry;
}

uint64_t
tfo_cksum_pseudo(int family, const struct tfo_addr *src,
		 const struct tfo_addr *dst, uint8_t proto, uint32_t l4_len)
{
	/* straight-line 32-bit loads: this runs for every segment we send */
	uint64_t sum = rte_cpu_to_be_16((uint16_t)proto) +
		       (uint64_t)rte_cpu_to_be_16((uint16_t)(l4_len & 0xffff)) +
		       rte_cpu_to_be_16((uint16_t)(l4_len >> 16));
	uint32_t w[8];

	if (family == AF_INET) {
		memcpy(&w[0], src->b, 4);
		memcpy(&w[1], dst->b, 4);
		return sum + w[0] + w[1];
	}
	memcpy(&w[0], src->b, 16);
	memcpy(&w[4], dst->b, 16);
	return sum + w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + w[6] + w[7];
}

/* Swap the two bytes of a folded sum: a chunk that starts at an odd offset
 * was summed with its byte lanes exchanged. */
static inline uint16_t
tfo_cksum_swap(uint16_t v)
{
	return (uint16_t)((v << 8) | (v >> 8));
}

uint64_t
tfo_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint64_t sum = 0;
	uint32_t done = 0;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && done < len) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		const uint8_t *p = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
		uint16_t part = tfo_cksum_fold(tfo_cksum_add(0, p, n));

		sum += (done & 1) ? tfo_cksum_swap(part) : part;
		done += n;
		off = 0;
		m = m->next;
	}
	return sum;
}
