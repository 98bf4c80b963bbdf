/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's wire vocabulary (dns_wire.h): names in
 * wire form (length, labels, lower case, inclusion, canonical order,
 * presentation both ways) and a key's decimal value. No DPDK: the
 * configuration check and the fuzzers use it too.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dns_wire.h"

unsigned int
dns_name_len(const uint8_t *n)
{
	const uint8_t *p = n;

	while (*p != 0)
		p += *p + 1;
	return (unsigned int)(p - n) + 1;
}

unsigned int
dns_name_labels(const uint8_t *n)
{
	unsigned int c = 0;

	for (; *n != 0; n += *n + 1)
		c++;
	return c;
}

unsigned int
dns_name_lower(uint8_t *out, const uint8_t *n)
{
	unsigned int len = dns_name_len(n);

	for (unsigned int i = 0; i < len; i++)
		out[i] = (uint8_t)tolower(n[i]);
	/* label lengths are < 64: tolower leaves them alone */
	return len;
}

bool
dns_name_under(const uint8_t *n, const uint8_t *zone)
{
	unsigned int nl = dns_name_len(n), zl = dns_name_len(zone);
	const uint8_t *p = n;

	while (nl > zl) {
		nl -= *p + 1u;
		p += *p + 1;
	}
	return nl == zl && memcmp(p, zone, zl) == 0;
}

void
dns_name_str(const uint8_t *n, char *out, size_t cap)
{
	size_t o = 0;

	if (cap == 0)
		return;
	if (*n == 0 && cap > 1)
		out[o++] = '.';
	for (; *n != 0 && o + 6 < cap; n += *n + 1) {
		for (unsigned int i = 1; i <= *n && o + 6 < cap; i++) {
			uint8_t c = n[i];

			if (c == '.' || c == '\\')
				o += (size_t)snprintf(out + o, cap - o, "\\%c", c);
			else if (c <= ' ' || c >= 0x7f)
				o += (size_t)snprintf(out + o, cap - o, "\\%03u", c);
			else
				out[o++] = (char)c;
		}
		out[o++] = '.';
	}
	out[o] = '\0';
}

int
dns_text_unescape(const char *s, size_t len, size_t *i, uint8_t *c)
{
	if (*i + 1 >= len)
		return -EINVAL;
	if (isdigit((unsigned char)s[*i + 1])) {
		unsigned int v = 0;

		for (int k = 1; k <= 3; k++) {
			if (*i + (size_t)k >= len || !isdigit((unsigned char)s[*i + (size_t)k]))
				return -EINVAL;
			v = v * 10 + (unsigned int)(s[*i + (size_t)k] - '0');
		}
		if (v > 255)
			return -EINVAL;
		*c = (uint8_t)v;
		*i += 4;
		return 0;
	}
	*c = (uint8_t)s[*i + 1];
	*i += 2;
	return 0;
}

int
dns_name_from_text(const char *s, size_t len, const uint8_t *origin, uint8_t *out)
{
	unsigned int o = 0, lab = 0;
	size_t i = 0;
	bool absolute = false;

	if (len == 1 && s[0] == '@') {
		if (origin == NULL)
			return -EINVAL;
		memcpy(out, origin, dns_name_len(origin));
		return (int)dns_name_len(origin);
	}
	if (len == 1 && s[0] == '.') {
		out[0] = 0;
		return 1;
	}
	if (len == 0)
		return -EINVAL;
	out[0] = 0;
	while (i < len) {
		uint8_t c;

		if (s[i] == '.') {
			if (out[lab] == 0)
				return -EINVAL;	/* empty label */
			i++;
			if (i == len) {
				absolute = true;
				break;
			}
			lab = o + 1 + out[lab];
			o = lab;
			if (o >= DNS_NAME_MAX - 1)
				return -EINVAL;
			out[lab] = 0;
			continue;
		}
		if (s[i] == '\\') {
			if (dns_text_unescape(s, len, &i, &c) < 0)
				return -EINVAL;
		} else {
			c = (uint8_t)s[i++];
		}
		if (out[lab] == 63 || lab + 1u + out[lab] + 1u >= DNS_NAME_MAX - 1)
			return -EINVAL;
		out[lab + 1 + out[lab]] = c;
		out[lab]++;
	}
	o = lab + 1u + out[lab];
	if (absolute) {
		out[o] = 0;
		return (int)o + 1;
	}
	if (origin == NULL)
		return -EINVAL;
	if (o + dns_name_len(origin) > DNS_NAME_MAX)
		return -EINVAL;
	memcpy(out + o, origin, dns_name_len(origin));
	return (int)(o + dns_name_len(origin));
}

int
dns_name_canon_cmp(const uint8_t *a, const uint8_t *b)
{
	const uint8_t *la[128], *lb[128];
	unsigned int na = 0, nb = 0;

	for (; *a != 0 && na < 128; a += *a + 1)
		la[na++] = a;
	for (; *b != 0 && nb < 128; b += *b + 1)
		lb[nb++] = b;
	/* labels from the root, each as lower-case bytes (already) */
	while (na > 0 && nb > 0) {
		const uint8_t *x = la[--na], *y = lb[--nb];
		int c = memcmp(x + 1, y + 1, *x < *y ? *x : *y);

		if (c != 0)
			return c;
		if (*x != *y)
			return *x < *y ? -1 : 1;
	}
	return na == nb ? 0 : (na < nb ? -1 : 1);
}

int
dns_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (!isdigit((unsigned char)v[0]) || errno != 0 || *end != '\0' || x < lo || x > hi)
		return -EINVAL;
	*out = (uint32_t)x;
	return 0;
}
