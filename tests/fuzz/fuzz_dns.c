/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness: the dns service's query parser and handle(), and its
 * master file parser and zone builder.
 *
 * Input: a mode byte, then bytes. Mode & 1 == 0: the bytes are a query
 * handed to handle() over TCP (with its 2-byte length, then again as
 * pipelined stream) and over UDP (udp_max from the second byte) against
 * tests/dns's zones (signed ones too: DO=1 answers); mode & 2: by an instance with `cookies = on` (the
 * COOKIE option judged, a server cookie written into the OPT). Mode & 1 == 1: the bytes are master file text for
 * zone example.org., parsed and, when it parses, built into a zone set
 * that then answers a few fixed questions.
 *
 * Invariants: the parsers read only their input (exact-size buffers);
 * handle() keeps its contract (consumed within the request, the length
 * prefix over TCP, output within the buffer, body slice within the blob,
 * nothing over udp_max over UDP, a close only after the FORMERR of a TCP
 * message past max_request, which consumes what it got), its answer is a well-formed DNS message
 * (every section walks to the exact end, compression pointers point
 * backwards) with the query's ID and QR set, and the same query gives the
 * same bytes (idempotent); a zone set built from any text answers every
 * question with a well-formed message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>

#include "tfo/service.h"

#include "../../services/dns_answer.h"
#include "../../services/dns_load.h"
#include "../../services/dns_wire.h"
#include "../../services/dns_write.h"
#include "../../services/dns_zparse.h"
#include "fuzz_common.h"

#define RESP_CAP 2048
#define MAX_REQUEST 4096	/* [tcp] max_request given to the service */
#define ZDIR TFO_CONFIG_DIR "/../tests/dns"

static const struct tfo_service *dns_svc;
static void *dns_state, *dns_plain, *dns_cookies;
static uint64_t ctrs[TFO_SVC_MAX_COUNTERS];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone "
			  "example.net:" ZDIR "/example.net.zone "
			  "signed.example:" ZDIR "/signed.example.zone "
			  "signed3.example:" ZDIR "/signed3.example.zone" },
		/* so that NSID and CHAOS answers are fuzzed too */
		{ "nsid", "fuzz-1" },
		{ "identity", "ns1.fuzz" },
		{ "version", "v" },
	};
	/* max_request: TCP messages past it take the FORMERR-and-close path */
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = RTE_DIM(kv),
				      .kv = kv, .socket_id = SOCKET_ID_ANY,
				      .max_request = MAX_REQUEST };

	static char key[] = "/tmp/fuzz_dns_key_XXXXXX";
	struct tfo_service_kv kc[] = {
		kv[0], { "cookies", "on" }, { "cookie_secret_file", key },
	};
	struct tfo_service_args ac = a;
	int fd = mkstemp(key);

	if (fd < 0 || write(fd, "00112233-44556677-8899aabb-ccddeeff\n", 36) != 36)
		abort();
	close(fd);
	ac.nb_kv = 3;
	ac.kv = kc;
	fz_eal_init((*argv)[0], 128);
	dns_svc = tfo_service_find("dns");
	if (dns_svc == NULL || dns_svc->create(&a, &dns_plain) != 0 ||
	    dns_svc->create(&ac, &dns_cookies) != 0) {
		fprintf(stderr, "fuzz_dns: cannot create the dns service\n");
		abort();
	}
	unlink(key);
	dns_state = dns_plain;
	return 0;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Walk a name at m[*o]: labels, or a pointer to an earlier offset. */
static void
walk_name(const uint8_t *m, uint32_t len, uint32_t *o)
{
	for (;;) {
		FZ_ASSERT(*o < len, "name runs past the message (%u of %u)", *o, len);
		if ((m[*o] & 0xc0) == 0xc0) {
			FZ_ASSERT(*o + 2 <= len, "pointer cut");
			FZ_ASSERT((uint32_t)((m[*o] & 0x3f) << 8 | m[*o + 1]) < *o,
				  "pointer forwards at %u", *o);
			*o += 2;
			return;
		}
		FZ_ASSERT((m[*o] & 0xc0) == 0, "label type %#x", m[*o]);
		if (m[*o] == 0) {
			(*o)++;
			return;
		}
		*o += 1u + m[*o];
	}
}

/* The answer is one well-formed message for query id @p id. */
static void
check_message(const uint8_t *m, uint32_t len, int id)
{
	uint32_t o = DNS_HDR, n;

	FZ_ASSERT(len >= DNS_HDR, "answer of %u bytes", len);
	FZ_ASSERT(m[2] & 0x80, "QR not set");
	if (id >= 0)
		FZ_ASSERT(rd16(m) == id, "ID %#x for %#x", rd16(m), id);
	FZ_ASSERT(rd16(m + 4) <= 1, "qdcount %u", rd16(m + 4));
	if (rd16(m + 4) == 1) {
		walk_name(m, len, &o);
		o += 4;
	}
	n = (uint32_t)rd16(m + 6) + rd16(m + 8) + rd16(m + 10);
	for (uint32_t i = 0; i < n; i++) {
		walk_name(m, len, &o);
		FZ_ASSERT(o + 10 <= len, "RR header cut");
		o += 10u + rd16(m + o + 8);
	}
	FZ_ASSERT(o == len, "sections end at %u of %u", o, len);
}

/* handle() on an exact-size copy; the whole response flattened in @p out. */
static enum tfo_svc_status
call(const struct tfo_svc_ctx *ctx, const uint8_t *b, uint32_t len, uint8_t *out,
     uint32_t *out_len, uint32_t *consumed)
{
	uint8_t *req = fz_dup(b, len);
	uint8_t *buf = malloc(RESP_CAP);
	struct tfo_svc_resp r;
	enum tfo_svc_status s;

	if (buf == NULL)
		abort();
	memset(&r, 0, sizeof(r));
	r.buf = buf;
	r.buf_cap = RESP_CAP;
	s = dns_svc->handle(dns_state, ctx, req, len, &r);
	FZ_ASSERT(s <= TFO_SVC_REJECT, "status %d", s);
	*out_len = 0;
	if (s == TFO_SVC_RESPOND) {
		FZ_ASSERT(r.consumed >= 1 && r.consumed <= len, "consumed %u of %u",
			  r.consumed, len);
		FZ_ASSERT(r.buf_len <= RESP_CAP, "buf_len %u", r.buf_len);
		FZ_ASSERT(!r.close || (ctx->transport == TFO_SVC_TCP &&
				       2u + rd16(req) > MAX_REQUEST &&
				       r.buf_len == 2 + DNS_HDR && r.consumed == len &&
				       (buf[5] & 0xf) == DNS_R_FORMERR), "closes");
		memcpy(out, buf, r.buf_len);
		*out_len = r.buf_len;
		if (r.body != NULL) {
			FZ_ASSERT(r.body_off <= r.body->len &&
				  r.body_len <= r.body->len - r.body_off,
				  "body %u+%u of %u", r.body_off, r.body_len, r.body->len);
			memcpy(out + *out_len, r.body->data + r.body_off, r.body_len);
			*out_len += r.body_len;
		}
		*consumed = r.consumed;
		if (ctx->transport == TFO_SVC_UDP)
			FZ_ASSERT(r.consumed == len && *out_len <= ctx->udp_max,
				  "UDP: consumed %u of %u, %u bytes over %u", r.consumed,
				  len, *out_len, ctx->udp_max);
	}
	free(buf);
	free(req);
	return s;
}

static void
check_query(const uint8_t *q, uint32_t len, uint16_t udp_max)
{
	static uint8_t o1[70000], o2[70000];
	struct tfo_svc_ctx tcp = { .family = AF_INET, .transport = TFO_SVC_TCP,
				   .dst_port = 53, .counters = ctrs };
	struct tfo_svc_ctx udp = { .family = AF_INET6, .transport = TFO_SVC_UDP,
				   .dst_port = 53, .udp_max = udp_max, .counters = ctrs };
	uint8_t *framed = malloc(len + 2u);
	uint32_t n1, n2, c1 = 0, c2 = 0;
	enum tfo_svc_status s1, s2;
	int id = len >= 2 ? rd16(q) : -1;

	if (framed == NULL)
		abort();
	/* UDP: the datagram, twice */
	s1 = call(&udp, q, len, o1, &n1, &c1);
	s2 = call(&udp, q, len, o2, &n2, &c2);
	/* a fresh cookie carries the second it was made in: one tick may
	 * fall between two calls, never two */
	if (dns_state == dns_cookies && (n1 != n2 || memcmp(o1, o2, n1) != 0))
		s1 = call(&udp, q, len, o1, &n1, &c1);
	FZ_ASSERT(s1 == s2 && n1 == n2 && memcmp(o1, o2, n1) == 0, "UDP: not idempotent");
	if (s1 == TFO_SVC_RESPOND)
		check_message(o1, n1, id);
	/* TCP: framed, whole */
	if (len <= 65535) {
		framed[0] = (uint8_t)(len >> 8);
		framed[1] = (uint8_t)len;
		memcpy(framed + 2, q, len);
		s1 = call(&tcp, framed, len + 2, o1, &n1, &c1);
		if (s1 == TFO_SVC_RESPOND) {
			FZ_ASSERT(c1 == len + 2, "TCP consumed %u of %u", c1, len + 2);
			FZ_ASSERT(rd16(o1) == n1 - 2, "TCP length %u, %u bytes", rd16(o1), n1 - 2);
			check_message(o1 + 2, n1 - 2, id);
		}
		/* one byte short: more is needed */
		s2 = call(&tcp, framed, len + 1, o2, &n2, &c2);
		FZ_ASSERT(s2 == TFO_SVC_NEED_MORE || len + 2 > MAX_REQUEST,
			  "TCP, a byte short: %d", s2);
	}
	/* TCP: the input as a stream: answered one framed message at a time */
	for (uint32_t off = 0, rounds = 0; off < len && rounds < 8; rounds++) {
		s1 = call(&tcp, q + off, len - off, o1, &n1, &c1);
		if (s1 != TFO_SVC_RESPOND)
			break;
		FZ_ASSERT(c1 == 2u + rd16(q + off) ||
			  (2u + rd16(q + off) > MAX_REQUEST && c1 == len - off),
			  "stream: consumed %u", c1);
		check_message(o1 + 2, n1 - 2, (len - off) >= 4 ? rd16(q + off + 2) : -1);
		off += c1;
	}
	free(framed);
}

/* Master file text -> records -> a zone set that answers. */
static void
check_zone(const uint8_t *b, uint32_t len)
{
	static const char *const names[] = {
		"example.org.", "www.example.org.", "a.b.example.org.", "x.example.com.",
	};
	static const uint16_t types[] = { DNS_T_A, DNS_T_NS, DNS_T_ANY, DNS_T_MX, DNS_T_SOA };
	uint8_t origins[1][DNS_NAME_MAX];
	char *text = (char *)fz_dup(b, len);
	struct dns_recs recs = { 0 };
	struct dns_set *s = NULL;
	char why[512];

	dns_name_from_text("example.org.", 12, NULL, origins[0]);
	if (dns_zparse_text(text, len, "fuzz.zone", origins[0], &recs, why, sizeof(why)) < 0) {
		FZ_ASSERT(strncmp(why, "fuzz.zone:", 10) == 0 || strstr(why, "memory") != NULL,
			  "error without file:line: %s", why);
		dns_recs_free(&recs);
		free(text);
		return;
	}
	for (unsigned int i = 0; i < recs.n; i++)
		FZ_ASSERT(dns_name_len(recs.r[i].owner) <= DNS_NAME_MAX, "owner too long");
	if (dns_set_build(&recs, (const uint8_t (*)[DNS_NAME_MAX])origins, 1, SOCKET_ID_ANY,
			  1232, &s, why, sizeof(why), NULL) == 0) {
		uint8_t *buf = malloc(DNS_MSG_MAX);

		if (buf == NULL)
			abort();
		for (unsigned int i = 0; i < RTE_DIM(names); i++)
			for (unsigned int t = 0; t < RTE_DIM(types); t++) {
				struct dns_writer w;
				struct dns_sections sec;
				uint8_t ln[DNS_NAME_MAX];

				dns_name_from_text(names[i], strlen(names[i]), NULL, ln);
				dns_w_init(&w, buf, DNS_MSG_MAX);
				dns_w_question(&w, ln, types[t]);
				dns_compose(&w, s, ln, types[t], t & 1, &sec);
				if (w.overflow)
					continue;
				dns_w_counts(&w, sec.an, sec.ns, sec.ar);
				buf[2] |= 0x80;
				check_message(buf, w.len, 0);
			}
		free(buf);
		dns_set_free(s);
	}
	dns_recs_free(&recs);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	uint8_t mode = fz_u8(&in);
	uint32_t len;

	if (mode & 1) {
		len = (uint32_t)RTE_MIN(in.n, (size_t)65536);
		check_zone(in.p, len);
		return 0;
	}
	{
		uint16_t udp_max = (uint16_t)(512u + (fz_u8(&in) << 4));

		len = (uint32_t)RTE_MIN(in.n, (size_t)70000);
		dns_state = (mode & 2) ? dns_cookies : dns_plain;
		check_query(in.p, len, udp_max);
	}
	return 0;
}
