/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the lcores and memory a start needs, before the EAL
 * (see start_plan.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "cookie/cookie.h"
#include "lcore/control.h"
#include "lcore/worker.h"
#include "net/xdp.h"
#include "net/xdp_pool.h"
#include "server/start_plan.h"
#include "tfo/log.h"

#define MIB (1024u * 1024u)
#define PAGE_2M (2u * MIB)
#define PAGE_4K 4096u

/* Bytes a PMD allocates per descriptor: the descriptor and its software
 * ring entry (ice, i40e, mlx5: 16-64 bytes together); generous. */
#define PLAN_DESC_BYTES 64u

/* Bytes in MiB, rounded up. */
static unsigned long long
mib(uint64_t b)
{
	return (unsigned long long)((b + MIB - 1) / MIB);
}

/* ---- the EAL arguments --------------------------------------------------- */

/* Parse a number at *s; -1 when there is none. */
static long
lay_num(const char **s)
{
	char *end;
	long v;

	if (**s < '0' || **s > '9')
		return -1;
	v = strtol(*s, &end, 10);
	*s = end;
	return v;
}

/*
 * Add the set at *s to @p set: "N", "N-M", or "(A,B-C,...)" (--lcores);
 * stops after it. @return 0 or -EINVAL.
 */
static int
lay_set(const char **s, bool set[RTE_MAX_LCORE], int *first)
{
	bool paren = **s == '(';

	if (paren)
		(*s)++;
	do {
		long a, b;

		if (paren && **s == ',')
			(*s)++;
		a = lay_num(s);
		b = a;
		if (**s == '-') {
			(*s)++;
			b = lay_num(s);
		}
		if (a < 0 || b < a || b >= RTE_MAX_LCORE)
			return -EINVAL;
		for (long i = a; i <= b; i++) {
			set[i] = true;
			if (*first < 0 || i < *first)
				*first = (int)i;
		}
	} while (paren && **s == ',');
	if (paren && *(*s)++ != ')')
		return -EINVAL;
	return 0;
}

/* --lcores LCORES[@CPUS],...: each lcore of the set on the first CPU of
 * its CPU set (its own number without one); -l LIST is the case without
 * CPU sets. */
static int
lay_lcores(const char *arg, bool set[RTE_MAX_LCORE], int cpu[RTE_MAX_LCORE])
{
	const char *s = arg;

	while (*s != '\0') {
		bool lc[RTE_MAX_LCORE] = { false }, cpus[RTE_MAX_LCORE] = { false };
		int first = -1, first_cpu = -1;

		if (lay_set(&s, lc, &first) < 0)
			return -EINVAL;
		if (*s == '@') {
			s++;
			if (lay_set(&s, cpus, &first_cpu) < 0)
				return -EINVAL;
		}
		for (int i = 0; i < RTE_MAX_LCORE; i++)
			if (lc[i]) {
				set[i] = true;
				cpu[i] = first_cpu >= 0 ? first_cpu : i;
			}
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -EINVAL;
	}
	return 0;
}

/* -c MASK (hex). */
static int
lay_mask(const char *arg, bool set[RTE_MAX_LCORE], int cpu[RTE_MAX_LCORE])
{
	size_t n;
	int bit = 0;

	if (arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X'))
		arg += 2;
	n = strlen(arg);
	if (n == 0)
		return -EINVAL;
	for (size_t k = n; k-- > 0; bit += 4) {
		char ch = arg[k];
		int v = ch >= '0' && ch <= '9' ? ch - '0' :
			ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
			ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;

		if (v < 0)
			return -EINVAL;
		for (int b = 0; b < 4; b++)
			if ((v >> b) & 1) {
				if (bit + b >= RTE_MAX_LCORE)
					return -EINVAL;
				set[bit + b] = true;
				cpu[bit + b] = bit + b;
			}
	}
	return 0;
}

/* --socket-mem A,B,...: MiB per socket. */
static int
lay_socket_mem(const char *arg, struct tfo_eal_layout *l)
{
	const char *s = arg;

	for (int so = 0; *s != '\0'; so++) {
		long v = lay_num(&s);

		if (v < 0 || so >= TFO_PLAN_SOCKETS)
			return -EINVAL;
		l->socket_mem_mb[so] = (uint64_t)v;
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -EINVAL;
	}
	l->has_socket_mem = true;
	return 0;
}

/* The value of option @p name at argv[*i] ("--opt V", "--opt=V", "-lV"). */
static const char *
lay_value(int argc, char *const argv[], int *i, const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '\0')
		return *i + 1 < argc ? argv[++*i] : "";
	if (a[n] == '=')
		return a + n + 1;
	if (name[1] != '-')	/* -l0-3: a short option's glued value */
		return a + n;
	return NULL;
}

int
tfo_eal_layout_parse(int argc, char *const argv[], struct tfo_eal_layout *l,
		     char *err, size_t errlen)
{
	bool set[RTE_MAX_LCORE] = { false };
	int cpu[RTE_MAX_LCORE], main_lcore = -1;

	memset(l, 0, sizeof(*l));
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i], *v;
		int rc = 0;

		if ((v = lay_value(argc, argv, &i, "--lcores")) != NULL) {
			memset(set, 0, sizeof(set));
			rc = lay_lcores(v, set, cpu);
			snprintf(l->lcores_arg, sizeof(l->lcores_arg), "--lcores %s", v);
		} else if ((v = lay_value(argc, argv, &i, "--main-lcore")) != NULL) {
			main_lcore = atoi(v);
		} else if ((v = lay_value(argc, argv, &i, "--socket-mem")) != NULL) {
			rc = lay_socket_mem(v, l);
		} else if (strcmp(argv[i], "--no-huge") == 0) {
			l->no_huge = true;
		} else if (strncmp(argv[i], "--syslog", 8) == 0 &&
			   (argv[i][8] == '\0' || argv[i][8] == '=')) {
			l->syslog = true;
		} else if (argv[i][0] != '-' || argv[i][1] == '-') {
			continue;	/* another long option, or its value */
		} else if ((v = lay_value(argc, argv, &i, "-l")) != NULL) {
			memset(set, 0, sizeof(set));
			rc = lay_lcores(v, set, cpu);
			snprintf(l->lcores_arg, sizeof(l->lcores_arg), "-l %s", v);
		} else if ((v = lay_value(argc, argv, &i, "-c")) != NULL) {
			memset(set, 0, sizeof(set));
			rc = lay_mask(v, set, cpu);
			snprintf(l->lcores_arg, sizeof(l->lcores_arg), "-c %s", v);
		} else if ((v = lay_value(argc, argv, &i, "-m")) != NULL) {
			l->mem_mb = strtoull(v, NULL, 10);
		} else {
			continue;
		}
		if (rc < 0)
			return tfo_errmsg(err, errlen, "EAL argument %s %s: not a list of "
					  "lcores or sizes the EAL would take", opt,
					  v == opt ? "" : v);
	}
	if (l->lcores_arg[0] == '\0') {
		/* the EAL's default: every CPU this process may run on */
		cpu_set_t cs;

		if (sched_getaffinity(0, sizeof(cs), &cs) == 0)
			for (int c = 0; c < RTE_MAX_LCORE && c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &cs)) {
					set[c] = true;
					cpu[c] = c;
				}
		snprintf(l->lcores_arg, sizeof(l->lcores_arg), "(no -l: every CPU)");
	}
	if (main_lcore >= 0 && (main_lcore >= RTE_MAX_LCORE || !set[main_lcore]))
		return tfo_errmsg(err, errlen, "EAL argument --main-lcore %d: not among "
				  "the lcores of %s", main_lcore, l->lcores_arg);
	for (int i = 0; i < RTE_MAX_LCORE && main_lcore < 0; i++)
		if (set[i])
			main_lcore = i;
	if (main_lcore < 0)
		return tfo_errmsg(err, errlen, "EAL arguments %s: no lcore", l->lcores_arg);
	l->lcore[0] = (unsigned int)main_lcore;
	l->cpu[0] = cpu[main_lcore];
	l->nb_lcores = 1;
	for (int i = 0; i < RTE_MAX_LCORE; i++)
		if (set[i] && i != main_lcore) {
			l->lcore[l->nb_lcores] = (unsigned int)i;
			l->cpu[l->nb_lcores++] = cpu[i];
		}
	return 0;
}

void
tfo_eal_layout_from_eal(struct tfo_eal_layout *l)
{
	unsigned int lcore;

	memset(l, 0, sizeof(*l));
	snprintf(l->lcores_arg, sizeof(l->lcores_arg), "the EAL's lcores");
	l->no_huge = !rte_eal_has_hugepages();
	l->lcore[0] = rte_get_main_lcore();
	l->nb_lcores = 1;
	RTE_LCORE_FOREACH_WORKER(lcore)
		l->lcore[l->nb_lcores++] = lcore;
	for (unsigned int i = 0; i < l->nb_lcores; i++) {
		unsigned int so = rte_lcore_to_socket_id(l->lcore[i]);

		l->cpu[i] = -1;
		l->socket[i] = so < TFO_PLAN_SOCKETS ? (int)so : 0;
	}
}

void
tfo_mem_plan_log(const struct tfo_eal_layout *l, const struct tfo_mem_plan *p)
{
	if (l->no_huge) {
		TFO_LOG(INFO, "memory needed at start: %llu MiB (-m with --no-huge; "
			"--print-config has the parts)", mib(p->total));
		return;
	}
	for (int so = 0; so < TFO_PLAN_SOCKETS; so++)
		if (p->s[so].total != 0)
			TFO_LOG(INFO, "memory needed at start on socket %d: %llu MiB (%u "
				"hugepages of 2 MiB; --print-config has the parts)", so,
				mib(p->s[so].total), p->s[so].pages);
}

unsigned int
tfo_mem_plan_log_taken(const struct tfo_mem_plan *p)
{
	unsigned int over = 0;

	for (int so = 0; so < TFO_PLAN_SOCKETS; so++) {
		const struct tfo_mem_socket *ms = &p->s[so];
		struct rte_malloc_socket_stats st;
		uint64_t parts = ms->pool + ms->tables + ms->bufs + ms->other;

		if (ms->total == 0 || rte_malloc_get_socket_stats(so, &st) < 0)
			continue;
		if (st.heap_allocsz_bytes > ms->total) {
			over++;
			TFO_LOG(WARNING, "memory taken at start on socket %d: %llu MiB, over "
				"the plan's %llu MiB (a bug in the plan: report it with "
				"--print-config's output)", so, mib(st.heap_allocsz_bytes),
				mib(ms->total));
			continue;
		}
		TFO_LOG(INFO, "memory taken at start on socket %d: %llu MiB of the plan's "
			"%llu MiB (its parts %llu MiB + EAL and drivers %llu + %u%%)", so,
			mib(st.heap_allocsz_bytes), mib(ms->total), mib(parts), mib(ms->eal),
			TFO_PLAN_MARGIN_PCT);
	}
	return over;
}

void
tfo_eal_layout_sockets(struct tfo_eal_layout *l, const char *sysfs)
{
	char path[PATH_MAX];

	for (unsigned int i = 0; i < l->nb_lcores; i++) {
		struct dirent *d;
		DIR *dir;

		l->socket[i] = 0;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d", sysfs, l->cpu[i]);
		dir = opendir(path);
		if (dir == NULL)
			continue;
		while ((d = readdir(dir)) != NULL) {
			int n;

			if (sscanf(d->d_name, "node%d", &n) == 1 && n >= 0 &&
			    n < TFO_PLAN_SOCKETS) {
				l->socket[i] = n;
				break;
			}
		}
		closedir(dir);
	}
}

/* ---- the memory ---------------------------------------------------------- */

void
tfo_engine_params_from_config(const struct tfo_config *c, bool control,
			      struct tfo_engine_params *p)
{
	memset(p, 0, sizeof(*p));
	p->max_conns = c->max_conns;
	p->max_request = c->max_request;
	p->wscale = c->wscale;
	p->rcv_wnd = c->rcv_wnd;
	p->rto_init_ms = c->rto_init_ms;
	p->rto_min_ms = c->rto_min_ms;
	p->rto_max_ms = c->rto_max_ms;
	p->max_retries = (uint8_t)c->retries;
	p->synack_retries = (uint8_t)c->synack_retries;
	p->idle_timeout_ms = c->idle_timeout_ms;
	p->request_timeout_ms = c->request_timeout_ms;
	p->time_wait_ms = c->time_wait_ms;
	/* the slow path's rate is far lower: as many as its entries */
	p->time_wait_max = control ? RTE_MIN(c->time_wait_max, c->max_conns) :
		c->time_wait_max;
	p->tfo_pending_limit = control ? 0 : c->pending_limit;
	p->tfo_pending_hold_ms = c->pending_hold_ms;
	p->tfo_pending_per_source = c->pending_per_source;
	/* the slow path's table is the one a single address can hold: a
	 * worker's entries are TFO opens, capped per source already */
	p->conn_per_source = control ? c->max_conns_per_source : 0;
	p->evict = control;
	p->syncookies = control && c->syncookies;
}

/* An rte_ring of @p count slots as the server creates it (EXACT_SZ). */
static uint64_t
plan_ring(uint32_t count)
{
	ssize_t n = rte_ring_get_memsize(rte_align32pow2(count + 1));

	return n > 0 ? (uint64_t)n : 0;
}

/* rte_pktmbuf_pool_create(n, cache, 0, data_room): objects, their ring
 * (the default ring ops) and the pool header with every lcore's cache;
 * with a net_af_xdp port (@p xdp) tfo_xdp_pool_create's one page each.
 * The mempool never lets an object cross a page of @p page bytes: a page
 * holds a whole number of objects and the rest of it is lost (with
 * --no-huge's 4 KiB pages one 2.4 KiB mbuf takes a page: 1.7x). */
static uint64_t
plan_pool(uint32_t n, uint16_t data_room, bool xdp, uint64_t page)
{
	struct rte_mempool_objsz sz;
	uint32_t obj = xdp ? TFO_XDP_POOL_OBJ :
		rte_mempool_calc_obj_size((uint32_t)sizeof(struct rte_mbuf) + data_room, 0,
					  &sz);
	uint64_t per_page = page >= obj ? page / obj : 1;
	uint64_t objs = (n + per_page - 1) / per_page * page;

	return objs + plan_ring(n) + sizeof(struct rte_mempool) +
	       (uint64_t)RTE_MAX_LCORE * sizeof(struct rte_mempool_cache) +
	       sizeof(struct rte_pktmbuf_pool_private);
}

/* One engine (and what each lcore has besides) on socket @p so. */
static int
plan_engine(const struct tfo_config *c, bool control, struct tfo_mem_socket *ms)
{
	struct tfo_engine_params ep;
	size_t table, bufs, other;

	tfo_engine_params_from_config(c, control, &ep);
	if (tfo_engine_plan_memory(&ep, &table, &bufs, &other) < 0)
		return -ENOMEM;
	ms->tables += table;
	ms->bufs += bufs;
	ms->other += other + (c->tfo_enabled ? tfo_cookie_ctx_memory() : 0);
	return 0;
}

int
tfo_mem_plan(const struct tfo_config *c, const struct tfo_eal_layout *l,
	     struct tfo_mem_plan *p, char *err, size_t errlen)
{
	unsigned int nc = c->control_lcores ? c->control_lcores : 1;
	int wsock[RTE_MAX_LCORE], csock[TFO_MAX_CONTROLS];
	struct tfo_pool_plan_in in;
	struct tfo_pool_plan pp;
	uint64_t desc_q = 0, desc_tx = 0;
	uint16_t mtu = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	if (nc > TFO_MAX_CONTROLS)
		return tfo_errmsg(err, errlen, "[server] control_lcores = %u: at most %d",
				  nc, TFO_MAX_CONTROLS);
	/* the start's own check (server.c, srv_check), with both numbers */
	if (l->nb_lcores < nc + 1)
		return tfo_errmsg(err, errlen, "[server] control_lcores = %u needs at least "
				  "%u lcores (the controls and one worker); %s gives %u",
				  nc, nc + 1, l->lcores_arg, l->nb_lcores);
	p->nb_controls = nc;
	p->nb_workers = l->nb_lcores - nc;
	/* --no-huge memory is one socket's: the server then puts all there */
	for (unsigned int k = 0; k < nc; k++)
		csock[k] = l->no_huge ? 0 : l->socket[k];
	for (unsigned int w = 0; w < p->nb_workers; w++)
		wsock[w] = l->no_huge ? 0 : l->socket[nc + w];
	in = (struct tfo_pool_plan_in){
		.cfg = c,
		.nb_workers = p->nb_workers,
		.nb_controls = nc,
		.worker_socket = wsock,
		.control_socket = csock,
		.inbox_size = tfo_pool_plan_inbox_size(c),
		.ctl_inbox_size = TFO_POOL_PLAN_CTL_INBOX,
		.mbufs = c->mbufs,
	};
	rc = tfo_pool_plan(&in, &pp, err, errlen);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < c->nb_ports; i++) {
		mtu = RTE_MAX(mtu, c->ports[i].mtu);
		desc_q += (uint64_t)(c->ports[i].rx_desc + c->ports[i].tx_desc) *
			  PLAN_DESC_BYTES;
		desc_tx += (uint64_t)c->ports[i].tx_desc * PLAN_DESC_BYTES;
	}
	p->af_xdp = tfo_xdp_any_port(c);
	p->data_room = p->af_xdp ? tfo_xdp_pool_data_room() : tfo_pool_plan_data_room(mtu);
	for (int so = 0; so < TFO_PLAN_SOCKETS; so++) {
		p->s[so].mbufs = pp.mbufs[so];
		memcpy(p->s[so].part, pp.part[so], sizeof(p->s[so].part));
		if (pp.mbufs[so] != 0)
			p->s[so].pool = plan_pool(pp.mbufs[so], p->data_room, p->af_xdp,
						  l->no_huge ? PAGE_4K : PAGE_2M);
	}
	for (unsigned int w = 0; w < p->nb_workers; w++) {
		struct tfo_mem_socket *ms = &p->s[wsock[w]];

		if (plan_engine(c, false, ms) < 0)
			return tfo_errmsg(err, errlen, "out of memory for the plan");
		/* its RX and TX queue on every port, its inbox, its struct */
		ms->other += desc_q + plan_ring(in.inbox_size) + sizeof(struct tfo_worker);
		/* its ring to each control lcore, on that one's socket */
		for (unsigned int k = 0; k < nc; k++)
			p->s[csock[k]].other += plan_ring(c->ring_size);
		/* and its neighbour ring (ARP, ND) to control 0 */
		p->s[csock[0]].other += plan_ring(TFO_POOL_PLAN_NEIGH);
	}
	for (unsigned int k = 0; k < nc; k++) {
		struct tfo_mem_socket *ms = &p->s[csock[k]];

		if (plan_engine(c, true, ms) < 0)
			return tfo_errmsg(err, errlen, "out of memory for the plan");
		ms->other += desc_tx + sizeof(struct tfo_control);
		if (k > 0)
			ms->other += plan_ring(TFO_POOL_PLAN_CTL_INBOX);
		else	/* the SYN queue of syn_steering, one RX queue */
			ms->other += desc_q;
	}
	for (int so = 0; so < TFO_PLAN_SOCKETS; so++) {
		struct tfo_mem_socket *ms = &p->s[so];
		uint64_t sum;

		if (ms->mbufs == 0)
			continue;
		ms->eal = (uint64_t)TFO_PLAN_EAL_MB * MIB;
		sum = ms->pool + ms->tables + ms->bufs + ms->other + ms->eal;
		sum += sum * TFO_PLAN_MARGIN_PCT / 100;
		ms->total = RTE_ALIGN_CEIL(sum, (uint64_t)MIB);
		ms->pages = (uint32_t)((ms->total + PAGE_2M - 1) / PAGE_2M);
		p->total += ms->total;
		p->pages += ms->pages;
	}
	return 0;
}

static uint64_t
plan_parts(const struct tfo_mem_socket *ms)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < TFO_POOL_NB_PARTS; i++)
		n += ms->part[i];
	return n;
}

void
tfo_mem_plan_print(FILE *f, const struct tfo_eal_layout *l, const struct tfo_mem_plan *p)
{
	char nodes[128] = "", pages[128] = "", smem[128] = "";
	int top = -1;

	fprintf(f, "\n; Memory this configuration needs at start (docs/runbook.md, "
		"\"Hugepages\"):\n; %u control lcore(s) and %u worker(s) from %s; "
		"mbufs of %u bytes of data room%s\n", p->nb_controls, p->nb_workers,
		l->lcores_arg, p->data_room,
		p->af_xdp ? " (one 4 KiB page each: net_af_xdp's UMEM)" : "");
	for (int so = 0; so < TFO_PLAN_SOCKETS; so++) {
		const struct tfo_mem_socket *ms = &p->s[so];

		if (ms->total == 0)
			continue;
		top = so;
		fprintf(f, ";   socket %d: %llu MiB = mbuf pool %llu (%u mbufs) + "
			"connection tables %llu + request buffers %llu + engines, rings, "
			"queues %llu + EAL and drivers %llu, + %u%%\n", so, mib(ms->total),
			mib(ms->pool), ms->mbufs, mib(ms->tables), mib(ms->bufs),
			mib(ms->other), mib(ms->eal), TFO_PLAN_MARGIN_PCT);
		fprintf(f, ";     its %u mbufs: what can be out of the pool at once: RX "
			"descriptors %llu + net_af_xdp fill and completion rings %llu + "
			"TX descriptors %llu + rings %llu + lcore caches and TX buffers %llu "
			"+ in flight %llu%s\n", ms->mbufs,
			(unsigned long long)ms->part[TFO_POOL_RXQ],
			(unsigned long long)ms->part[TFO_POOL_XSK],
			(unsigned long long)ms->part[TFO_POOL_TXQ],
			(unsigned long long)ms->part[TFO_POOL_RINGS],
			(unsigned long long)ms->part[TFO_POOL_LCORES],
			(unsigned long long)ms->part[TFO_POOL_SLACK],
			ms->mbufs > plan_parts(ms) ? " (+ [server] mbufs' share)" : "");
		snprintf(nodes + strlen(nodes), sizeof(nodes) - strlen(nodes), "%s%d",
			 nodes[0] ? "," : "", so);
		snprintf(pages + strlen(pages), sizeof(pages) - strlen(pages), " node%d=%u",
			 so, ms->pages);
	}
	for (int so = 0; so <= top; so++)
		snprintf(smem + strlen(smem), sizeof(smem) - strlen(smem), "%s%llu",
			 so ? "," : "", mib(p->s[so].total));
	fprintf(f, ";   not counted: what the services load (http: the files "
		"under its root)\n");
	if (l->no_huge)
		fprintf(f, "; --no-huge: -m %llu at least\n", mib(p->total));
	else
		fprintf(f, "; hugepages: %u x 2 MiB (setup-host.sh --pages %u --nodes %s; "
			"or --config), or --socket-mem %s\n", p->pages, p->pages, nodes, smem);
	/* for scripts (setup-host.sh --config): one line, fixed words */
	fprintf(f, "; tfo-plan: hugepages-2M total=%u%s mib=%llu\n", p->pages, pages,
		mib(p->total));
}

bool
tfo_mem_plan_short(const struct tfo_eal_layout *l, const struct tfo_mem_plan *p,
		   char *msg, size_t len)
{
	if (l->no_huge && l->mem_mb != 0 && l->mem_mb < mib(p->total)) {
		snprintf(msg, len, "-m %" PRIu64 " is below the %llu MiB this configuration "
			 "needs (raise -m, or lower [tcp] max_conns / time_wait_max)",
			 l->mem_mb, mib(p->total));
		return true;
	}
	for (int so = 0; so < TFO_PLAN_SOCKETS && l->has_socket_mem && !l->no_huge; so++) {
		if (p->s[so].total == 0 || l->socket_mem_mb[so] >= mib(p->s[so].total))
			continue;
		snprintf(msg, len, "--socket-mem gives socket %d %" PRIu64 " MiB, below the "
			 "%llu MiB its lcores need (raise it, or drop --socket-mem)", so,
			 l->socket_mem_mb[so], mib(p->s[so].total));
		return true;
	}
	return false;
}
