/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the echo service (RFC 862 in request/response form).
 *
 * A request is one line: the bytes up to and including the first '\n'. The
 * response is that line, byte for byte; then the connection is closed (FIN
 * with the response), or kept for the next line with `close = no`.
 * Pipelined lines are answered in order. Bounded: a line longer than
 * `max_line` bytes (or than the engine's response buffer) is rejected, and
 * the engine resets the connection.
 *
 *   [service echo]
 *   port = 7
 *   max_line = 1024	; 1..65535
 *   close = yes		; yes: one line per connection; no: keep-alive
 */
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
echo_create(const struct tfo_service_args *a, void **state)
{
	const char *ml = tfo_service_arg(a, "max_line", "1024");
	const char *cl = tfo_service_arg(a, "close", "yes");
	struct echo_state *st;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(ml, &end, 10);
	if (errno != 0 || *ml == '\0' || *end != '\0' || v == 0 || v > 65535) {
		TFO_LOG(ERR, "echo: max_line = %s: want 1..65535", ml);
		return -EINVAL;
	}
	if (strcmp(cl, "yes") != 0 && strcmp(cl, "no") != 0) {
		TFO_LOG(ERR, "echo: close = %s: want yes or no", cl);
		return -EINVAL;
	}
	st = rte_zmalloc_socket("echo", sizeof(*st), 0, a->socket_id);
	if (st == NULL)
		return -ENOMEM;
	st->max_line = (uint32_t)v;
	st->close = strcmp(cl, "yes") == 0;
	*state = st;
	return 0;
}

static void
echo_destroy(void *state)
{
	rte_free(state);
}

static enum tfo_svc_status
echo_handle(const void *state, const uint8_t *req, uint32_t len,
	    struct tfo_svc_resp *resp)
{
	const struct echo_state *st = state;
	uint32_t scan = len < st->max_line ? len : st->max_line;
	const uint8_t *nl = memchr(req, '\n', scan);
	uint32_t n;

	if (nl == NULL)
		return len >= st->max_line ? TFO_SVC_REJECT : TFO_SVC_NEED_MORE;
	n = (uint32_t)(nl - req) + 1;
	if (n > resp->buf_cap)
		return TFO_SVC_REJECT;
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
	.create = echo_create,
	.destroy = echo_destroy,
	.handle = echo_handle,
};

TFO_SERVICE_REGISTER(echo_service);
