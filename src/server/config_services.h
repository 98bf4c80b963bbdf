/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the configuration's services (config_services.c): parsing
 * records each [service NAME] section as written; here each plugin is
 * loaded and each service handed its keys, as the start's first step.
 */
#ifndef TFO_CONFIG_SERVICES_H
#define TFO_CONFIG_SERVICES_H

#include <stddef.h>
#include <stdio.h>

#include "ops/config.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_service_kv;
struct tfo_service_args;

/**
 * Load the plugin of each service section of @p c not loaded yet
 * (`plugin = PATH.so`, relative: from the configuration's directory),
 * then hand each service its keys in the order written: port, udp (on
 * only for a service that declares udp_ok), and the service's own keys,
 * each checked by the service (key_ok, check_key); a key said twice that
 * the service does not repeat keeps its first place and its last value.
 * Sets each section's loaded. Called again after more keys, it loads
 * what they added.
 *
 * @param line
 *   If not NULL: the file's line of the key refused, 0 for a key of
 *   tfo_config_set (--set), so that the caller words it as the parser did.
 * @return 0, or -EINVAL with one line in @p err, worded as parsing words
 *   a refused key (tfo_config_key_error): an unknown service, a plugin
 *   that does not load, a key the service refuses.
 */
int tfo_config_services_load(struct tfo_config *c, unsigned int *line, char *err,
			     size_t errlen);

/**
 * What service section @p cs of @p c (loaded) gives the service's check()
 * and create(): @p a filled, its keys and values in @p kv (room for
 * TFO_SERVICE_MAX_KV; pointing into @p cs, which must outlive @p a).
 * @p socket_id: -1 for a check.
 */
void tfo_config_service_args(const struct tfo_config *c, const struct tfo_cfg_service *cs,
			     int socket_id, struct tfo_service_kv *kv,
			     struct tfo_service_args *a);

/** --help-config's lines of the services this binary has (built in). */
void tfo_config_help_services(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* TFO_CONFIG_SERVICES_H */
