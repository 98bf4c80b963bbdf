/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench: the device-free server of the transaction benchmark (see
 * bench_txn.h): its configuration, port, worker and control lcores
 * (tfo_server_create without a device, the TX flushes bench_txn.c's), the
 * live connections opened, the end state checked, and the http service's
 * document root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "ops/config.h"
#include "tcp/engine.h"
#include "tfo/service.h"

#include "bench_txn.h"
#include "bench_txn_priv.h"

static const uint8_t bt_srv_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t bt_cli_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
const struct tfo_key bt_key = { .b = { 0x74, 0x66, 0x6f, 0x2d, 0x62, 0x65, 0x6e, 0x63,
				       0x68, 0x2d, 0x6b, 0x65, 0x79, 0x2d, 0x30, 0x31 } };

/* The service, as a [service NAME] section. */
static int
bt_service(struct bt *b, struct tfo_config *cfg)
{
	char section[48], err[TFO_CFG_ERR];
	bool http = strcmp(b->p.service, "http") == 0;
	int rc;

	if (tfo_service_find(b->p.service) == NULL) {
		fprintf(stderr, "bench: no service '%s'\n", b->p.service);
		return -ENOENT;
	}
	b->svc_port = http ? 80 : 7;
	snprintf(section, sizeof(section), "service %s", b->p.service);
	rc = tfo_config_set(cfg, section, "port", http ? "80" : "7", err, sizeof(err));
	if (rc == 0 && b->p.syncookies != NULL)
		rc = tfo_config_set(cfg, "tcp", "syncookies", b->p.syncookies, err, sizeof(err));
	if (rc == 0)
		rc = http ? tfo_config_set(cfg, section, "root", b->p.http_root, err,
					   sizeof(err)) :
			    tfo_config_set(cfg, section, "max_line", "4096", err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "bench: service '%s': %s\n", b->p.service, err);
	return rc;
}

/* The engine as tfo-server's defaults make it, but for timers that would
 * end the live connections during the run. */
static int
bt_config(struct bt *b, struct tfo_config *cfg)
{
	tfo_config_defaults(cfg);
	cfg->burst = b->p.burst;
	cfg->idle_sleep_us = 0;
	cfg->mbuf_cache = 256;
	cfg->max_conns = b->max_conns;
	cfg->max_request = 8192;
	cfg->mss = 1460;
	cfg->wscale = 7;
	cfg->rcv_wnd = 65535;
	cfg->rto_init_ms = 1000;
	cfg->rto_min_ms = 200;
	cfg->rto_max_ms = 60000;
	cfg->retries = 8;
	cfg->synack_retries = 5;
	cfg->idle_timeout_ms = 3600 * 1000;
	cfg->time_wait_ms = b->p.time_wait_ms;
	cfg->pending_limit = 1024;
	cfg->pending_hold_ms = 60000;
	cfg->tfo_enabled = true;
	cfg->stats_period = 0;
	cfg->cookie_not_required = false;
	snprintf(cfg->cookie_algo, sizeof(cfg->cookie_algo), "aes128");
	return bt_service(b, cfg);
}

/*
 * TFO: only the worker runs, the control core's table can stay small. A
 * flood: small too, so that every SYN finds it under pressure (the SYN-
 * cookie reserve is a quarter of [tcp] max_conns) and is answered with a
 * SYN cookie from the start, as in a flood that has filled the table. The
 * other slow-path kinds: the configured table (no SYN cookies).
 */
static void
bt_engine_tune(struct tfo_engine_params *ep, bool control, void *arg)
{
	const struct bt *b = arg;

	if (control && (b->p.kind == BT_KIND_TFO || b->p.kind == BT_KIND_FLOOD))
		ep->max_conns = 64;
}

/* The server's port, and the clients' (their MAC, no offloads). */
static void
bt_ports(struct bt *b)
{
	const struct bt_params *p = &b->p;

	b->srv.mtu = 1500;
	memcpy(b->srv.mac.addr_bytes, bt_srv_mac, 6);
	b->srv.nb_addrs = 1;
	b->srv.addrs[0].family = AF_INET;
	b->srv.addrs[0].prefix_len = 24;
	bt_addr(&b->srv.addrs[0].addr, BT_SRV_IP);
	b->srv.rx_cksum_offload = p->offload;
	b->srv.tx_ip_cksum_offload = p->offload;
	b->srv.tx_tcp_cksum_offload = p->offload;
	b->srv.tx_multiseg = p->tx_multiseg;
	b->cli = b->srv;
	memcpy(b->cli.mac.addr_bytes, bt_cli_mac, 6);
	b->cli.rx_cksum_offload = false;
	b->cli.tx_ip_cksum_offload = false;
	b->cli.tx_tcp_cksum_offload = false;
	b->cli.nb_addrs = 0;
}

/* One worker of a device-free tfo_server, its TX flush ours. */
static int
bt_server(struct bt *b)
{
	static unsigned int seq;
	static struct tfo_config cfg;	/* copied by tfo_server_create */
	char name[16], err[TFO_CFG_ERR];
	struct tfo_server_params sp = {
		.name = name,
		.ports = &b->srv,
		.nb_ports = 1,
		.nb_workers = 1,
		.nb_controls = b->p.nb_controls ? b->p.nb_controls : 1,
		.nb_mbufs = BT_POOL,
		.key = &bt_key,
		.engine_tune = bt_engine_tune,
		.arg = b,
	};

	if (bt_config(b, &cfg) < 0)
		return -EINVAL;
	snprintf(name, sizeof(name), "bt%u", ++seq);
	b->srv_all = tfo_server_create(&cfg, &sp, err, sizeof(err));
	if (b->srv_all == NULL) {
		fprintf(stderr, "bench: %s\n", err);
		return -ENOMEM;
	}
	b->pool = tfo_server_pool(b->srv_all);
	b->w = tfo_server_worker(b->srv_all, 0);
	b->ring = b->w->to_ctl[0];
	b->w->tx.flush = bt_flush;
	b->w->tx.arg = b;
	b->nc = tfo_server_nb_controls(b->srv_all);
	if (b->nc > BT_MAX_CONTROLS) {
		fprintf(stderr, "bench: %u control lcores, at most %u\n", b->nc, BT_MAX_CONTROLS);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < b->nc; i++) {
		b->c[i] = tfo_server_control_at(b->srv_all, i);
		b->c[i]->tx.flush = bt_ctrl_flush;
		b->c[i]->tx.arg = b;
		b->c[i]->out = stderr;
	}
	b->id_to_control = tfo_stats_lookup("to_control");
	b->id_syncookies = tfo_stats_lookup("syncookies_sent");
	if (b->id_to_control < 0 || b->id_syncookies < 0) {
		fprintf(stderr, "bench: counters to_control/syncookies_sent unknown\n");
		return -ENOENT;
	}
	return 0;
}

struct bt *
bt_create(const struct bt_params *p)
{
	int socket = (int)rte_socket_id();
	struct bt *b;

	if (p->burst == 0 || p->burst > BT_BURST_MAX || p->req_len == 0 ||
	    p->req_len > 1400) {
		fprintf(stderr, "bench: burst 1..%u, request 1..1400 bytes\n", BT_BURST_MAX);
		return NULL;
	}
	b = rte_zmalloc_socket("bench_txn", sizeof(*b), RTE_CACHE_LINE_SIZE, socket);
	if (b == NULL)
		return NULL;
	b->p = *p;
	b->tsc_per_us = RTE_MAX(rte_get_tsc_hz() / 1000000, (uint64_t)1);
	b->max_conns = p->live + 1024;
	bt_ports(b);
	if (bt_server(b) != 0)
		goto fail;
	b->nb_bufs = tfo_engine_free_bufs(b->w->engine);

	/* the live population: transactions left in FIN_WAIT_2 */
	for (uint32_t k = 0; k < p->live && b->errors == 0; k += p->burst) {
		struct bt_burst_cyc dummy;

		bt_burst(b, RTE_MIN(p->live - k, p->burst), false, &dummy);
	}
	if (b->errors) {
		fprintf(stderr, "bench: opening the live connections: %s\n", b->why);
		goto fail;
	}
	return b;
fail:
	bt_free(b);
	return NULL;
}

uint64_t
bt_counter(const struct bt *b, const char *name)
{
	int id = tfo_stats_lookup(name);

	return id < 0 ? 0 : b->w->stats.c[id];
}

/* The control lcores' end state after slow-path runs. */
static void
bt_check_control(struct bt *b, char *why, size_t len)
{
	struct tfo_acct a;

	for (unsigned int i = 0; i < b->nc && why[0] == '\0'; i++) {
		struct tfo_control *c = b->c[i];
		const struct rte_ring *r = b->w->to_ctl[i];

		tfo_control_poll(c, rte_rdtsc() / b->tsc_per_us);
		bt_take_output(b);
		if (r != NULL && rte_ring_count(r) != 0)
			snprintf(why, len, "%u frames left in the ring to control %u",
				 rte_ring_count(r), i);
		else if (!tfo_stats_account(&c->stats, &a))
			tfo_acct_format(&a, why, len);
		else if (b->p.kind != BT_KIND_FLOOD &&
			 tfo_engine_free_conns(c->engine) != b->max_conns)
			snprintf(why, len, "%u connections open on control %u",
				 b->max_conns - tfo_engine_free_conns(c->engine), i);
	}
}

int
bt_check_final(struct bt *b)
{
	struct tfo_engine *e = b->w->engine;
	uint32_t st[TFO_CONN_NB_STATES];
	struct tfo_acct a;
	char why[200] = "";

	tfo_worker_housekeeping(b->w, rte_rdtsc() / b->tsc_per_us);
	bt_take_output(b);
	tfo_engine_conn_counts(e, st);
	if (b->errors)
		snprintf(why, sizeof(why), "%u client errors, first: %s", b->errors, b->why);
	else if (tfo_engine_free_conns(e) != b->max_conns - b->p.live)
		snprintf(why, sizeof(why), "%u connections open, %u expected",
			 b->max_conns - tfo_engine_free_conns(e), b->p.live);
	else if (st[TFO_CONN_FIN_WAIT_2] != b->p.live)
		snprintf(why, sizeof(why), "%u in FIN_WAIT_2, %u expected",
			 st[TFO_CONN_FIN_WAIT_2], b->p.live);
	else if (tfo_engine_free_bufs(e) != b->nb_bufs)
		snprintf(why, sizeof(why), "%u request/response buffers held",
			 b->nb_bufs - tfo_engine_free_bufs(e));
	else if (bt_counter(b, "TCPFastOpenPassive") != b->opened_tfo ||
		 bt_counter(b, "svc_responses") != b->opened_tfo)
		snprintf(why, sizeof(why), "TCPFastOpenPassive %lu, svc_responses %lu, "
			 "TFO transactions %lu",
			 (unsigned long)bt_counter(b, "TCPFastOpenPassive"),
			 (unsigned long)bt_counter(b, "svc_responses"),
			 (unsigned long)b->opened_tfo);
	else if (b->p.kind == BT_KIND_TFO &&
		 (bt_counter(b, "to_control") != 0 || rte_ring_count(b->ring) != 0))
		snprintf(why, sizeof(why), "%lu frames went to the control core",
			 (unsigned long)bt_counter(b, "to_control"));
	else if (!tfo_stats_account(&b->w->stats, &a))
		tfo_acct_format(&a, why, sizeof(why));
	if (why[0] == '\0' && b->p.kind != BT_KIND_TFO)
		bt_check_control(b, why, sizeof(why));
	if (why[0] == '\0' && rte_mempool_avail_count(b->pool) != BT_POOL)
		snprintf(why, sizeof(why), "%u mbufs not back in the pool",
			 BT_POOL - rte_mempool_avail_count(b->pool));
	if (why[0] != '\0') {
		fprintf(stderr, "bench: final state: %s\n", why);
		return -EIO;
	}
	return 0;
}

uint32_t
bt_resp_bytes(const struct bt *b)
{
	return b->resp_bytes;
}

uint32_t
bt_resp_segs(const struct bt *b)
{
	return b->resp_segs;
}

void
bt_free(struct bt *b)
{
	if (b == NULL)
		return;
	tfo_server_free(b->srv_all);
	rte_free(b);
}

int
bt_make_docroot(char *dir, const uint32_t *sizes, unsigned int n)
{
	char path[PATH_MAX], buf[4096];

	snprintf(dir, 64, "/tmp/tfo-bench-www.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -errno;
	for (unsigned int i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + i % 26);
	for (unsigned int i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/o%u", dir, sizes[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			goto fail;
		for (uint32_t left = sizes[i]; left > 0;) {
			ssize_t w = write(fd, buf, RTE_MIN(left, (uint32_t)sizeof(buf)));

			if (w <= 0) {
				close(fd);
				goto fail;
			}
			left -= (uint32_t)w;
		}
		close(fd);
	}
	return 0;
fail:
	bt_remove_docroot(dir, sizes, n);
	return -EIO;
}

void
bt_remove_docroot(const char *dir, const uint32_t *sizes, unsigned int n)
{
	char path[PATH_MAX];

	for (unsigned int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/o%u", dir, sizes[i]);
		unlink(path);
	}
	rmdir(dir);
}
