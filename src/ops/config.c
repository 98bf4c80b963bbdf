/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the configuration's grammar: parsing keys and sections,
 * defaults, --set overrides. The key table, dump and help are
 * config_keys.c's; reading a file is config_file.c's; the checks of the
 * whole configuration are the assembly's (server/config_check.c).
 *
 * One table (tfo_keys) describes every scalar key: where it lives, its
 * range, default and help. Parsing, --set overrides, --help-config and the
 * dump all read it, so they cannot disagree.
 *
 * The ground floor: parsing reads no layer above it and loads nothing. A
 * [service NAME] section is recorded as written, each key with its line;
 * the assembly loads its plugin and hands the service its keys to check
 * (server/config_services.c), in the same words (tfo_config_key_error).
 */
#include <arpa/inet.h>
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_common.h>
#include <rte_debug.h>

#include "ops/config.h"
#include "ops/paths.h"
#include "tfo/log.h"

#include "ops/config_priv.h"


/* String keys with a fixed set of values, checked as they are read. */
static int
tfo_key_check_str(const struct tfo_key_desc *k, const char *value, char *why,
		  size_t whylen)
{
	if (strcmp(k->section, "tfo") == 0 && strcmp(k->key, "cookie_algo") == 0 &&
	    strcasecmp(value, "aes128") != 0 && strcasecmp(value, "siphash-linux") != 0)
		return tfo_errmsg(why, whylen, "expected aes128 or siphash-linux");
	return 0;
}

/*
 * A decimal integer in [min, max]: digits only, no sign, no leading zero.
 * C's base detection read "010" as 8 and "0x10" as 16; both are refused
 * rather than read as decimal, so that a file written for the old reading
 * cannot change meaning without a word.
 */
static int
tfo_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	for (const char *d = s; *d != '\0'; d++)
		if (!isdigit((unsigned char)*d))
			return -EINVAL;
	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Why @p s was refused when it looks like C's octal or hex, else "". */
static const char *
tfo_int_hint(const char *s)
{
	return s[0] == '0' && s[1] != '\0' ? " (decimal, without leading zeros)" : "";
}

/* The one boolean grammar of every boolean key, for messages. */
#define TFO_BOOL_EXPECTED "expected yes or no (or on/off, true/false, 1/0; any case)"

/* Every boolean key: yes/no, on/off, true/false, 1/0, in any case. */
static int
tfo_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (unsigned int i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int
tfo_config_parse_bool(const char *s, bool *out)
{
	return tfo_parse_bool(s, out);
}

int
tfo_parse_addr(const char *s, struct tfo_local_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;
	uint64_t prefix;
	int max;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash++ = '\0';
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, buf, a->addr.b) == 1) {
		a->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, a->addr.b) == 1) {
		a->family = AF_INET6;
		max = 128;
	} else {
		return -EINVAL;
	}
	if (slash == NULL) {
		a->prefix_len = (uint8_t)max;
		return 0;
	}
	if (tfo_parse_u64(slash, 0, (uint64_t)max, &prefix) < 0)
		return -EINVAL;
	a->prefix_len = (uint8_t)prefix;
	return 0;
}

/*
 * Why @p a cannot be one of our addresses, or NULL: the unspecified
 * address (0.0.0.0/0 would be every address), loopback, multicast, the
 * limited broadcast, and the network or broadcast address of its own
 * prefix (IPv6: the subnet-router anycast address, RFC 4291 2.6.1).
 */
static const char *
tfo_addr_not_host(const struct tfo_local_addr *a)
{
	static const uint8_t zero[16];
	static const uint8_t loop6[16] = { [15] = 1 };
	unsigned int bits = a->family == AF_INET ? 32 : 128;
	bool host_zero = true, host_ones = true;

	if (memcmp(a->addr.b, zero, bits / 8) == 0)
		return "the unspecified address, not one of ours";
	if (a->family == AF_INET) {
		if (a->addr.b[0] == 127)
			return "a loopback address";
		if (a->addr.b[0] >= 224 && a->addr.b[0] <= 239)
			return "a multicast address";
		if (memcmp(a->addr.b, "\xff\xff\xff\xff", 4) == 0)
			return "the broadcast address";
	} else {
		if (memcmp(a->addr.b, loop6, 16) == 0)
			return "a loopback address";
		if (a->addr.b[0] == 0xff)
			return "a multicast address";
	}
	/* /31 and /32 (IPv6: /127, /128) have no network or broadcast address */
	if (a->prefix_len + 1u >= bits)
		return NULL;
	for (unsigned int i = a->prefix_len; i < bits; i++) {
		bool one = (a->addr.b[i / 8] >> (7 - i % 8)) & 1;

		host_zero = host_zero && !one;
		host_ones = host_ones && one;
	}
	if (host_zero)
		return a->family == AF_INET ? "the network address of its prefix, not a host's" :
		       "the subnet-router anycast address of its prefix, not a host's";
	if (host_ones && a->family == AF_INET)
		return "the broadcast address of its prefix, not a host's";
	return NULL;
}

const char *
tfo_addr_str(int family, const struct tfo_addr *a, char *buf, size_t len)
{
	if (inet_ntop(family, a->b, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* Keys renamed since a release: a clear error that names the new key. */
static const struct {
	const char *section, *old, *now;
} tfo_renamed_keys[] = {
	{ "tcp", "wscale", "wscale_max" },
	{ "tcp", "rcv_wnd", "rcv_wnd_max" },
};

static const char *
tfo_key_renamed(const char *section, const char *key)
{
	for (unsigned int i = 0; i < RTE_DIM(tfo_renamed_keys); i++)
		if (strcmp(tfo_renamed_keys[i].section, section) == 0 &&
		    strcmp(tfo_renamed_keys[i].old, key) == 0)
			return tfo_renamed_keys[i].now;
	return NULL;
}

static const struct tfo_key_desc *
tfo_key_find(const char *section, const char *key)
{
	for (unsigned int i = 0; i < tfo_nb_keys; i++)
		if (strcmp(tfo_keys[i].section, section) == 0 &&
		    strcmp(tfo_keys[i].key, key) == 0)
			return &tfo_keys[i];
	return NULL;
}


/* "expected a, b or c" for an enum key, then @p tail. */
static int
tfo_enum_expected(const char *const *names, const char *tail, char *why, size_t whylen)
{
	char list[160] = "";
	size_t len = 0;
	unsigned int n = 0;

	while (names[n] != NULL)
		n++;
	for (unsigned int i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	return tfo_errmsg(why, whylen, "expected %s%s", list, tail);
}

static int
tfo_key_apply(struct tfo_config *c, const struct tfo_key_desc *k,
	      const char *value, char *why, size_t whylen)
{
	uint8_t *field = (uint8_t *)c + k->off;
	uint64_t v;
	bool b;

	switch (k->type) {
	case KT_U32:
	case KT_U16:
	case KT_U8:
		if (tfo_parse_u64(value, k->min, k->max, &v) < 0 &&
		    (tfo_key_zero(k) == NULL || tfo_parse_u64(value, 0, 0, &v) < 0)) {
			char range[96];

			tfo_key_range(k, range, sizeof(range));
			return tfo_errmsg(why, whylen, "expected %s%s%s",
					  tfo_key_zero(k) ? "" : "an integer in ", range,
					  tfo_int_hint(value));
		}
		if (k->type == KT_U32) {
			uint32_t v32 = (uint32_t)v;

			memcpy(field, &v32, sizeof(v32));
		} else if (k->type == KT_U16) {
			uint16_t v16 = (uint16_t)v;

			memcpy(field, &v16, sizeof(v16));
		} else {
			*field = (uint8_t)v;
		}
		return 0;
	case KT_BOOL:
		if (tfo_parse_bool(value, &b) < 0)
			return tfo_errmsg(why, whylen, TFO_BOOL_EXPECTED);
		memcpy(field, &b, sizeof(b));
		return 0;
	case KT_ENUM:
		for (unsigned int i = 0; k->names[i] != NULL; i++)
			if (strcasecmp(value, k->names[i]) == 0) {
				*field = (uint8_t)i;
				return 0;
			}
		/* the boolean of older configurations: yes was "when the
		 * control core is full", which auto now covers */
		if (tfo_parse_bool(value, &b) == 0 && k->names == tfo_syncookies_names) {
			*field = b ? TFO_SYNCOOKIES_AUTO : TFO_SYNCOOKIES_NO;
			return 0;
		}
		return tfo_enum_expected(k->names, k->names == tfo_syncookies_names ?
					 " (yes = auto)" : "", why, whylen);
	case KT_STR:
		if (strlen(value) >= k->size)
			return tfo_errmsg(why, whylen, "longer than %zu characters",
				       k->size - 1);
		if (tfo_key_check_str(k, value, why, whylen) < 0)
			return -EINVAL;
		strcpy((char *)field, value);
		/* an enum in all but its type: stored as its name is spelt */
		if (strcmp(k->key, "cookie_algo") == 0)
			for (char *ch = (char *)field; *ch != '\0'; ch++)
				*ch = (char)tolower((unsigned char)*ch);
		return 0;
	}
	return tfo_errmsg(why, whylen, "internal: bad key type");
}

void
tfo_config_defaults(struct tfo_config *c)
{
	char why[64];

	memset(c, 0, sizeof(*c));
	snprintf(c->source, sizeof(c->source), "(defaults)");
	/* the embedded configuration's www/ and zones/: the source tree's for
	 * a binary in its build tree, else the installed ones (paths.h) */
	tfo_paths_base_dir(NULL, c->base_dir, sizeof(c->base_dir));
	for (unsigned int i = 0; i < tfo_nb_keys; i++)
		if (tfo_key_apply(c, &tfo_keys[i], tfo_keys[i].def, why,
				  sizeof(why)) < 0)
			rte_panic("config: default of %s.%s: %s\n",
				  tfo_keys[i].section, tfo_keys[i].key, why);
}

static struct tfo_cfg_port *
tfo_port_get(struct tfo_config *c, const char *device, char *why, size_t whylen)
{
	struct tfo_cfg_port *p;

	for (unsigned int i = 0; i < c->nb_ports; i++)
		if (strcmp(c->ports[i].device, device) == 0)
			return &c->ports[i];
	if (c->nb_ports == TFO_MAX_PORTS) {
		tfo_errmsg(why, whylen, "more than %d ports", TFO_MAX_PORTS);
		return NULL;
	}
	if (*device == '\0' || strlen(device) >= sizeof(p->device) ||
	    strpbrk(device, " \t") != NULL) {
		tfo_errmsg(why, whylen, "bad device name (one word, at most %zu characters)",
			   sizeof(p->device) - 1);
		return NULL;
	}
	p = &c->ports[c->nb_ports++];
	memset(p, 0, sizeof(*p));
	strcpy(p->device, device);
	p->mtu = 1500;
	p->rx_desc = 1024;
	p->exception_pps = 10000;
	p->tx_desc = 1024;
	p->offload = TFO_OFFLOAD_AUTO;
	return p;
}

/* [port] keys with a fixed set of values: a value's index is its enum's */
static const char *const tfo_xdp_names[] = { "auto", "own", "off", NULL };
static const char *const tfo_tap_names[] = { "auto", "create", "attach", NULL };
static const char *const tfo_rss_names[] = { "device", "peer", NULL };
static const char *const tfo_offload_names[] = { "auto", "off", NULL };
static_assert(TFO_XDP_OWN == 1 && TFO_XDP_OFF == 2 && TFO_TAP_CREATE == 1 &&
	      TFO_TAP_ATTACH == 2 && TFO_RSS_PEER == 1 && TFO_OFFLOAD_OFF == 1,
	      "a [port] enum's values are its names' indexes");

static const struct {
	const char *key;
	size_t off;			/* its uint8_t in struct tfo_cfg_port */
	const char *const *names;
	const char *expected;		/* for the message, in the help's order */
} tfo_port_enums[] = {
	{ "xdp", offsetof(struct tfo_cfg_port, xdp), tfo_xdp_names, "own, off or auto" },
	{ "tap", offsetof(struct tfo_cfg_port, tap), tfo_tap_names, "auto, create or attach" },
	{ "rss", offsetof(struct tfo_cfg_port, rss), tfo_rss_names, "device or peer" },
	{ "offload", offsetof(struct tfo_cfg_port, offload), tfo_offload_names, "auto or off" },
};

/* [port] integer keys: their ranges */
static const struct {
	const char *key;
	size_t off, size;		/* a uint16_t or uint32_t of struct tfo_cfg_port */
	uint64_t min, max;
} tfo_port_ints[] = {
	{ "mtu", offsetof(struct tfo_cfg_port, mtu), sizeof(uint16_t), 68, 9198 },
	{ "rx_desc", offsetof(struct tfo_cfg_port, rx_desc), sizeof(uint16_t), 32, 32768 },
	{ "tx_desc", offsetof(struct tfo_cfg_port, tx_desc), sizeof(uint16_t), 32, 32768 },
	{ "exception_pps", offsetof(struct tfo_cfg_port, exception_pps), sizeof(uint32_t),
	  1, 10000000 },
};

/* ipv4 = / ipv6 = : one more host address of ours on port @p p. */
static int
tfo_port_addr(struct tfo_cfg_port *p, int fam, const char *value, char *why, size_t whylen)
{
	struct tfo_local_addr a;
	const char *not_host;

	if (tfo_parse_addr(value, &a) < 0 || a.family != fam)
		return tfo_errmsg(why, whylen, "not an %s address[/prefix]",
				  fam == AF_INET ? "IPv4" : "IPv6");
	not_host = tfo_addr_not_host(&a);
	if (not_host != NULL)
		return tfo_errmsg(why, whylen, "%s", not_host);
	if (p->nb_addrs == TFO_MAX_PORT_ADDRS)
		return tfo_errmsg(why, whylen, "more than %d addresses on a port",
				  TFO_MAX_PORT_ADDRS);
	for (unsigned int i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].family == a.family &&
		    memcmp(&p->addrs[i].addr, &a.addr, sizeof(a.addr)) == 0)
			return tfo_errmsg(why, whylen, "address given twice");
	p->addrs[p->nb_addrs++] = a;
	return 0;
}

/* A [port] key of a table (enums, integers): 1 if @p key is none of theirs. */
static int
tfo_port_table_set(struct tfo_cfg_port *p, const char *key, const char *value,
		   char *why, size_t whylen)
{
	uint8_t *base = (uint8_t *)p;
	uint64_t v;

	for (unsigned int i = 0; i < RTE_DIM(tfo_port_enums); i++) {
		if (strcmp(key, tfo_port_enums[i].key) != 0)
			continue;
		for (unsigned int n = 0; tfo_port_enums[i].names[n] != NULL; n++)
			if (strcasecmp(value, tfo_port_enums[i].names[n]) == 0) {
				base[tfo_port_enums[i].off] = (uint8_t)n;
				return 0;
			}
		return tfo_errmsg(why, whylen, "expected %s", tfo_port_enums[i].expected);
	}
	for (unsigned int i = 0; i < RTE_DIM(tfo_port_ints); i++) {
		uint16_t v16;
		uint32_t v32;

		if (strcmp(key, tfo_port_ints[i].key) != 0)
			continue;
		if (tfo_parse_u64(value, tfo_port_ints[i].min, tfo_port_ints[i].max, &v) < 0)
			return tfo_errmsg(why, whylen, "expected an integer in %" PRIu64 "..%"
					  PRIu64 "%s", tfo_port_ints[i].min,
					  tfo_port_ints[i].max, tfo_int_hint(value));
		v16 = (uint16_t)v;
		v32 = (uint32_t)v;
		if (tfo_port_ints[i].size == sizeof(v16))
			memcpy(base + tfo_port_ints[i].off, &v16, sizeof(v16));
		else
			memcpy(base + tfo_port_ints[i].off, &v32, sizeof(v32));
		return 0;
	}
	return 1;
}

static int
tfo_port_set(struct tfo_cfg_port *p, const char *key, const char *value,
	     char *why, size_t whylen)
{
	int rc;

	if (strcmp(key, "vdev") == 0) {
		if (strlen(value) >= sizeof(p->vdev))
			return tfo_errmsg(why, whylen, "too long");
		strcpy(p->vdev, value);
		return 0;
	}
	if (strcmp(key, "ipv4") == 0 || strcmp(key, "ipv6") == 0)
		return tfo_port_addr(p, key[3] == '4' ? AF_INET : AF_INET6, value, why, whylen);
	if (strcmp(key, "syn_steering") == 0 || strcmp(key, "exception") == 0 ||
	    strcmp(key, "isolate") == 0) {
		bool *flag = key[0] == 's' ? &p->syn_steering :
			     key[0] == 'e' ? &p->exception : &p->isolate;

		if (tfo_parse_bool(value, flag) < 0)
			return tfo_errmsg(why, whylen, TFO_BOOL_EXPECTED);
		return 0;
	}
	if (strcmp(key, "exception_iface") == 0) {
		if (strlen(value) >= sizeof(p->exception_iface) ||
		    strpbrk(value, " ,=/") != NULL)
			return tfo_errmsg(why, whylen, "an interface name of at most %zu "
				       "characters, without space , = /",
				       sizeof(p->exception_iface) - 1);
		snprintf(p->exception_iface, sizeof(p->exception_iface), "%s", value);
		return 0;
	}
	rc = tfo_port_table_set(p, key, value, why, whylen);
	if (rc <= 0)
		return rc;
	return tfo_errmsg(why, whylen, "unknown key in a [port] section");
}

static struct tfo_cfg_service *
tfo_service_get(struct tfo_config *c, const char *name, char *why, size_t whylen)
{
	struct tfo_cfg_service *s;

	for (unsigned int i = 0; i < c->nb_services; i++)
		if (strcmp(c->services[i].name, name) == 0)
			return &c->services[i];
	if (c->nb_services == TFO_MAX_SERVICES) {
		tfo_errmsg(why, whylen, "more than %d services", TFO_MAX_SERVICES);
		return NULL;
	}
	if (*name == '\0' || strlen(name) >= sizeof(s->name)) {
		tfo_errmsg(why, whylen, "bad service name");
		return NULL;
	}
	s = &c->services[c->nb_services++];
	memset(s, 0, sizeof(*s));
	strcpy(s->name, name);
	return s;
}

/*
 * Record @p key of service section @p s as written, with its @p line: the
 * service checks its keys once the assembly has loaded it. Only what needs
 * no service is checked here: port and udp's grammar, the sizes.
 */
static int
tfo_service_set(struct tfo_cfg_service *s, const char *key, const char *value,
		unsigned int line, char *why, size_t whylen)
{
	uint64_t v;
	bool b;

	if (strcmp(key, "port") == 0) {
		if (tfo_parse_u64(value, 1, 65535, &v) < 0)
			return tfo_errmsg(why, whylen, "expected a TCP port 1..65535%s",
					  tfo_int_hint(value));
		s->port = (uint16_t)v;
	}
	if (strcmp(key, "udp") == 0 && tfo_parse_bool(value, &b) < 0)
		return tfo_errmsg(why, whylen, "expected a boolean (on/off, yes/no)");
	if (strlen(key) >= sizeof(s->kv[0].key) ||
	    strlen(value) >= sizeof(s->kv[0].value))
		return tfo_errmsg(why, whylen, "key or value too long");
	if (s->nb_kv == RTE_DIM(s->kv))
		return tfo_errmsg(why, whylen, "more than %d keys", TFO_SERVICE_MAX_KV);
	strcpy(s->kv[s->nb_kv].key, key);
	strcpy(s->kv[s->nb_kv].value, value);
	s->kv[s->nb_kv].line = line;
	s->nb_kv++;
	s->loaded = false;
	return 0;
}

/*
 * `plugin = PATH.so` (relative: from the configuration's directory),
 * recorded: the assembly loads it, so that the section's other keys are
 * checked by the service it registers. Hence it comes first in the section.
 */
static int
tfo_service_plugin_set(struct tfo_config *c, const char *name, const char *value,
		       unsigned int line, char *why, size_t whylen)
{
	struct tfo_cfg_service *s;
	size_t dir = value[0] == '/' || c->base_dir[0] == '\0' ? 0 : strlen(c->base_dir) + 1;

	for (unsigned int i = 0; i < c->nb_services; i++)
		if (strcmp(c->services[i].name, name) == 0 &&
		    strcmp(c->services[i].plugin, value) != 0)
			return tfo_errmsg(why, whylen, c->services[i].plugin[0] ?
					  "one plugin per section" :
					  "the section has keys already (or its service "
					  "is built in): plugin must come first");
	if (dir + strlen(value) >= PATH_MAX || strlen(value) >= sizeof(s->plugin))
		return tfo_errmsg(why, whylen, "path too long");
	s = tfo_service_get(c, name, why, whylen);
	if (s == NULL)
		return -EINVAL;
	snprintf(s->plugin, sizeof(s->plugin), "%s", value);
	s->plugin_line = line;
	s->loaded = false;
	return 0;
}

/* Split "port net_tap0" into kind "port" and name "net_tap0". */
static int
tfo_section_split(const char *section, char *kind, size_t klen,
		  const char **name)
{
	const char *sp = strchr(section, ' ');
	size_t n = sp ? (size_t)(sp - section) : strlen(section);

	if (n >= klen)
		return -EINVAL;
	memcpy(kind, section, n);
	kind[n] = '\0';
	*name = sp ? sp + 1 : NULL;
	while (*name != NULL && **name == ' ')
		(*name)++;
	return 0;
}

static int
tfo_config_set_why(struct tfo_config *c, const char *section, const char *key,
		   const char *value, unsigned int line, char *why, size_t whylen)
{
	char kind[16];
	const char *name;

	if (tfo_section_split(section, kind, sizeof(kind), &name) < 0)
		return tfo_errmsg(why, whylen, "unknown section");
	if (strcmp(kind, "port") == 0) {
		struct tfo_cfg_port *p;

		if (name == NULL || *name == '\0')
			return tfo_errmsg(why, whylen,
				       "a port section needs a device: [port NAME]");
		p = tfo_port_get(c, name, why, whylen);
		return p == NULL ? -EINVAL : tfo_port_set(p, key, value, why, whylen);
	}
	if (strcmp(kind, "service") == 0) {
		struct tfo_cfg_service *s;

		if (name == NULL || *name == '\0')
			return tfo_errmsg(why, whylen,
				       "a service section needs a name: [service NAME]");
		if (strcmp(key, "plugin") == 0)
			return tfo_service_plugin_set(c, name, value, line, why, whylen);
		s = tfo_service_get(c, name, why, whylen);
		return s == NULL ? -EINVAL : tfo_service_set(s, key, value, line, why, whylen);
	}
	if (name != NULL)
		return tfo_errmsg(why, whylen, "unknown section");
	{
		const struct tfo_key_desc *k = tfo_key_find(kind, key);

		if (k == NULL) {
			const char *now = tfo_key_renamed(kind, key);
			bool known_section = false;

			if (now != NULL)
				return tfo_errmsg(why, whylen, "renamed %s (it is a bound: "
						  "see --help-config)", now);

			for (unsigned int i = 0; i < tfo_nb_keys; i++)
				if (strcmp(tfo_keys[i].section, kind) == 0)
					known_section = true;
			return tfo_errmsg(why, whylen, known_section ? "unknown key" :
				       "unknown section");
		}
		return tfo_key_apply(c, k, value, why, whylen);
	}
}

static char *
tfo_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Section "[service  http ]" -> "service http". */
static void
tfo_section_normalize(char *s)
{
	char *out = s;
	bool space = false;

	for (char *in = s; *in; in++) {
		if (isspace((unsigned char)*in)) {
			space = out != s;
			continue;
		}
		if (space)
			*out++ = ' ';
		space = false;
		*out++ = *in;
	}
	*out = '\0';
}

/*
 * @p in for an error message, with bytes that do not show (controls,
 * anything outside ASCII: a stray byte order mark, a no-break space) as
 * \xNN, so that the message shows what is wrong with the line.
 */
static const char *
tfo_visible(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in != '\0' && o + 5 < len; in++) {
		unsigned char ch = (unsigned char)*in;

		if (ch < 0x20 || ch >= 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
	return out;
}

int
tfo_config_key_error(const struct tfo_config *c, unsigned int line, const char *section,
		     const char *key, const char *value, const char *why, char *err,
		     size_t errlen)
{
	char vsec[96 * 4], vkey[128], vis[256];

	if (line == 0)
		return tfo_errmsg(err, errlen, "[%s] %s = \"%s\": %s", section, key, value, why);
	return tfo_errmsg(err, errlen, "%s:%u: [%s] %s = \"%s\": %s", c->source, line,
			  tfo_visible(section, vsec, sizeof(vsec)),
			  tfo_visible(key, vkey, sizeof(vkey)),
			  tfo_visible(value, vis, sizeof(vis)), why);
}

/*
 * @p section, @p key and @p value as the file reads them: white space
 * trimmed, the section's words separated by one space ("port net_tap0 "
 * is "port net_tap0", not a device named with a trailing space).
 */
static int
tfo_config_words(const char *section, const char *key, const char *value,
		 char sec[96], char k[64], char v[TFO_CFG_STR * 4])
{
	if (strlen(section) >= 96 || strlen(key) >= 64 || strlen(value) >= TFO_CFG_STR * 4)
		return -EINVAL;
	strcpy(sec, section);
	tfo_section_normalize(sec);
	strcpy(k, key);
	memmove(k, tfo_trim(k), strlen(tfo_trim(k)) + 1);
	strcpy(v, value);
	memmove(v, tfo_trim(v), strlen(tfo_trim(v)) + 1);
	return 0;
}

int
tfo_config_set(struct tfo_config *c, const char *section, const char *key,
	       const char *value, char *err, size_t errlen)
{
	char why[160], sec[96], k[64], v[TFO_CFG_STR * 4];

	if (tfo_config_words(section, key, value, sec, k, v) < 0)
		return tfo_errmsg(err, errlen, "[%.64s] %.64s: section, key or value too long",
				  section, key);
	if (tfo_config_set_why(c, sec, k, v, 0, why, sizeof(why)) < 0)
		return tfo_config_key_error(c, 0, sec, k, v, why, err, errlen);
	return 0;
}

/* "net_tap0, 0000:01:00.0" (ports) or "echo, http" (services) into @p buf. */
static const char *
tfo_config_names(const struct tfo_config *c, bool ports, char *buf, size_t len)
{
	unsigned int n = ports ? c->nb_ports : c->nb_services;
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				      ports ? c->ports[i].device : c->services[i].name);
	if (n == 0)
		snprintf(buf, len, "none");
	return buf;
}

int
tfo_config_override(struct tfo_config *c, const char *section, const char *key,
		    const char *value, char *err, size_t errlen)
{
	char sec[96], k[64], v[TFO_CFG_STR * 4], kind[16], names[256];
	const char *name;
	bool port, found = false;

	if (tfo_config_words(section, key, value, sec, k, v) < 0 ||
	    tfo_section_split(sec, kind, sizeof(kind), &name) < 0 || name == NULL ||
	    (strcmp(kind, "port") != 0 && strcmp(kind, "service") != 0))
		return tfo_config_set(c, section, key, value, err, errlen);
	port = kind[0] == 'p';
	for (unsigned int i = 0; i < (port ? c->nb_ports : c->nb_services); i++)
		if (strcmp(port ? c->ports[i].device : c->services[i].name, name) == 0)
			found = true;
	/*
	 * A section the configuration does not have is a typo unless the key
	 * is the one that starts a section: a port's vdev (empty for a PCI
	 * device), a service's port or plugin. A configuration without any
	 * port gets its first one from any key (tests, --print-config).
	 */
	if (!found && !(port && c->nb_ports == 0) &&
	    !(port ? strcmp(k, "vdev") == 0 :
	      strcmp(k, "port") == 0 || strcmp(k, "plugin") == 0))
		return tfo_errmsg(err, errlen, "[%s] %s = \"%s\": the configuration has no "
				  "[%s]; its %s: %s (a new one starts with %s)", sec, k, v,
				  sec, port ? "ports" : "services",
				  tfo_config_names(c, port, names, sizeof(names)),
				  port ? "its vdev, empty for a PCI device" :
				  "its port = N, or plugin = PATH.so");
	return tfo_config_set(c, sec, k, v, err, errlen);
}

int
tfo_config_parse_string(struct tfo_config *c, const char *text,
			const char *source, char *err, size_t errlen)
{
	char section[96] = "";
	char line[1280];
	unsigned int lineno = 0;
	const char *p = tfo_skip_bom(text);

	snprintf(c->source, sizeof(c->source), "%s", source);
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *s, *eq, *key, *value, *cmt;
		char why[160], vis[256];

		lineno++;
		if (n >= sizeof(line))
			return tfo_errmsg(err, errlen, "%s:%u: line too long", source,
				       lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl ? 1 : 0);

		/* comments: ';' or '#' at the start of a line or after white
		 * space, to the end of the line; one inside a word ("a;b",
		 * devargs, paths) is part of the value */
		for (cmt = line; (cmt = strpbrk(cmt, ";#")) != NULL; cmt++)
			if (cmt == line || isspace((unsigned char)cmt[-1])) {
				*cmt = '\0';
				break;
			}
		s = tfo_trim(line);
		if (*s == '\0')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (end == NULL || tfo_trim(end + 1)[0] != '\0')
				return tfo_errmsg(err, errlen, "%s:%u: bad section header '%s'",
					       source, lineno, tfo_visible(s, vis, sizeof(vis)));
			*end = '\0';
			if (strlen(s + 1) >= sizeof(section))
				return tfo_errmsg(err, errlen, "%s:%u: section name too long",
					       source, lineno);
			strcpy(section, s + 1);
			tfo_section_normalize(section);
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL)
			return tfo_errmsg(err, errlen, "%s:%u: expected 'key = value', got '%s'",
				       source, lineno, tfo_visible(s, vis, sizeof(vis)));
		*eq = '\0';
		key = tfo_trim(s);
		value = tfo_trim(eq + 1);
		if (section[0] == '\0')
			return tfo_errmsg(err, errlen, "%s:%u: key '%s' before any [section]",
				       source, lineno, tfo_visible(key, vis, sizeof(vis)));
		if (tfo_config_set_why(c, section, key, value, lineno, why, sizeof(why)) < 0)
			return tfo_config_key_error(c, lineno, section, key, value, why, err,
						    errlen);
	}
	return 0;
}
