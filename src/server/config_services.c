/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the configuration's services, the start's first step:
 * each section's plugin loaded, then its keys handed to the service it
 * names (see config_services.h). Parsing (ops/config.c) only recorded
 * them, each with its line, so a refusal here reads as the parser's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/config.h"
#include "server/config_services.h"
#include "tfo/log.h"
#include "tfo/service.h"

#define SVC_WHY 160

/* Refuse key @p k of section @p s for @p why, as the parser would have. */
static int
svc_refuse(const struct tfo_config *c, const struct tfo_cfg_service *s, unsigned int k,
	   const char *why, unsigned int *line, char *err, size_t errlen)
{
	char sec[64];

	snprintf(sec, sizeof(sec), "service %s", s->name);
	if (line != NULL)
		*line = s->kv[k].line;
	return tfo_config_key_error(c, s->kv[k].line, sec, s->kv[k].key, s->kv[k].value, why,
				    err, errlen);
}

/* Load the plugin of @p s, if it has one; its path becomes the real one. */
static int
svc_plugin(struct tfo_config *c, struct tfo_cfg_service *s, unsigned int *line,
	   char *err, size_t errlen)
{
	char path[PATH_MAX * 2], real[PATH_MAX], sec[64], why[SVC_WHY];

	if (s->plugin[0] == '\0')
		return 0;
	if (s->plugin[0] == '/' || c->base_dir[0] == '\0')
		snprintf(path, sizeof(path), "%s", s->plugin);
	else	/* parsing refused a joined path longer than PATH_MAX */
		snprintf(path, sizeof(path), "%s/%s", c->base_dir, s->plugin);
	if (tfo_service_plugin_load(path, s->name, why, sizeof(why)) < 0) {
		snprintf(sec, sizeof(sec), "service %s", s->name);
		if (line != NULL)
			*line = s->plugin_line;
		return tfo_config_key_error(c, s->plugin_line, sec, "plugin", s->plugin, why,
					    err, errlen);
	}
	/* the real path, so that --print-config's output loads from anywhere */
	if (realpath(path, real) != NULL)
		strcpy(s->plugin, real);
	return 0;
}

/* "no service named" and the services this binary has, into @p why. */
static void
svc_unknown(const char *name, char *why, size_t whylen)
{
	char known[128] = "";

	for (const struct tfo_service *r = tfo_service_first(); r != NULL; r = r->next) {
		strncat(known, " ", sizeof(known) - strlen(known) - 1);
		strncat(known, r->name, sizeof(known) - strlen(known) - 1);
	}
	tfo_errmsg(why, whylen, "no service named '%s' (built in:%s; one built out of tree "
		   "needs `plugin = PATH.so` first in its section)", name,
		   known[0] ? known : " none");
}

/* Why service @p svc refuses key @p k of @p s (port and udp among them), or 0. */
static int
svc_key_check(const struct tfo_service *svc, const struct tfo_cfg_service *s, unsigned int k,
	      char *why, size_t whylen)
{
	const char *key = s->kv[k].key, *value = s->kv[k].value;
	bool b = false;

	if (strcmp(key, "port") == 0)
		return 0;	/* its grammar is the parser's, s->port set */
	if (strcmp(key, "udp") == 0) {
		tfo_config_parse_bool(value, &b);	/* the parser checked it */
		if (b && !svc->udp_ok)
			return tfo_errmsg(why, whylen, "service %s does not serve UDP "
					  "(udp = on is for services that declare udp_ok)",
					  s->name);
		return 0;
	}
	if (!tfo_service_key_ok(svc, key))
		return tfo_errmsg(why, whylen, "unknown key for service %s", s->name);
	if (svc->check_key != NULL && svc->check_key(key, value, why, whylen) < 0)
		return -EINVAL;
	return 0;
}

/*
 * Hand service @p svc the keys of @p s in order, and keep its own: port
 * and udp set the section's fields; a key said twice that the service does
 * not repeat keeps its first place, with its last value.
 */
static int
svc_keys(const struct tfo_config *c, const struct tfo_service *svc,
	 struct tfo_cfg_service *s, unsigned int *line, char *err, size_t errlen)
{
	char why[SVC_WHY];
	unsigned int n = 0;

	for (unsigned int k = 0; k < s->nb_kv; k++) {
		const char *key = s->kv[k].key;
		unsigned int j = 0;

		if (svc_key_check(svc, s, k, why, sizeof(why)) < 0)
			return svc_refuse(c, s, k, why, line, err, errlen);
		if (strcmp(key, "udp") == 0)
			tfo_config_parse_bool(s->kv[k].value, &s->udp);
		if (strcmp(key, "port") == 0 || strcmp(key, "udp") == 0)
			continue;
		while (j < n && (tfo_service_key_repeats(svc, key) ||
				 strcmp(s->kv[j].key, key) != 0))
			j++;
		if (j == n && n == TFO_SERVICE_MAX_KV) {
			tfo_errmsg(why, sizeof(why), "more than %d keys", TFO_SERVICE_MAX_KV);
			return svc_refuse(c, s, k, why, line, err, errlen);
		}
		if (j != k)
			s->kv[j] = s->kv[k];
		n += j == n;
	}
	/* checked: where each key was written matters no more, and a loaded
	 * section is the same whichever file or --set it came from */
	memset(&s->kv[n], 0, (s->nb_kv - n) * sizeof(s->kv[0]));
	for (unsigned int k = 0; k < n; k++)
		s->kv[k].line = 0;
	s->plugin_line = 0;
	s->nb_kv = n;
	return 0;
}

int
tfo_config_services_load(struct tfo_config *c, unsigned int *line, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < c->nb_services; i++) {
		struct tfo_cfg_service *s = &c->services[i];
		const struct tfo_service *svc;
		char why[SVC_WHY];

		if (s->loaded)
			continue;
		if (svc_plugin(c, s, line, err, errlen) < 0)
			return -EINVAL;
		svc = tfo_service_find(s->name);
		if (svc == NULL) {
			/* parsing creates a section with its first key */
			svc_unknown(s->name, why, sizeof(why));
			return svc_refuse(c, s, 0, why, line, err, errlen);
		}
		if (svc_keys(c, svc, s, line, err, errlen) < 0)
			return -EINVAL;
		s->loaded = true;
	}
	return 0;
}

void
tfo_config_service_args(const struct tfo_config *c, const struct tfo_cfg_service *cs,
			int socket_id, struct tfo_service_kv *kv,
			struct tfo_service_args *a)
{
	for (unsigned int k = 0; k < cs->nb_kv; k++) {
		kv[k].key = cs->kv[k].key;
		kv[k].value = cs->kv[k].value;
	}
	*a = (struct tfo_service_args){
		.port = cs->port,
		.udp = cs->udp,
		.nb_kv = cs->nb_kv,
		.kv = kv,
		.base_dir = c->base_dir,
		.socket_id = socket_id,
		.max_request = c->max_request,
	};
}


void
tfo_config_help_services(FILE *f)
{
	for (const struct tfo_service *s = tfo_service_first(); s != NULL; s = s->next) {
		fprintf(f, "  %s: %s\n    keys: port", s->name, s->help ? s->help : "");
		if (s->udp_ok)
			fprintf(f, ", udp (on: answers UDP datagrams to port too)");
		for (const char *const *k = s->keys; k != NULL && *k != NULL; k++)
			fprintf(f, ", %s", *k);
		fputc('\n', f);
	}
}
