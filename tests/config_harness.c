/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the configuration tests' harness (config_harness.h).
 */
#include "config_harness.h"

struct tfo_config cfg;
char err[TFO_CFG_ERR];

int
parse(const char *text)
{
	int rc;

	tfo_config_defaults(&cfg);
	err[0] = '\0';
	/* as a start does: parse, then load the services and hand them their
	 * keys (a refused key reads the same either way) */
	rc = tfo_config_parse_string(&cfg, text, "t.ini", err, sizeof(err));
	return rc < 0 ? rc : tfo_config_services_load(&cfg, NULL, err, sizeof(err));
}

void
expect_error(const char *text, const char *needle)
{
	int rc = parse(text);

	CHECK_MSG(rc == -EINVAL, "accepted: %s", text);
	CHECK_MSG(strstr(err, needle) != NULL, "error '%s' lacks '%s'", err, needle);
	CHECK_MSG(strchr(err, '\n') == NULL, "error is not one line: %s", err);
}

int
validate(const char *text)
{
	if (parse(text) != 0)
		return -1000;	/* not what any CHECK_EQ expects */
	err[0] = '\0';
	return tfo_config_validate(&cfg, err, sizeof(err));
}
