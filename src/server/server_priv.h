/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: what server.c, server_res.c and server_lcores.c share:
 * the server's struct and the steps of its assembly (each writes its
 * one-line reason into err and returns a negative errno).
 */
#ifndef TFO_SERVER_PRIV_H
#define TFO_SERVER_PRIV_H

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include "lcore/drain.h"
#include "lcore/qs.h"
#include "lcore/sdnotify.h"
#include "net/port.h"
#include "net/port_flow.h"
#include "net/xdp.h"
#include "server/config_services.h"
#include "server/pool_plan.h"
#include "server/server.h"
#include "server/start_plan.h"
#include "tcp/service_reload.h"
#include "tfo/log.h"
#include "tfo/service.h"


struct tfo_server {
	struct tfo_config cfg;		/* the control core keeps a pointer */
	struct tfo_server_params p;
	char name[16];			/* prefix of pool and ring names */
	/* every lcore reads both once per poll: one cache line, which only a
	 * signal handler or a telemetry command writes */
	volatile bool quit __rte_cache_aligned;
	volatile bool drain;
	struct tfo_sdnotify notify;	/* the service manager's socket, or fd -1 */
	bool devices;			/* ports are rte_eth devices we set up */
	bool numa;			/* lcores on their own sockets (srv_lcores) */
	unsigned int nb_controls;	/* control lcores: the first ones */
	unsigned int nb_workers;
	unsigned int nb_ports;
	unsigned int nb_ports_up;	/* devices set up, closed by free */
	/* by socket id: one per socket with lcores (pool_plan.h), else NULL */
	struct rte_mempool *pools[TFO_PLAN_SOCKETS];
	unsigned int wrk_lcore[RTE_MAX_LCORE];
	int wrk_socket[RTE_MAX_LCORE];	/* where worker i's memory and rings are */
	int ctl_socket[TFO_MAX_CONTROLS];	/* control k's; [0]: the main lcore's */
	struct tfo_port_info ports[TFO_MAX_PORTS];
	struct tfo_worker **workers;
	/* worker i -> control k: rings[k * nb_workers + i] */
	struct rte_ring **rings;
	struct rte_ring **neigh;	/* worker i -> control 0: ARP and ND */
	struct rte_ring **from_ctl;	/* control -> worker i: SYNs, path-MTU errors */
	/* control k -> worker k % nb_workers, per port (ctrl_tx_relay) */
	struct rte_ring *relay[TFO_MAX_PORTS][TFO_MAX_CONTROLS];
	struct tfo_control control;	/* control 0 (the main lcore) */
	/* controls[0] = &control; 1..nb_controls-1 allocated */
	struct tfo_control *controls[TFO_MAX_CONTROLS];
	unsigned int ctl_lcore[TFO_MAX_CONTROLS];
	struct rte_ring *ctl_inbox[TFO_MAX_CONTROLS];	/* control 0 -> k: PTB */
	struct tfo_exc exc[TFO_MAX_PORTS];	/* exception paths (control 0's) */
	struct tfo_port_flow_set *flows[TFO_MAX_PORTS];	/* isolate = on: its rules */
	struct tfo_xdp xdp[TFO_MAX_PORTS];	/* our XDP programs (xdp = own) */
	struct tfo_keyring *keys;
	struct tfo_cookie_ctx *ctl_cookies[TFO_MAX_CONTROLS];
	char key_path[PATH_MAX * 2];	/* resolved [tfo] key_file, or "" */
	unsigned int nb_services;
	struct tfo_service_inst services[TFO_MAX_SERVICES];
	struct tfo_svc_ctr_map svc_ctrs;	/* their counters' names */
	struct tfo_svc_reloader *svc_reload;	/* NULL: no service reloads */
	struct tfo_alog *alog;		/* [server] access_log, or NULL */
};

/* Create every configured service once; all lcores share them read-only. */

/* server_res.c: the shared resources (services, keys, pools, ports) */
int
tfo_srv_services(struct tfo_server *s, int socket, char *err, size_t errlen);

struct tfo_engine *
tfo_srv_engine(struct tfo_server *s, const char *name, int socket,
	       struct tfo_stats *stats, struct tfo_tx *tx, struct tfo_lat *lat,
	       bool control, char *err, size_t errlen);

int
tfo_srv_keys(struct tfo_server *s, int socket, char *err, size_t errlen);

struct tfo_cookie_ctx *
tfo_srv_cookie_ctx(struct tfo_server *s, int socket, char *err, size_t errlen);

struct rte_ring *
tfo_srv_ring(struct tfo_server *s, const char *kind, unsigned int i, uint32_t size,
	     int socket, unsigned int flags, char *err, size_t errlen);

unsigned int
tfo_srv_inbox_size(const struct tfo_server *s);

int
tfo_srv_pools(struct tfo_server *s, char *err, size_t errlen);

int
tfo_srv_ports(struct tfo_server *s, char *err, size_t errlen);

/* server_lcores.c: the lcores' own parts */
int
tfo_srv_workers(struct tfo_server *s, char *err, size_t errlen);

int
tfo_srv_access_log(struct tfo_server *s, char *err, size_t errlen);

int
tfo_srv_controls(struct tfo_server *s, char *err, size_t errlen);

#endif /* TFO_SERVER_PRIV_H */
