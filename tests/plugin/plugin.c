/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service plugins for tests/plugin_cli.sh, one source built
 * three ways (tests/meson.build):
 *   PLUGIN_GOOD   service "plug": echoes a line with a prefix read from its
 *                 section (tfo_service_arg, tfo_errmsg: the symbols
 *                 tfo-server exports)
 *   PLUGIN_ABI    says it was built for another TFO_SERVICE_ABI_VERSION
 *   PLUGIN_NONE   a shared object that is not a service plugin
 */
#include <string.h>

#include "tfo/log.h"
#include "tfo/service.h"

#if defined(PLUGIN_GOOD)
static int
plug_check_key(const char *key, const char *value, char *why, size_t whylen)
{
	if (strcmp(key, "prefix") == 0 && strlen(value) > 16)
		return tfo_errmsg(why, whylen, "expected at most 16 characters");
	return 0;
}

static int
plug_create(const struct tfo_service_args *a, void **state)
{
	*state = (void *)(uintptr_t)tfo_service_arg(a, "prefix", "plug: ");
	return 0;
}

static void
plug_destroy(void *state)
{
	(void)state;
}

static enum tfo_svc_status
plug_handle(const void *state, const struct tfo_svc_ctx *ctx __rte_unused,
	    const uint8_t *req, uint32_t len,
	    struct tfo_svc_resp *resp)
{
	const char *prefix = state;
	const uint8_t *nl = memchr(req, '\n', len);
	uint32_t n, p = (uint32_t)strlen(prefix);

	if (nl == NULL)
		return TFO_SVC_NEED_MORE;
	n = (uint32_t)(nl - req) + 1;
	if (p + n > resp->buf_cap)
		return TFO_SVC_REJECT;
	memcpy(resp->buf, prefix, p);
	memcpy(resp->buf + p, req, n);
	resp->buf_len = p + n;
	resp->consumed = n;
	resp->close = true;
	return TFO_SVC_RESPOND;
}

static const char *const plug_keys[] = { "prefix", NULL };

static struct tfo_service plug = {
	.name = "plug",
	.help = "test plugin: a line back behind a prefix",
	.keys = plug_keys,
	.create = plug_create,
	.destroy = plug_destroy,
	.handle = plug_handle,
	.check_key = plug_check_key,
};
TFO_SERVICE_REGISTER(plug)
#elif defined(PLUGIN_ABI)
/* what a plugin built against other headers exports */
__attribute__((visibility("default"))) const uint32_t tfo_service_plugin_abi =
	TFO_SERVICE_ABI_VERSION + 100;
__attribute__((visibility("default"))) void *const tfo_service_plugin = NULL;
#else
int plugin_none(void);

int
plugin_none(void)
{
	return 0;
}
#endif
