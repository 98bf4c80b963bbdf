/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the TCP option codec (src/net/tcpopt.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "net/tcpopt.h"

#include "test.h"

/*
 * Parse from a heap copy of exactly @p len bytes, so that ASan catches any
 * read past the options.
 */
static int
parse_exact(const uint8_t *b, unsigned int len, struct tfo_tcpopts *o)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	if (len > 0)
		memcpy(copy, b, len);
	rc = tfo_tcpopt_parse(copy, len, o);
	free(copy);
	return rc;
}

#define PARSE(o, ...) ({ \
	static const uint8_t b_[] = { __VA_ARGS__ }; \
	parse_exact(b_, sizeof(b_), (o)); \
})

/* The cookie-request SYN of a Linux client, as seen on the wire. */
TFO_TEST(linux_cookie_request)
{
	struct tfo_tcpopts o;

	CHECK_EQ(PARSE(&o, 0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
		       0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x00, 0x00,
		       0x01, 0x03, 0x03, 0x07, 0x22, 0x02, 0x01, 0x01), 0);
	CHECK(!o.malformed);
	CHECK(o.has_mss);
	CHECK_EQ(o.mss, 1460);
	CHECK(o.sack_ok);
	CHECK(o.has_ts);
	CHECK_EQ(o.tsval, 0x11223344);
	CHECK_EQ(o.tsecr, 0);
	CHECK(o.has_wscale);
	CHECK_EQ(o.wscale, 7);
	CHECK_EQ(o.form, TFO_FORM_RFC);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_REQUEST);
}

TFO_TEST(linux_syn_with_cookie)
{
	static const uint8_t ck[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct tfo_tcpopts o;

	CHECK_EQ(PARSE(&o, 0x02, 0x04, 0x05, 0x8c, 0x04, 0x02, 0x08, 0x0a,
		       0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
		       0x01, 0x03, 0x03, 0x0a, 0x22, 0x0a, 1, 2, 3, 4, 5, 6,
		       7, 8, 0x01, 0x01), 0);
	CHECK_EQ(o.mss, 1420);
	CHECK_EQ(o.tsval, 0xdeadbeef);
	CHECK_EQ(o.wscale, 10);
	CHECK_EQ(o.form, TFO_FORM_RFC);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_PRESENT);
	CHECK_EQ(o.cookie_len, 8);
	CHECK_MEM(o.cookie, ck, 8);
}

TFO_TEST(exp_form)
{
	static const uint8_t ck[4] = { 0xa, 0xb, 0xc, 0xd };
	struct tfo_tcpopts o;

	CHECK_EQ(PARSE(&o, 0xfe, 0x04, 0xf9, 0x89), 0);
	CHECK_EQ(o.form, TFO_FORM_EXP);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_REQUEST);

	CHECK_EQ(PARSE(&o, 0x01, 0x01, 0xfe, 0x08, 0xf9, 0x89, 0xa, 0xb,
		       0xc, 0xd), 0);
	CHECK_EQ(o.form, TFO_FORM_EXP);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_PRESENT);
	CHECK_EQ(o.cookie_len, 4);
	CHECK_MEM(o.cookie, ck, 4);

	/* odd cookie in the experimental form */
	CHECK_EQ(PARSE(&o, 0xfe, 0x09, 0xf9, 0x89, 1, 2, 3, 4, 5), 0);
	CHECK_EQ(o.form, TFO_FORM_EXP);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_INVALID);
	CHECK_EQ(o.cookie_len, 5);
}

TFO_TEST(exp_other_magic_ignored)
{
	struct tfo_tcpopts o;

	CHECK_EQ(PARSE(&o, 0xfe, 0x08, 0x12, 0x34, 1, 2, 3, 4), 0);
	CHECK_EQ(o.form, TFO_FORM_NONE);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_ABSENT);
	/* too short to hold a magic: another experiment, not malformed */
	CHECK_EQ(PARSE(&o, 0xfe, 0x02, 0x01, 0x01), 0);
	CHECK_EQ(o.form, TFO_FORM_NONE);
	CHECK_EQ(PARSE(&o, 0xfe, 0x03, 0xf9, 0x02, 0x04, 0x05, 0xb4), 0);
	CHECK_EQ(o.form, TFO_FORM_NONE);
	CHECK(o.has_mss);
	CHECK_EQ(o.mss, 1460);
}

TFO_TEST(cookie_lengths)
{
	for (unsigned int n = 0; n <= 36; n++) {
		for (int exp = 0; exp <= 1; exp++) {
			uint8_t b[40];
			unsigned int base = exp ? 4 : 2, len = base + n;
			struct tfo_tcpopts o;
			uint8_t want;

			if (len > 40)
				continue;
			b[0] = exp ? 0xfe : 0x22;
			b[1] = (uint8_t)len;
			b[2] = 0xf9;
			b[3] = 0x89;
			for (unsigned int i = base; i < len; i++)
				b[i] = (uint8_t)(0x40 + i);
			CHECK_EQ(parse_exact(b, len, &o), 0);
			CHECK(!o.malformed);
			CHECK_EQ(o.form, exp ? TFO_FORM_EXP : TFO_FORM_RFC);
			if (n == 0)
				want = TFO_COOKIE_REQUEST;
			else if (n >= 4 && n <= 16 && n % 2 == 0)
				want = TFO_COOKIE_PRESENT;
			else
				want = TFO_COOKIE_INVALID;
			CHECK_MSG(o.cookie_state == want, "n=%u exp=%d state=%u",
				  n, exp, o.cookie_state);
			if (n > 0)
				CHECK_EQ(o.cookie_len, n);
			if (want == TFO_COOKIE_PRESENT)
				CHECK_MEM(o.cookie, b + base, n);
		}
	}
}

TFO_TEST(first_tfo_form_wins)
{
	struct tfo_tcpopts o;

	CHECK_EQ(PARSE(&o, 0x22, 0x06, 1, 2, 3, 4,
		       0xfe, 0x08, 0xf9, 0x89, 5, 6, 7, 8), 0);
	CHECK_EQ(o.form, TFO_FORM_RFC);
	CHECK_EQ(o.cookie[0], 1);
	CHECK_EQ(PARSE(&o, 0xfe, 0x04, 0xf9, 0x89, 0x22, 0x06, 1, 2, 3, 4), 0);
	CHECK_EQ(o.form, TFO_FORM_EXP);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_REQUEST);
	/* an invalid first cookie is not replaced by a later valid one */
	CHECK_EQ(PARSE(&o, 0x22, 0x05, 1, 2, 3, 0x22, 0x06, 1, 2, 3, 4), 0);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_INVALID);
}

TFO_TEST(malformed_length_zero_or_one)
{
	static const uint8_t kinds[] = { 2, 3, 4, 5, 8, 34, 254, 99 };
	struct tfo_tcpopts o;

	for (unsigned int k = 0; k < sizeof(kinds); k++) {
		for (uint8_t l = 0; l <= 1; l++) {
			/* MSS first: kept although the parse stops later */
			uint8_t b[8] = { 0x02, 0x04, 0x02, 0x18, kinds[k], l,
					 0x01, 0x01 };

			CHECK_EQ(parse_exact(b, sizeof(b), &o), -EINVAL);
			CHECK(o.malformed);
			CHECK(o.has_mss);
			CHECK_EQ(o.mss, 536);
		}
	}
}

TFO_TEST(malformed_past_end)
{
	struct tfo_tcpopts o;

	/* length byte missing */
	CHECK_EQ(PARSE(&o, 0x01, 0x02), -EINVAL);
	CHECK(o.malformed);
	CHECK_EQ(PARSE(&o, 0x22), -EINVAL);
	CHECK(o.malformed);
	/* option running past the options */
	CHECK_EQ(PARSE(&o, 0x02, 0x04, 0x05), -EINVAL);
	CHECK(o.malformed);
	CHECK(!o.has_mss);
	CHECK_EQ(PARSE(&o, 0x08, 0x0a, 0, 0, 0, 0, 0, 0, 0), -EINVAL);
	CHECK(!o.has_ts);
	CHECK_EQ(PARSE(&o, 0x04, 0x02, 0x22, 0x0a, 1, 2, 3, 4, 5, 6, 7),
		 -EINVAL);
	CHECK(o.sack_ok);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_ABSENT);
	CHECK_EQ(PARSE(&o, 0xfe, 0x0c, 0xf9, 0x89, 1, 2), -EINVAL);
	CHECK_EQ(o.form, TFO_FORM_NONE);
	/* an unknown option's length is still checked */
	CHECK_EQ(PARSE(&o, 0x63, 0xff, 0x00), -EINVAL);
	/* more than a data offset can describe */
	{
		uint8_t big[44];

		memset(big, TFO_OPT_NOP, sizeof(big));
		CHECK_EQ(parse_exact(big, 44, &o), -EINVAL);
		CHECK(o.malformed);
		CHECK_EQ(parse_exact(big, 40, &o), 0);
	}
}

TFO_TEST(malformed_fixed_lengths)
{
	struct tfo_tcpopts o;

	CHECK_EQ(PARSE(&o, 0x02, 0x03, 0x05, 0x01), -EINVAL);
	CHECK(!o.has_mss);
	CHECK_EQ(PARSE(&o, 0x02, 0x05, 0x05, 0xb4, 0x00), -EINVAL);
	CHECK_EQ(PARSE(&o, 0x03, 0x04, 0x07, 0x00), -EINVAL);
	CHECK(!o.has_wscale);
	CHECK_EQ(PARSE(&o, 0x03, 0x02, 0x01, 0x01), -EINVAL);
	CHECK_EQ(PARSE(&o, 0x04, 0x03, 0x00, 0x01), -EINVAL);
	CHECK(!o.sack_ok);
	CHECK_EQ(PARSE(&o, 0x08, 0x08, 0, 0, 0, 0, 0, 0), -EINVAL);
	CHECK(!o.has_ts);
	CHECK_EQ(PARSE(&o, 0x08, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -EINVAL);
	CHECK(o.malformed);
}

TFO_TEST(eol_nop_and_unknown)
{
	struct tfo_tcpopts o;

	/* EOL ends the list: garbage after it is not looked at */
	CHECK_EQ(PARSE(&o, 0x02, 0x04, 0x05, 0xb4, 0x00, 0x22, 0x00, 0x03), 0);
	CHECK(!o.malformed);
	CHECK(o.has_mss);
	CHECK_EQ(o.form, TFO_FORM_NONE);
	/* empty and NOP-only lists */
	CHECK_EQ(parse_exact(NULL, 0, &o), 0);
	CHECK(!o.has_mss && !o.has_ts && !o.sack_ok && !o.has_wscale);
	CHECK_EQ(PARSE(&o, 1, 1, 1, 1), 0);
	CHECK(!o.malformed);
	/* unknown options skipped by their length; SACK blocks too */
	CHECK_EQ(PARSE(&o, 0x13, 0x06, 0, 0, 0, 0, 0x05, 0x0a, 0, 0, 0, 1,
		       0, 0, 0, 2, 0x03, 0x03, 0x02), 0);
	CHECK(o.has_wscale);
	CHECK_EQ(o.wscale, 2);
}

TFO_TEST(wscale_clamp_and_mss_zero)
{
	struct tfo_tcpopts o;

	CHECK_EQ(PARSE(&o, 0x03, 0x03, 0x0f, 0x01), 0);
	CHECK(o.has_wscale);
	CHECK_EQ(o.wscale, 14);
	CHECK_EQ(PARSE(&o, 0x03, 0x03, 0xff, 0x01), 0);
	CHECK_EQ(o.wscale, 14);
	CHECK_EQ(PARSE(&o, 0x02, 0x04, 0x00, 0x00), 0);
	CHECK(!o.has_mss);
	CHECK(!o.malformed);
	/* a later duplicate replaces the earlier value, as in Linux */
	CHECK_EQ(PARSE(&o, 0x02, 0x04, 0x05, 0xb4, 0x02, 0x04, 0x02, 0x18), 0);
	CHECK_EQ(o.mss, 536);
}

/*
 * Every option list of up to 3 bytes, and random lists up to 40 bytes:
 * the parser returns, agrees with its malformed flag, and reports only
 * cookie states that match their length (ASan watches the bounds).
 */
TFO_TEST(exhaustive_short_and_random)
{
	struct tfo_tcpopts o;
	unsigned long bad = 0, consistent = 0, runs = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (uint32_t v = 0; v < (1u << 24); v += 7) {
		uint8_t b[3] = { (uint8_t)v, (uint8_t)(v >> 8),
				 (uint8_t)(v >> 16) };

		for (unsigned int len = 1; len <= 3; len++) {
			int rc = tfo_tcpopt_parse(b, len, &o);

			runs++;
			if ((rc == -EINVAL) != !!o.malformed)
				bad++;
		}
	}
	for (unsigned int it = 0; it < 200000; it++) {
		uint8_t b[40];
		unsigned int len;
		int rc;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		len = (unsigned int)(x % 41);
		for (unsigned int i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* bias towards interesting kinds and small lengths */
			b[i] = (i % 2 == 0 && (x & 0x300)) ?
				(uint8_t)"\x01\x02\x03\x04\x08\x22\xfe\x00"[x & 7] :
				(uint8_t)(x >> 16) % 20;
		}
		rc = parse_exact(b, len, &o);
		runs++;
		if ((rc == -EINVAL) != !!o.malformed)
			bad++;
		if (o.cookie_state == TFO_COOKIE_PRESENT &&
		    (o.cookie_len < 4 || o.cookie_len > 16 || o.cookie_len & 1))
			bad++;
		if ((o.cookie_state != TFO_COOKIE_ABSENT) !=
		    (o.form != TFO_FORM_NONE))
			bad++;
		else
			consistent++;
	}
	CHECK_EQ(bad, 0);
	CHECK(runs > 7000000);
	CHECK(consistent > 0);
}

/* ---- writer ---------------------------------------------------------- */

TFO_TEST(synack_linux_layout)
{
	static const uint8_t ck[8] = { 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5,
				       0xc6, 0xc7 };
	static const uint8_t want[32] = {
		0x02, 0x04, 0x05, 0xb4,
		0x04, 0x02, 0x08, 0x0a, 0x01, 0x02, 0x03, 0x04,
		0x0a, 0x0b, 0x0c, 0x0d,
		0x01, 0x03, 0x03, 0x09,
		0x22, 0x0a, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
		0x01, 0x01,
	};
	struct tfo_synack_opts s = {
		.mss = 1460, .wscale = 9, .peer_wscale = true, .sack_ok = true,
		.ts = true, .tsval = 0x01020304, .tsecr = 0x0a0b0c0d,
		.form = TFO_FORM_RFC, .cookie_len = 8, .cookie = ck,
	};
	uint8_t out[40];

	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 32);
	CHECK_MEM(out, want, 32);
}

TFO_TEST(synack_exp_no_ts)
{
	static const uint8_t ck[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t want[24] = {
		0x02, 0x04, 0x05, 0xa0,
		0x01, 0x01, 0x04, 0x02,
		0x01, 0x03, 0x03, 0x07,
		0xfe, 0x0c, 0xf9, 0x89, 1, 2, 3, 4, 5, 6, 7, 8,
	};
	struct tfo_synack_opts s = {
		.mss = 1440, .wscale = 7, .peer_wscale = true, .sack_ok = true,
		.form = TFO_FORM_EXP, .cookie_len = 8, .cookie = ck,
	};
	uint8_t out[40];

	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 24);
	CHECK_MEM(out, want, 24);
}

TFO_TEST(synack_minimal_and_ts_only)
{
	static const uint8_t want_ts[16] = {
		0x02, 0x04, 0x02, 0x18,
		0x01, 0x01, 0x08, 0x0a, 0, 0, 0, 7, 0, 0, 0, 9,
	};
	struct tfo_synack_opts s = { .mss = 536 };
	uint8_t out[40];

	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 4);
	CHECK_MEM(out, want_ts, 4);
	s.ts = true;
	s.tsval = 7;
	s.tsecr = 9;
	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 16);
	CHECK_MEM(out, want_ts, 16);
	/* a cookie without a form, or a form without a cookie: no option */
	s.cookie_len = 8;
	s.cookie = want_ts;
	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 16);
	s.cookie_len = 0;
	s.form = TFO_FORM_RFC;
	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 16);
	/* longer than a cookie can be: not written */
	s.cookie_len = 17;
	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 16);
}

TFO_TEST(synack_40_byte_limit)
{
	uint8_t ck[16], out[40 + 8];
	struct tfo_synack_opts s = {
		.mss = 1460, .wscale = 14, .peer_wscale = true, .sack_ok = true,
		.ts = true, .tsval = 1, .tsecr = 2, .form = TFO_FORM_EXP,
		.cookie_len = 16, .cookie = ck,
	};
	struct tfo_tcpopts o;

	memset(ck, 0x5a, sizeof(ck));
	memset(out, 0xee, sizeof(out));
	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 40);
	/* nothing written past the 40 bytes */
	for (unsigned int i = 40; i < sizeof(out); i++)
		CHECK_EQ(out[i], 0xee);
	CHECK_EQ(tfo_tcpopt_parse(out, 40, &o), 0);
	CHECK(o.sack_ok && o.has_ts && o.has_wscale);
	CHECK_EQ(o.cookie_state, TFO_COOKIE_PRESENT);
	CHECK_EQ(o.cookie_len, 16);
	s.form = TFO_FORM_RFC;
	CHECK_EQ(tfo_tcpopt_write_synack(out, &s), 40);
	CHECK_EQ(out[38], TFO_OPT_NOP);
	CHECK_EQ(out[39], TFO_OPT_NOP);
}

/* Every combination: write, check the alignment and the limit, parse back. */
TFO_TEST(synack_round_trip_all)
{
	static const uint8_t lens[] = { 0, 4, 6, 8, 10, 12, 14, 16 };
	uint8_t ck[16];
	unsigned int combos = 0;

	for (unsigned int i = 0; i < 16; i++)
		ck[i] = (uint8_t)(0xa0 + i);
	for (unsigned int m = 0; m < 8; m++) {
		for (uint8_t form = 0; form <= 2; form++) {
			for (unsigned int l = 0; l < sizeof(lens); l++) {
				struct tfo_synack_opts s = {
					.mss = (uint16_t)(1000 + m),
					.wscale = (uint8_t)(m + 3),
					.peer_wscale = m & 1,
					.sack_ok = (m >> 1) & 1,
					.ts = (m >> 2) & 1,
					.tsval = 0x80000000u + m,
					.tsecr = 0xfffffff0u - m,
					.form = form,
					.cookie_len = lens[l],
					.cookie = ck,
				};
				bool tfo = form != 0 && lens[l] != 0;
				struct tfo_tcpopts o;
				uint8_t out[40];
				unsigned int n;

				n = tfo_tcpopt_write_synack(out, &s);
				combos++;
				CHECK(n % 4 == 0 && n <= 40);
				/* MSS first; TSval 4-byte aligned */
				CHECK_EQ(out[0], TFO_OPT_MSS);
				if (s.ts) {
					CHECK_EQ(out[6], TFO_OPT_TS);
					CHECK_EQ(out[4], s.sack_ok ? 4 : 1);
				}
				REQUIRE(tfo_tcpopt_parse(out, n, &o) == 0);
				CHECK_EQ(o.mss, s.mss);
				CHECK_EQ(o.has_wscale, s.peer_wscale);
				if (s.peer_wscale)
					CHECK_EQ(o.wscale, s.wscale);
				CHECK_EQ(o.sack_ok, s.sack_ok);
				CHECK_EQ(o.has_ts, s.ts);
				if (s.ts) {
					CHECK_EQ(o.tsval, s.tsval);
					CHECK_EQ(o.tsecr, s.tsecr);
				}
				CHECK_EQ(o.form, tfo ? form : TFO_FORM_NONE);
				if (tfo) {
					CHECK_EQ(o.cookie_state,
						 TFO_COOKIE_PRESENT);
					CHECK_EQ(o.cookie_len, lens[l]);
					CHECK_MEM(o.cookie, ck, lens[l]);
				}
			}
		}
	}
	CHECK_EQ(combos, 8 * 3 * 8);
}

TFO_TEST(write_ts)
{
	static const uint8_t want[12] = { 1, 1, 8, 10, 0xfe, 0xdc, 0xba, 0x98,
					  0x01, 0x23, 0x45, 0x67 };
	uint8_t out[12];
	struct tfo_tcpopts o;

	CHECK_EQ(tfo_tcpopt_write_ts(out, 0xfedcba98, 0x01234567), 12);
	CHECK_MEM(out, want, 12);
	CHECK_EQ(tfo_tcpopt_parse(out, 12, &o), 0);
	CHECK(o.has_ts);
	CHECK_EQ(o.tsval, 0xfedcba98);
	CHECK_EQ(o.tsecr, 0x01234567);
}

/*
 * Linux's SYN-ACK layout when the peer sent MSS, SACK-permitted, timestamps
 * and window scale, byte by byte: MSS; SACK-permitted, TS; NOP, WS; the TFO
 * option (if any) NOP padded to 4. @return its length.
 */
static unsigned int
full_synack_bytes(uint8_t *b, const struct tfo_synack_opts *s)
{
	static const uint8_t head[] = { 2, 4, 0, 0, 4, 2, 8, 10 };
	unsigned int n = sizeof(head), c = s->cookie_len;

	memcpy(b, head, sizeof(head));
	b[2] = (uint8_t)(s->mss >> 8);
	b[3] = (uint8_t)s->mss;
	for (unsigned int k = 0; k < 4; k++) {
		b[n++] = (uint8_t)(s->tsval >> (24 - 8 * k));
		b[n + 3] = (uint8_t)(s->tsecr >> (24 - 8 * k));
	}
	n += 4;
	b[n++] = 1;
	b[n++] = 3;
	b[n++] = 3;
	b[n++] = s->wscale > 14 ? 14 : s->wscale;
	if (s->form == TFO_FORM_NONE || s->cookie == NULL || c == 0 || c > 16)
		return n;
	if (s->form == TFO_FORM_EXP) {
		b[n++] = 254;
		b[n++] = (uint8_t)(4 + c);
		b[n++] = 0xf9;
		b[n++] = 0x89;
	} else {
		b[n++] = 34;
		b[n++] = (uint8_t)(2 + c);
	}
	memcpy(b + n, s->cookie, c);
	for (n += c; n % 4 != 0; n++)
		b[n] = TFO_OPT_NOP;
	return n;
}

/* The fixed pattern for the common case against the layout byte by byte,
 * for every cookie form and length (allowed or not), wscale over 14 and no
 * cookie pointer; nothing written behind the options. */
TFO_TEST(synack_full_same_bytes)
{
	static const uint16_t mss[] = { 0, 536, 1220, 1460, 0x8001, 0xffff };
	static const uint8_t ws[] = { 0, 7, 14, 15, 255 };
	static const uint8_t lens[] = { 0, 1, 4, 5, 6, 8, 12, 15, 16, 17, 255 };
	uint8_t ck[TFO_COOKIE_MAX];
	unsigned int n = 0;

	for (unsigned int i = 0; i < sizeof(ck); i++)
		ck[i] = (uint8_t)(0x5a ^ (i * 37));
	for (unsigned int k = 0; k < 2 * RTE_DIM(mss) * RTE_DIM(ws) * 3; k++) {
		for (size_t l = 0; l < RTE_DIM(lens); l++) {
			struct tfo_synack_opts s = {
				.peer_wscale = true, .sack_ok = true, .ts = true,
				.mss = mss[k % RTE_DIM(mss)],
				.wscale = ws[(k / RTE_DIM(mss)) % RTE_DIM(ws)],
				.form = (uint8_t)(k / RTE_DIM(mss) / RTE_DIM(ws) % 3),
				.tsval = 0x80000000u ^ (k * 0x01010101u),
				.tsecr = 0xfffffff0u - k,
				.cookie_len = lens[l],
				.cookie = k & 1 ? ck : NULL,
			};
			uint8_t out[TFO_TCPOPT_MAX_LEN + 8];
			uint8_t want[TFO_TCPOPT_MAX_LEN + 8];
			unsigned int len;

			memset(out, 0xee, sizeof(out));
			memset(want, 0xee, sizeof(want));
			len = full_synack_bytes(want, &s);
			CHECK_EQ(tfo_tcpopt_write_synack(out, &s), len);
			CHECK_MEM(out, want, sizeof(out));
			n++;
		}
	}
	CHECK_EQ(n, 2 * RTE_DIM(mss) * RTE_DIM(ws) * 3 * RTE_DIM(lens));
}

/* The SYN-ACK sender's inline writer for the common set (no cookie)
 * against the general one: the same bytes, nothing written behind. */
TFO_TEST(synack_common_same_bytes)
{
	static const uint16_t mss[] = { 0, 536, 1220, 1460, 0x8001, 0xffff };
	static const uint8_t ws[] = { 0, 7, 14, 15, 255 };
	unsigned int n = 0;

	for (size_t i = 0; i < RTE_DIM(mss); i++) {
		for (size_t j = 0; j < RTE_DIM(ws); j++) {
			struct tfo_synack_opts s = {
				.peer_wscale = true, .sack_ok = true, .ts = true,
				.mss = mss[i], .wscale = ws[j],
				.tsval = 0x80000001u ^ (uint32_t)(i * 0x01010101u),
				.tsecr = 0xfffffff0u - (uint32_t)j,
				.form = TFO_FORM_NONE,
			};
			uint8_t out[TFO_TCPOPT_MAX_LEN + 8];
			uint8_t want[TFO_TCPOPT_MAX_LEN + 8];

			memset(out, 0xee, sizeof(out));
			memset(want, 0xee, sizeof(want));
			CHECK_EQ(tfo_tcpopt_write_synack(want, &s), TFO_SYNACK_COMMON_LEN);
			CHECK_EQ(tfo_tcpopt_write_synack_common(out, s.mss, s.wscale, s.tsval,
								s.tsecr), TFO_SYNACK_COMMON_LEN);
			CHECK_MEM(out, want, sizeof(out));
			n++;
		}
	}
	CHECK_EQ(n, RTE_DIM(mss) * RTE_DIM(ws));
}

/* The word writer against the byte-by-byte layout, at every alignment,
 * and nothing written around the 12 bytes. */
TFO_TEST(write_ts_words)
{
	static const uint32_t v[] = { 0, 1, 0x80, 0xff, 0x100, 0x7fffffff,
				      0x80000000, 0xfedcba98, 0xffffffff };
	unsigned int n = 0;

	for (size_t i = 0; i < RTE_DIM(v); i++) {
		for (size_t j = 0; j < RTE_DIM(v); j++) {
			unsigned int off = n++ & 3;
			uint8_t out[16], want[12] = { TFO_OPT_NOP, TFO_OPT_NOP,
						      TFO_OPT_TS, 10 };

			for (unsigned int k = 0; k < 4; k++) {
				want[4 + k] = (uint8_t)(v[i] >> (24 - 8 * k));
				want[8 + k] = (uint8_t)(v[j] >> (24 - 8 * k));
			}
			memset(out, 0xee, sizeof(out));
			CHECK_EQ(tfo_tcpopt_write_ts(out + off, v[i], v[j]), 12);
			CHECK_MEM(out + off, want, 12);
			for (unsigned int k = 0; k < sizeof(out); k++)
				if (k < off || k >= off + 12)
					CHECK_EQ(out[k], 0xee);
		}
	}
	CHECK_EQ(n, RTE_DIM(v) * RTE_DIM(v));
}

/* SACK blocks behind Linux's NOP,NOP,TS; lengths that are not 2 + 8n. */
TFO_TEST(sack_blocks)
{
	uint8_t o[40] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2,
			  1, 1, 5, 18,
			  0x10, 0, 0, 0, 0x10, 0, 0x05, 0xa8,
			  0x20, 0, 0, 0, 0x20, 0, 0, 0x10 };
	uint32_t l[TFO_SACK_BLOCKS_MAX], r[TFO_SACK_BLOCKS_MAX];

	CHECK_EQ(tfo_tcpopt_sack_blocks(o, 32, l, r), 2);
	CHECK_EQ(l[0], 0x10000000);
	CHECK_EQ(r[0], 0x100005a8);
	CHECK_EQ(l[1], 0x20000000);
	CHECK_EQ(r[1], 0x20000010);
	CHECK_EQ(tfo_tcpopt_sack_blocks(o, 12, l, r), 0);	/* TS only */
	CHECK_EQ(tfo_tcpopt_sack_blocks(o, 31, l, r), 0);	/* runs past */
	o[15] = 17;						/* not 2 + 8n */
	CHECK_EQ(tfo_tcpopt_sack_blocks(o, 32, l, r), 0);
	o[15] = 2;						/* no block */
	CHECK_EQ(tfo_tcpopt_sack_blocks(o, 32, l, r), 0);
	o[15] = 42;						/* past the options */
	CHECK_EQ(tfo_tcpopt_sack_blocks(o, 40, l, r), 0);
	o[12] = 0;						/* EOL first */
	o[15] = 18;
	CHECK_EQ(tfo_tcpopt_sack_blocks(o, 32, l, r), 0);
}

/* ---- fast path vs generic parser ---------------------------------------- */

/* @p parse on a heap copy of exactly @p len bytes of @p b (which holds
 * at least one byte), so that ASan sees a read past the options. */
static int
parse_copy(int (*parse)(const uint8_t *, unsigned int, struct tfo_tcpopts *),
	   const uint8_t *b, unsigned int len, struct tfo_tcpopts *o)
{
	unsigned int n = len ? len : 1;
	uint8_t *copy = malloc(n);
	int rc;

	if (copy == NULL)
		abort();
	memcpy(copy, b, n);
	rc = parse(copy, len, o);
	free(copy);
	return rc;
}

/* Both parsers on @p len bytes of @p b; false (and the bytes on stderr)
 * when the return code or any field differs. */
static bool
parse_same(const uint8_t *b, unsigned int len)
{
	struct tfo_tcpopts f, g;
	int rf, rg;
	bool same;

	memset(&f, 0xa5, sizeof(f));
	memset(&g, 0x5a, sizeof(g));
	rf = parse_copy(tfo_tcpopt_parse, b, len, &f);
	rg = parse_copy(tfo_tcpopt_parse_generic, b, len, &g);
	same = rf == rg && f.mss == g.mss && f.wscale == g.wscale &&
	       f.has_mss == g.has_mss && f.has_wscale == g.has_wscale &&
	       f.sack_ok == g.sack_ok && f.has_ts == g.has_ts &&
	       f.malformed == g.malformed && f.form == g.form &&
	       f.cookie_state == g.cookie_state &&
	       f.cookie_len == g.cookie_len && f.tsval == g.tsval &&
	       f.tsecr == g.tsecr &&
	       memcmp(f.cookie, g.cookie, sizeof(f.cookie)) == 0;
	if (!same) {
		fprintf(stderr, "  fast/generic differ on %u bytes:", len);
		for (unsigned int i = 0; i < len; i++)
			fprintf(stderr, " %02x", b[i]);
		fputc('\n', stderr);
	}
	return same;
}

/* Linux's SYN (MSS, SACKOK+TS, NOP+WS) with a kind-34 option of @p olen
 * bytes (0: none) and @p pad NOPs after it; @return the length. */
static unsigned int
linux_syn(uint8_t *b, unsigned int olen, unsigned int pad, uint64_t *x)
{
	static const uint8_t head[20] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10,
					  0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 };
	unsigned int n = sizeof(head);

	memcpy(b, head, n);
	for (unsigned int i = 8; i < 16; i++)
		b[i] = (uint8_t)tfo_test_rand(x);
	if (olen > 0) {
		b[n] = TFO_OPT_FASTOPEN;
		b[n + 1] = (uint8_t)olen;
		for (unsigned int i = 2; i < olen; i++)
			b[n + i] = (uint8_t)tfo_test_rand(x);
		n += olen;
	}
	for (unsigned int i = 0; i < pad; i++)
		b[n++] = TFO_OPT_NOP;
	return n;
}

/*
 * tfo_tcpopt_parse's word compares for Linux's layouts must give what the
 * byte-at-a-time parser gives: on those layouts (every cookie length, MSS
 * 0, large shifts), on them with bytes changed, cut or extended, and on
 * random bytes.
 */
TFO_TEST(fast_path_matches_generic)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	unsigned long bad = 0, runs = 0;
	uint8_t b[64];
	unsigned int len;

	/* the common layouts as they are */
	for (unsigned int olen = 0; olen <= 20; olen++) {
		for (unsigned int pad = 0; pad <= 4; pad++) {
			if (20 + olen + pad > TFO_TCPOPT_MAX_LEN)
				continue;
			len = linux_syn(b, olen, pad, &x);
			bad += !parse_same(b, len);
			b[2] = 0;	/* MSS 0 */
			b[3] = 0;
			bad += !parse_same(b, len);
			b[19] = 15;	/* shift over 14 */
			bad += !parse_same(b, len);
			runs += 3;
		}
	}
	len = tfo_tcpopt_write_ts(b, 0xfedcba98, 0x01234567);
	bad += !parse_same(b, len);
	runs++;

	/* mutated: a few bytes changed, the length moved */
	for (unsigned int it = 0; it < 300000; it++) {
		uint32_t r = tfo_test_rand(&x);
		unsigned int nmut = 1 + r % 3;

		memset(b, 0, sizeof(b));
		if (r & 0x100) {
			len = tfo_tcpopt_write_ts(b, tfo_test_rand(&x),
						  tfo_test_rand(&x));
		} else {
			unsigned int olen = (r >> 9) % 21, pad = (r >> 14) % 4;

			if (olen == 1)
				olen = 0;
			if (20 + olen + pad > TFO_TCPOPT_MAX_LEN)
				pad = 0;
			if (20 + olen > TFO_TCPOPT_MAX_LEN)
				olen = 20;
			len = linux_syn(b, olen, pad, &x);
		}
		for (unsigned int k = 0; k < nmut; k++) {
			uint32_t m = tfo_test_rand(&x);
			unsigned int at = m % (len + 1);

			/* option kinds and lengths, small numbers, anything */
			b[at] = (m & 0x30000) == 0 ?
				(uint8_t)"\x00\x01\x02\x03\x04\x08\x0a\x22"[(m >> 8) & 7] :
				(m & 0x30000) == 0x10000 ? (uint8_t)((m >> 8) % 24) :
				(uint8_t)(m >> 8);
		}
		if ((r >> 20) % 4 == 0)
			len = (len + (r >> 22) % 9 + 60) % 45;	/* a few past 40 too */
		bad += !parse_same(b, len);
		runs++;
	}

	/* random bytes, all lengths up to past the limit */
	for (unsigned int it = 0; it < 100000; it++) {
		len = tfo_test_rand(&x) % 45;
		for (unsigned int i = 0; i < len; i++)
			b[i] = (uint8_t)tfo_test_rand(&x);
		bad += !parse_same(b, len);
		runs++;
	}
	CHECK_EQ(bad, 0);
	CHECK(runs > 400000);
}

TFO_TEST_MAIN()
