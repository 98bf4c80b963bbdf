/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the echo service (RFC 862 in request/response form).
 *
 * A request is one line: the bytes up to and including the first '\n'. The
 * response is that line, byte for byte; then the connection is closed (FIN
 * with the response), or kept for the next line with `close = no`.
 * Pipelined lines are answered in order. Bounded: a line longer than
 * `max_line` bytes (or than the engine's response buffer) is rejected, and
 * the engine resets the connection. With `udp = on` a datagram to the port
 * is echoed whole (RFC 862's UDP form), up to max_line bytes.
 *
 *   [service echo]
 *   port = 7
 *   udp = on		; datagrams too (default off)
 *   max_line = 1024	; 1..65535
 *   close = yes		; yes: one line per connection; no: keep-alive
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "tfo/log.h"
#include "tfo/service.h"

struct echo_state {
	uint32_t max_line;
	bool close;
};

static int
echo_check_key(const char *key, const char *value, char *why, size_t whylen)
{
	unsigned long v;
	char *end;

	if (strcmp(key, "max_line") == 0) {
		errno = 0;
		v = strtoul(value, &end, 10);
		if (!isdigit((unsigned char)value[0]) || errno != 0 || *end != '\0' ||
		    v == 0 || v > 65535)
			return tfo_errmsg(why, whylen, "expected an integer in 1..65535");
	} else if (strcmp(key, "close") == 0) {
		if (strcmp(value, "yes") != 0 && strcmp(value, "no") != 0)
			return tfo_errmsg(why, whylen, "expected yes or no");
	}
	return 0;
}

/* The section into @p st (no DPDK: the configuration check runs it too). */
static int
echo_conf(const struct tfo_service_args *a, struct echo_state *st, char *why,
	  size_t whylen)
{
	static const char *const keys[] = { "max_line", "close" };
	static const char *const defs[] = { "1024", "yes" };
	char r[128];

	for (unsigned int i = 0; i < RTE_DIM(keys); i++) {
		const char *v = tfo_service_arg(a, keys[i], defs[i]);

		if (echo_check_key(keys[i], v, r, sizeof(r)) < 0)
			return tfo_errmsg(why, whylen, "%s = %s: %s", keys[i], v, r);
	}
	st->max_line = (uint32_t)strtoul(tfo_service_arg(a, "max_line", defs[0]), NULL, 10);
	st->close = strcmp(tfo_service_arg(a, "close", defs[1]), "yes") == 0;
	return 0;
}

static int
echo_check(const struct tfo_service_args *a, char *why, size_t whylen)
{
	struct echo_state st;

	return echo_conf(a, &st, why, whylen);
}

static int
echo_create(const struct tfo_service_args *a, void **state)
{
	struct echo_state conf, *st;
	char why[192];

	if (echo_conf(a, &conf, why, sizeof(why)) < 0) {
		TFO_LOG(ERR, "echo: %s", why);
		return -EINVAL;
	}
	st = rte_zmalloc_socket("echo", sizeof(*st), 0, a->socket_id);
	if (st == NULL)
		return -ENOMEM;
	*st = conf;
	*state = st;
	return 0;
}

static void
echo_destroy(void *state)
{
	rte_free(state);
}

/* by echo_counters' order */
enum { ECHO_LINES, ECHO_IN_SYN, ECHO_DATAGRAMS };

static const struct tfo_svc_counter echo_counters[] = {
	[ECHO_LINES] = { "echo_lines", "lines echoed over TCP" },
	[ECHO_IN_SYN] = { "echo_lines_in_syn",
			  "of echo_lines, those whose first byte came in the SYN (TCP Fast Open)" },
	[ECHO_DATAGRAMS] = { "echo_datagrams", "UDP datagrams echoed (udp = on)" },
	{ NULL, NULL },
};

static inline void
echo_count(const struct tfo_svc_ctx *ctx, unsigned int id)
{
	/* NULL when a test or benchmark calls handle() without counters */
	if (ctx->counters != NULL)
		ctx->counters[id]++;
}

static enum tfo_svc_status
echo_handle(const void *state, const struct tfo_svc_ctx *ctx,
	    const uint8_t *req, uint32_t len,
	    struct tfo_svc_resp *resp)
{
	const struct echo_state *st = state;
	uint32_t scan = len < st->max_line ? len : st->max_line;
	const uint8_t *nl;
	uint32_t n;

	if (ctx->transport == TFO_SVC_UDP) {
		/* the whole datagram, which must fit one answer */
		if (len > st->max_line || len > resp->buf_cap)
			return TFO_SVC_REJECT;
		memcpy(resp->buf, req, len);
		resp->buf_len = len;
		resp->consumed = len;
		echo_count(ctx, ECHO_DATAGRAMS);
		return TFO_SVC_RESPOND;
	}
	nl = memchr(req, '\n', scan);
	if (nl == NULL)
		return len >= st->max_line ? TFO_SVC_REJECT : TFO_SVC_NEED_MORE;
	n = (uint32_t)(nl - req) + 1;
	if (n > resp->buf_cap)
		return TFO_SVC_REJECT;
	echo_count(ctx, ECHO_LINES);
	if (ctx->in_syn)
		echo_count(ctx, ECHO_IN_SYN);
	memcpy(resp->buf, req, n);
	resp->buf_len = n;
	resp->consumed = n;
	resp->body = NULL;
	resp->close = st->close;
	return TFO_SVC_RESPOND;
}

static const char *const echo_keys[] = { "max_line", "close", NULL };

static struct tfo_service echo_service = {
	.name = "echo",
	.help = "echo one line back, then close (close = no: keep-alive)",
	.keys = echo_keys,
	.counters = echo_counters,
	.udp_ok = true,
	.create = echo_create,
	.destroy = echo_destroy,
	.handle = echo_handle,
	.check_key = echo_check_key,
	.check = echo_check,
};

TFO_SERVICE_REGISTER(echo_service);
