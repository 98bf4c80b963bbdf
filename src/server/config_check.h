/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a configuration checked as a whole, before a start or
 * --print-config (config_check.c). The assembly's: it asks every layer.
 */
#ifndef TFO_CONFIG_CHECK_H
#define TFO_CONFIG_CHECK_H

#include <stddef.h>

#include "ops/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Every check a start makes that needs no device and no EAL: cross-key
 * checks (ports have addresses, limits consistent), the key file (it
 * exists and parses) and each service's own check (http: the root is a
 * readable directory). --print-config and a start both run it, after
 * tfo_config_services_load (a service not loaded is refused).
 * @return 0 or -EINVAL with @p err.
 */
int tfo_config_validate(const struct tfo_config *c, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TFO_CONFIG_CHECK_H */
