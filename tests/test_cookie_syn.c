/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: SYN cookies (src/cookie/syncookie.c): round
 * trips and what they reject.
 */
#include "cookie_harness.h"

/* ---- SYN cookies ------------------------------------------------------------------ */

static void
syn_of(struct tfo_pkt *p, int family, uint32_t isn)
{
	memset(p, 0, sizeof(*p));
	p->family = (uint8_t)family;
	p->cls = TFO_PKT_TCP;
	p->tcp_flags = TFO_TCP_SYN;
	if (family == AF_INET) {
		inet_pton(AF_INET, "198.51.100.9", p->src.b);
		inet_pton(AF_INET, "192.0.2.80", p->dst.b);
	} else {
		inet_pton(AF_INET6, "2001:db8::9", p->src.b);
		inet_pton(AF_INET6, "2001:db8:ffff::80", p->dst.b);
	}
	p->sport = 40000;
	p->dport = 80;
	p->seq = isn;
}

/* The client's first ACK answering our SYN-ACK with ISN @p our_isn. */
static void
ack_of(struct tfo_pkt *a, const struct tfo_pkt *syn, uint32_t our_isn)
{
	*a = *syn;
	a->tcp_flags = TFO_TCP_ACK;
	a->seq = syn->seq + 1;
	a->ack = our_isn + 1;
}

TFO_TEST(syncookie_round_trip)
{
	static const uint16_t v4[] = { 536, 1300, 1440, 1460 };
	static const uint16_t v6[] = { 1220, 1420, 1440, 8940 };
	struct tfo_syncookie_secret s;
	unsigned int n = 0;

	for (int i = 0; i < 16; i++)
		s.k[i] = (uint8_t)(0x30 + i);
	for (int fam = 0; fam < 2; fam++) {
		const uint16_t *tab = fam ? v6 : v4;

		for (int m = 0; m < 4; m++) {
			for (int ts = 0; ts < 2; ts++) {
				struct tfo_syncookie_info in = {
					.mss = (uint16_t)(tab[m] + (m == 3 ? 100 : 1)),
					.wscale = (uint8_t)(m * 4 + ts),
					.sack_ok = (m & 1) != 0,
				}, out;
				struct tfo_pkt syn, ack;
				uint32_t now = 1000000 + (uint32_t)m * 17;
				uint32_t clock = 0x12345678u + (uint32_t)m;
				uint32_t tsval = clock, isn;

				syn_of(&syn, fam ? AF_INET6 : AF_INET,
				       0xfffffff0u + (uint32_t)m);
				isn = tfo_syncookie_make(&s, &syn, now, &in,
							 ts, &tsval);
				ack_of(&ack, &syn, isn);
				if (ts) {
					/* low 6 bits replaced, not ahead */
					CHECK((int32_t)(tsval - clock) <= 0);
					CHECK(clock - tsval < 64);
				} else {
					CHECK_EQ(tsval, clock);
				}
				/* accepted now and one minute later */
				CHECK_EQ(tfo_syncookie_check(&s, &ack, now, ts,
							     tsval, &out), 0);
				CHECK_EQ(out.mss, tab[m]);
				if (ts) {
					CHECK_EQ(out.wscale, in.wscale > 14 ?
						 0xf : in.wscale);
					CHECK_EQ(out.sack_ok, in.sack_ok);
				} else {
					CHECK_EQ(out.wscale, 0xf);
					CHECK(!out.sack_ok);
				}
				CHECK_EQ(tfo_syncookie_check(&s, &ack, now + 60,
							     ts, tsval, &out), 0);
				n++;
			}
		}
	}
	CHECK_EQ(n, 16);
}

TFO_TEST(syncookie_rejects)
{
	struct tfo_syncookie_secret s, s2;
	struct tfo_syncookie_info in = { .mss = 1460, .wscale = 7,
					 .sack_ok = true }, out;
	struct tfo_pkt syn, ack, x;
	uint32_t now = 7777777, tsval = 0xabcdef00u, isn;
	unsigned long forged_ok = 0;

	memset(&s, 0x42, sizeof(s));
	memset(&s2, 0x43, sizeof(s2));
	syn_of(&syn, AF_INET, 123456789);
	isn = tfo_syncookie_make(&s, &syn, now, &in, true, &tsval);
	ack_of(&ack, &syn, isn);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, true, tsval, &out), 0);

	/* expired: two or more minute steps later; and from the future */
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now + 120, true, tsval, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now + 3600, true, tsval, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now - 60, true, tsval, &out),
		 -EINVAL);
	/* other secret */
	CHECK_EQ(tfo_syncookie_check(&s2, &ack, now, true, tsval, &out), -EINVAL);
	/* wrong tuple: each field */
	x = ack;
	x.sport++;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.dport = 443;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.src.b[3] ^= 1;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.dst.b[0] ^= 0x80;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.seq++;	/* another peer ISN */
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	/* forged: another MSS index, altered TS bits, no TS */
	x = ack;
	x.ack ^= 1;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, true, tsval ^ 0x10, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, true, tsval ^ 0x3, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, false, 0, &out), -EINVAL);
	/* random ISNs in the current minute: about 2^-22 pass each */
	for (unsigned int i = 0; i < 200000; i++) {
		x = ack;
		x.ack = (uint32_t)rng();
		x.ack = ((now / 60 & 0xff) << 24 | (x.ack & 0xffffff)) + 1;
		if (x.ack != ack.ack &&
		    tfo_syncookie_check(&s, &x, now, true, tsval, &out) == 0)
			forged_ok++;
	}
	CHECK_MSG(forged_ok <= 2, "%lu forged cookies accepted", forged_ok);
}
