/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the service interface.
 *
 * A service turns request bytes into response bytes. It is called by the
 * TCP engine on every worker lcore and on the control core at once, so
 * handle() must only read state built by create() (or keep per-lcore state
 * indexed by rte_lcore_id()). Because a TFO SYN can be duplicated in the
 * network, only idempotent services belong here: the same request must give
 * the same response.
 *
 * Adding a service: one file that defines a struct tfo_service and
 * registers it with TFO_SERVICE_REGISTER(). Built in: its name in
 * services/meson.build. Out of tree: built as a shared object against the
 * installed headers (`pkg-config --cflags tfo-service`, which defines
 * TFO_SERVICE_PLUGIN) and named in its section with `plugin = PATH.so`.
 * The configuration then accepts a [service NAME] section with
 * `port = N` and the keys listed in tfo_service.keys.
 *
 * What a plugin may call besides DPDK: the functions declared here and in
 * tfo/log.h (tfo-server exports exactly those).
 */
#ifndef TFO_SERVICE_H
#define TFO_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_memory.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Version of this interface for services built out of tree: the layout of
 * every struct below and the meaning of their fields. Bumped on any change
 * that an already built plugin would misread; tfo-server refuses a plugin
 * built for another version.
 */
#define TFO_SERVICE_ABI_VERSION 2

/**
 * Most counters of all configured services together (tfo_stats.svc).
 * /tfo/stats answers in one telemetry dict of at most 256 entries: the
 * non-zero built-in counters, every service counter, then the built-in
 * counters at 0 while there is room (an absent counter reads as 0);
 * tfo-server warns at start beyond 112 service counters in all.
 */
#define TFO_SVC_STATS_MAX 256

/** Largest number of counters one service declares (tfo_service.counters). */
#define TFO_SVC_MAX_COUNTERS 64

/**
 * One counter a service declares. It is reported like the built-in ones
 * (/tfo/stats, the stats line, tfo-prom, --help-counters) under @p name,
 * which must begin with the service's name and '_' ("dns_rcode_noerror")
 * so that it greps to its service and never meets a built-in name.
 *
 * A name "<service>_<NNN>" or "<service>_<NNN>_<reason>", NNN a status
 * from 100 to 599 ("http_404", "http_400_host"), counts responses of that
 * status: the stats line shows such counters summed by class
 * ("http_4xx", tfo_svc_ctr_map.status) rather than one by one.
 */
struct tfo_svc_counter {
	const char *name;
	const char *help;	/**< one line for --help-counters */
};

/** Transport of a request: the IP protocol number. */
enum tfo_svc_transport {
	TFO_SVC_TCP = 6,
	TFO_SVC_UDP = 17,
};

/**
 * Where a request comes from and how it came, filled by the engine for
 * each handle() call. Read-only for the service.
 */
struct tfo_svc_ctx {
	uint8_t family;		/**< AF_INET or AF_INET6 */
	uint8_t transport;	/**< enum tfo_svc_transport */
	/**
	 * 1: the first byte of this request arrived as data in the SYN (TCP
	 * Fast Open). Such a request may be a replay of a duplicated SYN:
	 * a service that serves non-idempotent requests refuses them here
	 * (RFC 7413 section 6.3.1). Always 0 over UDP.
	 */
	uint8_t in_syn;
	uint8_t reserved0;
	uint16_t src_port;	/**< the client's port, host order */
	uint16_t dst_port;	/**< the served port, host order */
	/** Addresses in network order: IPv4 in the first 4 bytes. */
	uint8_t src_addr[16];	/**< the client's */
	uint8_t dst_addr[16];	/**< ours, the one the client sent to */
	/**
	 * UDP: the largest response (buf_len + body_len) the engine can send
	 * in one unfragmented datagram on this port; larger is dropped and
	 * counted (svc_udp_too_big). TCP: 0.
	 */
	uint32_t udp_max;
	/**
	 * The calling lcore's values of this service's counters, in the
	 * order of tfo_service.counters (NULL when it declares none): add
	 * to them without atomics, each lcore has its own.
	 */
	uint64_t *counters;
};

/**
 * Immutable bytes built at create() and alive until destroy(): the engine
 * may send them without copying (external mbuf buffers), so they must live
 * in DPDK memory (rte_malloc) and carry their IOVA.
 */
struct tfo_blob {
	const uint8_t *data;
	uint32_t len;
	rte_iova_t iova;
};

enum tfo_svc_status {
	TFO_SVC_NEED_MORE = 0,	/**< the request is not complete yet */
	TFO_SVC_RESPOND = 1,	/**< resp is filled: send it */
	TFO_SVC_REJECT = 2,	/**< unusable and no response possible: reset */
};

/**
 * A response. The engine fills the "in" fields, the service the "out"
 * fields. The bytes sent are buf[0..buf_len) followed by
 * body->data[body_off .. body_off+body_len) when body is not NULL.
 */
struct tfo_svc_resp {
	/* in */
	uint8_t *buf;		/**< scratch the engine keeps until ACKed */
	uint32_t buf_cap;	/**< its size */
	/** NULL. Until http declared its counters as every service does
	 *  (tfo_svc_ctx.counters), the engine's counters; kept so that the
	 *  layout of interface version 2 stays. */
	void *reserved;
	/* out */
	uint32_t consumed;	/**< request bytes this response answers; the
				 *   rest is the next (pipelined) request */
	uint32_t buf_len;	/**< bytes written to buf */
	const struct tfo_blob *body;	/**< zero-copy body, or NULL */
	uint32_t body_off;
	uint32_t body_len;
	bool close;		/**< send FIN after this response (TCP) */
	uint16_t status;	/**< for the access log: the service's status
				 *   of this response (http: the HTTP status,
				 *   dns: the RCODE); 0: none */
	/**
	 * TCP: close the connection when it stays idle (no request byte)
	 * this long after this response, in ms; 0: the engine's
	 * [tcp] idle timeout. Lets a service announce its own (DNS's
	 * edns-tcp-keepalive, RFC 7828). It holds from when this response
	 * is acknowledged until the next response (whose 0 brings the
	 * default back); kept to the ms up to 32,767 ms, in whole seconds
	 * above (at most 32,767 s). Ignored over UDP.
	 */
	uint32_t idle_ms;
};

/**
 * Given to tfo_service.reclaim(): true while a connection of some lcore
 * still has unacknowledged bytes of a struct tfo_blob lying in [lo, hi)
 * (the address of the struct, not of its data). Compares pointers only.
 */
typedef bool (*tfo_svc_sends_from_fn)(void *arg, const void *lo, const void *hi);

/** Configuration of one [service NAME] section. */
struct tfo_service_kv {
	const char *key;
	const char *value;
};

struct tfo_service_args {
	uint16_t port;		/**< TCP port it serves */
	bool udp;		/**< `udp = on`: it serves UDP on port too */
	unsigned int nb_kv;
	const struct tfo_service_kv *kv;	/**< only keys of tfo_service.keys */
	const char *base_dir;	/**< directory relative paths are resolved from */
	int socket_id;		/**< NUMA socket for its memory */
	/** [tcp] max_request: a request longer is reset by the engine
	 *  before the service sees it whole (check() compares its own
	 *  limits with it); 0 = not given. Last: plugins built before it
	 *  never read it. */
	uint32_t max_request;
};

/** Value of @p key in @p a, or @p def when absent. */
const char *tfo_service_arg(const struct tfo_service_args *a, const char *key,
			    const char *def);

struct tfo_service {
	const char *name;	/**< section name: [service NAME] */
	const char *help;	/**< one line for --help */
	/** Keys accepted in the section besides `port` and `udp`,
	 *  NULL-terminated. */
	const char *const *keys;
	/** Keys of @p keys that may be given several times in the section
	 *  (`zone = ...` once per zone), NULL-terminated, or NULL: each
	 *  occurrence is kept in tfo_service_args.kv, in the file's order,
	 *  where another key's last occurrence replaces the ones before. */
	const char *const *repeat_keys;
	/** Its counters, ending with a NULL name (at most
	 *  TFO_SVC_MAX_COUNTERS), or NULL: see struct tfo_svc_counter. */
	const struct tfo_svc_counter *counters;
	/** true: it answers UDP datagrams too (`udp = on` is accepted);
	 *  one datagram is one whole request (consumed == len, no FIN). */
	bool udp_ok;
	/**
	 * Build the read-only state from @p a. Called once, on the main lcore,
	 * before the workers start. Log the reason and return a negative errno
	 * on bad configuration.
	 */
	int (*create)(const struct tfo_service_args *a, void **state);
	void (*destroy)(void *state);
	/**
	 * Look at @p len request bytes at @p req (TCP: everything received
	 * and not consumed yet, in order; UDP: one datagram's payload) sent
	 * as @p ctx says. Return NEED_MORE, or RESPOND with @p resp filled
	 * (consumed > 0), or REJECT (TCP: reset; UDP: dropped and counted).
	 * Over UDP, NEED_MORE is dropped and counted too. Must not read
	 * outside [req, req+len), must not block, allocate or lock.
	 */
	enum tfo_svc_status (*handle)(const void *state,
				      const struct tfo_svc_ctx *ctx,
				      const uint8_t *req, uint32_t len,
				      struct tfo_svc_resp *resp);
	/**
	 * Optional: check one key's value (syntax, range) without DPDK, as
	 * the configuration parser reads it, so that a bad value is refused
	 * with its file and line. Return a negative errno and the reason in
	 * @p why, the accepted range included ("expected an integer in 1..65535").
	 */
	int (*check_key)(const char *key, const char *value, char *why,
			 size_t whylen);
	/**
	 * Optional: check the whole section as create() will (keys that
	 * depend on each other, the files and directories it reads) without
	 * DPDK, so that the configuration check (tfo_config_validate, hence
	 * --print-config) refuses what a start would. Return a negative errno
	 * and the reason, naming the key, in @p why.
	 */
	int (*check)(const struct tfo_service_args *a, char *why, size_t whylen);
	/**
	 * Optional: build the state again from the same section (SIGHUP,
	 * /tfo/reload) while @p state keeps serving, and publish it to
	 * handle() if it is good. Called on a thread that is neither a worker
	 * nor the control lcore (it may read files for long), never twice at
	 * once, never with destroy(). Return 1 if the new state serves now,
	 * 0 if nothing changed, or a negative errno (the old state keeps
	 * serving); one line for the operator in @p msg either way.
	 */
	int (*reload)(void *state, char *msg, size_t msglen);
	/**
	 * Optional: free what reload() replaced once no lcore can still use
	 * it. Called from time to time by the control lcore (every round of
	 * its loop); must not block.
	 *
	 * What the engines send without copying (tfo_svc_resp.body) stays in
	 * their send queues until the client acknowledges it, which a slow
	 * reader can make last for as long as the connection lives: a blob
	 * may be freed only when @p sends_from(@p arg, lo, hi) says false for
	 * the range holding it. That answer is exact only for a range no new
	 * reference can enter: retired by reload() (no handle() returns it
	 * any more) and then left alone for a grace time of a few seconds
	 * (a handle() that loaded it before the swap, a frame on its way to
	 * the NIC). It walks every connection of every lcore: ask about one
	 * range at most once a second. @p sends_from is NULL when no engine
	 * exists (tools, unit tests): then nothing is referenced.
	 *
	 * @return how many replaced states reached their grace time in this
	 * call but are kept because an engine still sends from them (each
	 * counted once: the control lcore adds it to svc_reload_held).
	 */
	unsigned int (*reclaim)(void *state, tfo_svc_sends_from_fn sends_from,
				void *arg);
	/* registry link, set by tfo_service_register() */
	const struct tfo_service *next;
};

/** Add @p s to the registry (constructor time). */
void tfo_service_register(struct tfo_service *s);

/** Registered service by name, or NULL. */
const struct tfo_service *tfo_service_find(const char *name);

/** First registered service (iterate with ->next). */
const struct tfo_service *tfo_service_first(void);

/** 1 if @p key is one of @p s's repeat_keys: every occurrence is kept. */
int tfo_service_key_repeats(const struct tfo_service *s, const char *key);

/** 1 if @p key is one of @p s's keys (or "port", or "udp" when udp_ok). */
int tfo_service_key_ok(const struct tfo_service *s, const char *key);

/**
 * Load the service plugin at @p path (dlopen) and register the service it
 * exports, which must be named @p name. A plugin stays loaded until exit.
 * @return 0, or a negative errno and one line in @p why (cannot load,
 * not a plugin, built for another TFO_SERVICE_ABI_VERSION, another name).
 */
int tfo_service_plugin_load(const char *path, const char *name, char *why,
			    size_t whylen);

#ifdef TFO_SERVICE_PLUGIN
/*
 * Out of tree: the shared object exports its service and the interface
 * version it was built for; tfo-server checks the version before it reads
 * the struct, then registers it as a built-in one.
 */
#ifdef __cplusplus
#define TFO_SERVICE_EXPORT_ extern "C" __attribute__((visibility("default")))
#else
#define TFO_SERVICE_EXPORT_ __attribute__((visibility("default")))
#endif
#define TFO_SERVICE_REGISTER(svc) \
	TFO_SERVICE_EXPORT_ \
	const uint32_t tfo_service_plugin_abi = TFO_SERVICE_ABI_VERSION; \
	TFO_SERVICE_EXPORT_ \
	struct tfo_service *const tfo_service_plugin = &(svc);
#else
#define TFO_SERVICE_REGISTER(svc) \
	RTE_INIT(tfo_service_register_##svc) { tfo_service_register(&(svc)); }
#endif

/** A created service bound to a TCP port (and with `udp = on`, UDP). */
struct tfo_service_inst {
	const struct tfo_service *svc;
	void *state;
	uint16_t port;
	bool udp;		/**< `udp = on`: datagrams to port too */
	/** Its counters: tfo_stats.svc[ctr_base .. ctr_base + nb_ctr) of
	 *  every lcore (tfo_svc_ctr_map); nb_ctr 0: none (or an instance a
	 *  test built by hand: ctx->counters is then NULL). */
	uint16_t ctr_base;
	uint16_t nb_ctr;
};

/**
 * Check the counters @p s declares (tfo_service.counters): at most
 * TFO_SVC_MAX_COUNTERS, each named "<service>_<what>" of letters, digits
 * and '_', none twice, none a built-in counter's name.
 *
 * @return how many it declares, or a negative errno and one line in @p why.
 */
int tfo_service_counters_check(const struct tfo_service *s, char *why,
			       size_t whylen);

/**
 * The configured services' counters, in the order of the configuration
 * (then of each service's declaration): index j is tfo_stats.svc[j] of
 * every lcore. Built at start (tfo_svc_ctr_map_add), read-only after.
 */
struct tfo_svc_ctr_map {
	unsigned int nb;
	const char *name[TFO_SVC_STATS_MAX];
	const char *help[TFO_SVC_STATS_MAX];
	const char *service[TFO_SVC_STATS_MAX];
	/** the response status a counter counts (100-599, from its name:
	 *  struct tfo_svc_counter), or 0 */
	uint16_t status[TFO_SVC_STATS_MAX];
};

/**
 * Give instance @p si the next slots of @p map for its service's counters
 * (sets si->ctr_base, si->nb_ctr). A service configured twice shares
 * nothing: it is refused by the configuration first.
 *
 * @return 0, or a negative errno and one line in @p why (bad counters,
 *   more than TFO_SVC_STATS_MAX in all).
 */
int tfo_svc_ctr_map_add(struct tfo_svc_ctr_map *map, struct tfo_service_inst *si,
			char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif /* TFO_SERVICE_H */
