/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the checksum helpers (tfo_cksum_*) against the
 * naive RFC 1071 reference of pkt_harness.c.
 */
#include "pkt_harness.h"

/* ---- checksum helpers ---------------------------------------------------- */

/* tfo_cksum_add's folded value stored in memory is in network order */
static uint16_t
tfo_sum_host(uint64_t sum)
{
	return rte_be_to_cpu_16(tfo_cksum_fold(sum));
}

TFO_TEST(cksum_add_vs_rfc1071)
{
	static uint8_t buf[8 + 300 + 8];
	unsigned int bad = 0;

	for (size_t len = 0; len <= 300; len++) {
		for (int rep = 0; rep < 8; rep++) {
			size_t off = rnd() % 8;

			rnd_fill(buf, sizeof(buf));
			if (rep == 7)
				memset(buf, 0xff, sizeof(buf));
			if (tfo_sum_host(tfo_cksum_add(0, buf + off, len)) !=
			    ref_cksum(buf + off, len))
				bad++;
		}
	}
	CHECK_EQ(bad, 0);

	/* chained: even-length chunks then one of any length, from any start */
	bad = 0;
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = rnd() % 301, off = rnd() % 8, done = 0;
		uint64_t sum = 0;

		rnd_fill(buf, sizeof(buf));
		while (done < len) {
			size_t n = (rnd() % 40) & ~(size_t)1;

			if (n > len - done || rnd() % 8 == 0)
				n = len - done;
			sum = tfo_cksum_add(sum, buf + off + done, n);
			done += n;
		}
		if (tfo_sum_host(sum) != ref_cksum(buf + off, len))
			bad++;
	}
	CHECK_EQ(bad, 0);

	/* a caller's starting sum is carried */
	rnd_fill(buf, sizeof(buf));
	CHECK_EQ(tfo_sum_host(tfo_cksum_add(tfo_cksum_add(0, buf, 20), buf + 20, 21)),
		 ref_cksum(buf, 41));
	CHECK_EQ(tfo_cksum_fold(tfo_cksum_add(0xffffffffull, buf, 0)), 0xffff);

	/* the largest datagram, all ones: accumulator does not overflow */
	{
		static uint8_t big[65535];

		memset(big, 0xff, sizeof(big));
		CHECK_EQ(tfo_sum_host(tfo_cksum_add(0, big, sizeof(big))),
			 ref_cksum(big, sizeof(big)));
		rnd_fill(big, sizeof(big));
		CHECK_EQ(tfo_sum_host(tfo_cksum_add(0, big, sizeof(big))),
			 ref_cksum(big, sizeof(big)));
		CHECK_EQ(tfo_cksum_fold(tfo_cksum_add(0, big, sizeof(big))),
			 rte_raw_cksum(big, sizeof(big)));
	}
	/* fold: end-around carries of a full 64-bit sum */
	CHECK_EQ(tfo_cksum_fold(0xffffffffffffffffull), 0xffff);
	CHECK_EQ(tfo_cksum_fold(0x0001000000000000ull), 1);
	CHECK_EQ(tfo_cksum_fold(0x1ffffull), 1);
	CHECK_EQ(tfo_cksum_fold(0), 0);
}

/* Words whose sum carries out of bit 63 at every add (all ones, and all
 * ones but one byte), at every length up to a few loop rounds and every
 * alignment: the carries tfo_cksum_add counts apart must all come back. */
TFO_TEST(cksum_add_carries)
{
	static uint8_t buf[8 + 80];
	unsigned int bad = 0;

	for (size_t len = 0; len <= 80; len++) {
		for (size_t off = 0; off < 8; off++) {
			for (size_t hole = 0; hole <= len; hole++) {
				memset(buf, 0xff, sizeof(buf));
				if (hole < len)
					buf[off + hole] = 0xfe;
				if (tfo_sum_host(tfo_cksum_add(0, buf + off, len)) !=
				    ref_cksum(buf + off, len))
					bad++;
				/* a caller's large sum is carried too */
				if (tfo_cksum_fold(tfo_cksum_add(0xfffffffffffull,
								 buf + off, len)) !=
				    tfo_cksum_fold(0xfffffffffffull +
						   tfo_cksum_add(0, buf + off, len)))
					bad++;
			}
		}
	}
	CHECK_EQ(bad, 0);
}

TFO_TEST(cksum_pseudo)
{
	for (int iter = 0; iter < 200; iter++) {
		struct tfo_addr s = {{ 0 }}, d = {{ 0 }};
		struct rte_ipv4_hdr ih;
		struct rte_ipv6_hdr i6;
		uint8_t proto = (uint8_t)rnd();
		uint16_t l4 = (uint16_t)rnd();
		uint8_t ph[40];

		rnd_fill(s.b, 4);
		rnd_fill(d.b, 4);
		CHECK_EQ(tfo_sum_host(tfo_cksum_pseudo(AF_INET, &s, &d, proto, l4)),
			 ref_cksum(ph, ref_pseudo(ph, AF_INET, s.b, d.b, proto, l4)));
		/* DPDK's view: what a NIC offload expects in the field */
		memset(&ih, 0, sizeof(ih));
		ih.version_ihl = 0x45;
		ih.total_length = rte_cpu_to_be_16((uint16_t)(l4 + 20));
		ih.next_proto_id = proto;
		memcpy(&ih.src_addr, s.b, 4);
		memcpy(&ih.dst_addr, d.b, 4);
		if (l4 <= 65535 - 20)
			CHECK_EQ(tfo_cksum_fold(tfo_cksum_pseudo(AF_INET, &s, &d,
								 proto, l4)),
				 rte_ipv4_phdr_cksum(&ih, 0));

		rnd_fill(s.b, 16);
		rnd_fill(d.b, 16);
		memset(&i6, 0, sizeof(i6));
		i6.payload_len = rte_cpu_to_be_16(l4);
		i6.proto = proto;
		memcpy(i6.src_addr, s.b, 16);
		memcpy(i6.dst_addr, d.b, 16);
		/* DPDK 22.11 shifts the int-promoted proto by 24: UB from 128 */
		i6.proto = proto & 0x7f;
		CHECK_EQ(tfo_cksum_fold(tfo_cksum_pseudo(AF_INET6, &s, &d,
							 proto & 0x7f, l4)),
			 rte_ipv6_phdr_cksum(&i6, 0));
		CHECK_EQ(tfo_sum_host(tfo_cksum_pseudo(AF_INET6, &s, &d, proto, l4)),
			 ref_cksum(ph, ref_pseudo(ph, AF_INET6, s.b, d.b, proto, l4)));
		/* jumbograms: the upper 16 bits of the length count (RFC 2675) */
		{
			uint32_t jl = 0x10000u + rnd() % 0x100000u;

			CHECK_EQ(tfo_sum_host(tfo_cksum_pseudo(AF_INET6, &s, &d,
							       proto, jl)),
				 ref_cksum(ph, ref_pseudo(ph, AF_INET6, s.b, d.b,
							  proto, jl)));
		}
	}
}
