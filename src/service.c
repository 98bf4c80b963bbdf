/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the service registry (filled by constructors before main).
 */
#include <string.h>

#include "tfo/service.h"

static struct tfo_service *tfo_services;

void
tfo_service_register(struct tfo_service *s)
{
	s->next = tfo_services;
	tfo_services = s;
}

const struct tfo_service *
tfo_service_first(void)
{
	return tfo_services;
}

const struct tfo_service *
tfo_service_find(const char *name)
{
	for (const struct tfo_service *s = tfo_services; s != NULL; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

int
tfo_service_key_ok(const struct tfo_service *s, const char *key)
{
	if (strcmp(key, "port") == 0)
		return 1;
	for (const char *const *k = s->keys; k != NULL && *k != NULL; k++)
		if (strcmp(*k, key) == 0)
			return 1;
	return 0;
}

const char *
tfo_service_arg(const struct tfo_service_args *a, const char *key,
		const char *def)
{
	/* the last occurrence wins, as in the INI file */
	const char *v = def;

	for (unsigned int i = 0; i < a->nb_kv; i++)
		if (strcmp(a->kv[i].key, key) == 0)
			v = a->kv[i].value;
	return v;
}
