/* SPDX-License-Identifier: BSD-3-Clause
 * Shared pieces of the libFuzzer harnesses (see fuzz_common.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "fuzz_common.h"

void
fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FUZZ INVARIANT BROKEN %s:%d: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void
fz_eal_init(const char *prog, unsigned int mem_mb)
{
	static bool done;
	static char mem[16], prefix[64];
	char *args[16];
	int n = 0;

	if (done)
		return;
	snprintf(mem, sizeof(mem), "%u", mem_mb);
	snprintf(prefix, sizeof(prefix), "tfofuzz%d", (int)getpid());
	args[n++] = (char *)(uintptr_t)prog;
	args[n++] = (char *)(uintptr_t)"--no-huge";
	args[n++] = (char *)(uintptr_t)"-m";
	args[n++] = mem;
	args[n++] = (char *)(uintptr_t)"--no-shconf";
	args[n++] = (char *)(uintptr_t)"--no-pci";
	args[n++] = (char *)(uintptr_t)"--no-telemetry";
	args[n++] = (char *)(uintptr_t)"--file-prefix";
	args[n++] = prefix;
	args[n++] = (char *)(uintptr_t)"--log-level=*:error";
	args[n++] = (char *)(uintptr_t)"-l";
	args[n++] = (char *)(uintptr_t)"0";
	args[n] = NULL;
	if (rte_eal_init(n, args) < 0) {
		fprintf(stderr, "fuzz: rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
	done = true;
}

uint8_t
fz_u8(struct fz_in *in)
{
	uint8_t v;

	if (in->n == 0)
		return 0;
	v = in->p[0];
	in->p++;
	in->n--;
	return v;
}

uint16_t
fz_u16(struct fz_in *in)
{
	uint16_t lo = fz_u8(in);

	return (uint16_t)(lo | (uint16_t)fz_u8(in) << 8);
}

size_t
fz_take(struct fz_in *in, size_t want, const uint8_t **out)
{
	size_t k = want < in->n ? want : in->n;

	*out = in->p;
	in->p += k;
	in->n -= k;
	return k;
}

uint8_t *
fz_dup(const uint8_t *data, size_t len)
{
	uint8_t *b = malloc(len ? len : 1);

	if (b == NULL)
		abort();
	if (len)
		memcpy(b, data, len);
	return b;
}

long fz_ext_live;

static void
fz_ext_free(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
	fz_ext_live--;
}

static struct rte_mbuf *
fz_seg(struct rte_mempool *pool, const uint8_t *data, uint32_t len, bool exact)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return NULL;
	if (exact) {
		struct rte_mbuf_ext_shared_info *sh = malloc(sizeof(*sh));
		uint8_t *buf = fz_dup(data, len);

		if (sh == NULL)
			abort();
		memset(sh, 0, sizeof(*sh));
		sh->free_cb = fz_ext_free;
		sh->fcb_opaque = sh;
		rte_mbuf_ext_refcnt_set(sh, 1);
		fz_ext_live++;
		rte_pktmbuf_attach_extbuf(m, buf, RTE_BAD_IOVA, (uint16_t)len, sh);
		m->data_off = 0;
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		return m;
	}
	if (len > rte_pktmbuf_tailroom(m)) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), data, len);
	return m;
}

struct rte_mbuf *
fz_frame(struct rte_mempool *pool, const uint8_t *data, uint32_t len, bool exact,
	 uint32_t split)
{
	struct rte_mbuf *m, *t;

	if (len > UINT16_MAX)
		len = UINT16_MAX;
	if (split == 0 || split >= len)
		split = len;
	m = fz_seg(pool, data, split, exact);
	if (m == NULL || split == len)
		return m;
	t = fz_seg(pool, data + split, len - split, exact);
	if (t == NULL || rte_pktmbuf_chain(m, t) != 0) {
		rte_pktmbuf_free(t);
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}
