/* SPDX-License-Identifier: BSD-3-Clause
 * dns_answer: the dns service's handle() without the engine, for
 * tests/tap/dns_e2e.py: compares its UDP answers with knotd's even where
 * the engine has no UDP path.
 *
 *   dns_answer ZONE_SPEC UDP_MAX < queries > answers
 *
 * ZONE_SPEC is a `zone` value ("origin:file ..."); each input line is
 * "tcp HEX" or "udp HEX" (one DNS message), each output line the answer
 * in hex (the DNS message, without TCP's length), or "none".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tfo/service.h"

#include "test.h"

static int
unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (s[0] && s[1] && s[0] != '\n' && n < cap) {
		unsigned int v;

		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return (int)n;
}

int
main(int argc, char **argv)
{
	static uint8_t q[70000], buf[2048];
	static char line[140000];
	struct tfo_service_kv kv[] = { { "zone", NULL }, { "idle_timeout", "10" } };
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 2, .kv = kv };
	const struct tfo_service *svc;
	void *st = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: dns_answer ZONE_SPEC UDP_MAX < queries\n");
		return 2;
	}
	kv[0].value = argv[1];
	tfo_test_eal_init("dns_answer", 128, NULL);
	svc = tfo_service_find("dns");
	if (svc == NULL || svc->create(&a, &st) != 0) {
		fprintf(stderr, "dns_answer: cannot create the service\n");
		return 1;
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		struct tfo_svc_ctx ctx = { .family = AF_INET, .dst_port = 53 };
		struct tfo_svc_resp r = { .buf = buf, .buf_cap = sizeof(buf) };
		bool tcp = strncmp(line, "tcp ", 4) == 0;
		int n = unhex(line + 4, q + (tcp ? 2 : 0), sizeof(q) - 2);
		uint32_t pre = tcp ? 2 : 0;

		if (n < 0)
			return 2;
		ctx.transport = tcp ? TFO_SVC_TCP : TFO_SVC_UDP;
		ctx.udp_max = tcp ? 0 : (uint32_t)atoi(argv[2]);
		if (tcp) {
			q[0] = (uint8_t)(n >> 8);
			q[1] = (uint8_t)n;
		}
		if (svc->handle(st, &ctx, q, (uint32_t)n + pre, &r) != TFO_SVC_RESPOND) {
			printf("none\n");
			continue;
		}
		for (uint32_t i = pre; i < r.buf_len; i++)
			printf("%02x", buf[i]);
		for (uint32_t i = 0; r.body != NULL && i < r.body_len; i++)
			printf("%02x", r.body->data[r.body_off + i]);
		printf("\n");
	}
	fflush(stdout);
	svc->destroy(st);
	return 0;
}
