/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the harness of the configuration parser's unit tests
 * (test_config*.c, one program, "config").
 */
#ifndef TFO_TEST_CONFIG_HARNESS_H
#define TFO_TEST_CONFIG_HARNESS_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "ops/config.h"
#include "lcore/idle.h"
#include "server/config_check.h"
#include "server/config_services.h"
#include "server/start_plan.h"
#include "net/xdp.h"
#include "test.h"

/* The configuration under test and the last error message. */
extern struct tfo_config cfg;
extern char err[TFO_CFG_ERR];

/* cfg = the defaults, then @p text parsed over them: 0 or -errno (err). */
int
parse(const char *text);

/* parse() must refuse @p text with a one-line error containing @p needle. */
void
expect_error(const char *text, const char *needle);

/* parse() then tfo_config_validate(): its result, -1000 when @p text does
 * not parse. */
int
validate(const char *text);

#endif /* TFO_TEST_CONFIG_HARNESS_H */
