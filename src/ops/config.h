/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: configuration (INI file, embedded default, overrides).
 *
 * The file has sections [eal], [server], [tcp], [tfo], any number of
 * [port DEVICE] and [service NAME]. Every key is described by one entry of
 * a table in config.c, which parses, range-checks and documents it; the
 * same table serves the command-line overrides (--set SECTION.KEY=VALUE).
 * Errors name the file, line, section, key and value in one line.
 */
#ifndef TFO_CONFIG_H
#define TFO_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ops/addr.h"
#include "ops/file.h"	/* the file functions it is read with */

#ifdef __cplusplus
extern "C" {
#endif

#define TFO_MAX_SERVICES 8
#define TFO_SERVICE_MAX_KV 32
#define TFO_CFG_STR 256
#define TFO_CFG_ERR 512
/** Control lcores at most ([server] control_lcores). */
#define TFO_MAX_CONTROLS 16
/** Largest window scale shift (RFC 7323 2.3): [tcp] wscale_max's bound,
 *  and what a peer's option is clamped to. */
#define TFO_WSCALE_MAX 14

/** [server] idle_policy. */
enum tfo_idle_policy {
	TFO_IDLE_ADAPTIVE = 0,	/**< poll while busy, then wait for a wake-up */
	TFO_IDLE_BUSY,		/**< poll always */
	TFO_IDLE_SLEEP,		/**< nap idle_sleep_us after every empty poll */
};

/** [server] idle_sleep_us's default (idle_policy sleep). */
#define TFO_IDLE_SLEEP_US_DEFAULT 100

/** [tcp] syncookies: when a SYN bound for the slow path is answered with a
 *  SYN cookie (on the worker that received it, and on the control core
 *  when its table is down to its reserve). */
enum tfo_syncookies_mode {
	TFO_SYNCOOKIES_NO = 0,		/**< never (table full: silence) */
	TFO_SYNCOOKIES_AUTO,		/**< when the control core is under pressure */
	TFO_SYNCOOKIES_ALWAYS,		/**< every slow-path SYN (workers) */
};

enum tfo_offload_mode {
	TFO_OFFLOAD_AUTO = 0,	/**< use what the port offers */
	TFO_OFFLOAD_OFF,	/**< software checksums only */
};

/** Who puts each flow on a worker's RX queue ([port] rss). */
enum tfo_rss_mode {
	/** The device's RSS; several workers on a device without it are
	 *  refused. */
	TFO_RSS_DEVICE = 0,
	/** The peer (net_memif: tfo-loadgen --rss-peer) sends each flow on
	 *  the queue pair our own Toeplitz hash and redirection table name
	 *  (tfo_port_rss_peer), and serves one more queue pair per control
	 *  lcore, on which they send. */
	TFO_RSS_PEER,
};

/** Who decides what a net_af_xdp port's sockets receive ([port] xdp). */
enum tfo_xdp_mode {
	/** own on a net_af_xdp vdev, off elsewhere */
	TFO_XDP_AUTO = 0,
	/** tfo-server's XDP program (src/net/bpf/tfo_xdp.c): only the served
	 *  addresses and ports reach the sockets, the kernel keeps the rest
	 *  (its ARP, ND, ping, SSH, UDP) */
	TFO_XDP_OWN,
	/** net_af_xdp's own program (or the vdev's xdp_prog=): every frame
	 *  of the queues to tfo-server, which answers ARP and ND itself */
	TFO_XDP_OFF,
};

/** What a net_tap port's iface= may name ([port] tap). */
enum tfo_tap_mode {
	/** net_tap's own way: create the tap, or attach to an existing
	 *  persistent one; the start says which */
	TFO_TAP_AUTO = 0,
	/** a new tap: refused when the name exists (a leftover, another's) */
	TFO_TAP_CREATE,
	/** an existing persistent tap (ip tuntap add): refused when there is
	 *  none of that name, so that a typo cannot create an empty tap */
	TFO_TAP_ATTACH,
};

struct tfo_cfg_port {
	char device[64];	/**< DPDK device name: net_tap0, 0000:01:00.0 */
	char vdev[TFO_CFG_STR];	/**< --vdev argument that creates it, or "" */
	uint16_t mtu;
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint8_t offload;	/**< enum tfo_offload_mode */
	uint8_t rss;		/**< enum tfo_rss_mode */
	/** Several RX queues on a device without RSS are fine: the peer
	 *  steers flows to queues itself (net_memif queue pairs; the
	 *  load generator hands misdirected segments over). Not a file key. */
	bool rss_optional;
	/** Ask for RX queue interrupts (idle_policy adaptive: they wake an
	 *  idle worker); a device that refuses them starts without. Not a
	 *  file key. */
	bool rx_intr;
	/** Steer SYNs to the control core's RX queue with an rte_flow rule
	 *  on the TCP flags (syn_steering = on); software otherwise. */
	bool syn_steering;
	/** Exception path (exception.h): frames we do not serve go to a
	 *  kernel interface, and what the kernel sends there leaves here. */
	bool exception;
	char exception_iface[16];	/**< its name, "" = tfoexc<port index> */
	uint32_t exception_pps;		/**< frames/s each way, beyond: dropped */
	/** Flow isolation (isolate = on, port_flow.h): the device gives us
	 *  only what our rte_flow rules match, the kernel keeps the rest. */
	bool isolate;
	uint8_t xdp;			/**< enum tfo_xdp_mode */
	uint8_t tap;			/**< enum tfo_tap_mode */
	uint8_t nb_addrs;
	struct tfo_local_addr addrs[TFO_MAX_PORT_ADDRS];
};

/**
 * A [service NAME] section. Parsing records it as written: which service
 * and plugin are the assembly's to know (server/config_services.h loads
 * the plugin, then hands the service its keys to check), so until then kv
 * holds every key of the section in order, port and udp among them.
 */
struct tfo_cfg_service {
	char name[32];
	/** its shared object as written ("" = built in); once loaded, its
	 *  real path, so that --print-config's output loads from anywhere */
	char plugin[PATH_MAX];
	uint32_t plugin_line;		/**< the file's line of plugin, 0 = a --set */
	uint16_t port;
	bool udp;			/**< udp = on: datagrams to port too */
	/** loaded since its last key: the service exists, port and udp are
	 *  set, kv holds the service's own keys, each one checked by it */
	bool loaded;
	unsigned int nb_kv;
	struct {
		char key[32];
		char value[TFO_CFG_STR];
		uint32_t line;		/**< the file's line, 0 = a --set */
	} kv[TFO_SERVICE_MAX_KV + 2];	/**< + port and udp, until loaded */
};

struct tfo_config {
	char source[PATH_MAX];		/**< file name, or "(embedded)" */
	char base_dir[PATH_MAX];	/**< relative paths resolve from here */

	/* [eal] */
	char eal_args[1024];		/**< used when the command line has none */

	/* [server] */
	uint32_t stats_period;		/**< seconds, 0 = no stats line */
	uint32_t burst;			/**< RX burst size */
	uint32_t ring_size;		/**< worker -> control ring, per worker */
	uint32_t icmp_echo_per_s;	/**< echo replies/s per control lcore, 0 = all */
	uint32_t mbufs;			/**< mbufs in the pool, 0 = computed */
	uint32_t mbuf_cache;		/**< per-lcore mempool cache */
	uint8_t idle_policy;		/**< enum tfo_idle_policy */
	uint32_t idle_poll_us;		/**< adaptive: polling after the last work */
	uint32_t idle_sleep_us;		/**< sleep: the nap after an empty poll */
	uint32_t control_lcores;	/**< the first N lcores: control lcores */
	uint32_t drain_timeout;		/**< seconds a drain waits, 0 = no wait */
	char access_log[PATH_MAX];	/**< "" = none (tcp/access_log.h) */
	uint32_t access_log_sample;	/**< 1 in N transactions logged */

	/* [tcp] */
	uint32_t max_conns;		/**< per worker, and for the control core */
	uint32_t max_request;
	uint16_t mss;			/**< 0 = MTU - 40 (IPv4) / - 60 (IPv6) */
	uint8_t wscale;
	uint32_t rcv_wnd;
	uint32_t rto_init_ms;
	uint32_t rto_min_ms;
	uint32_t rto_max_ms;
	uint32_t retries;
	uint32_t synack_retries;
	uint32_t idle_timeout_ms;
	uint32_t request_timeout_ms;	/**< 0 = none */
	uint32_t max_conns_per_source;	/**< control core's entries per source
					 *   address (IPv6: /64), 0 = no limit */
	uint32_t time_wait_ms;
	uint32_t time_wait_max;		/**< TIME-WAIT records per worker */
	uint8_t syncookies;		/**< enum tfo_syncookies_mode */

	/* [tfo] */
	bool tfo_enabled;
	char cookie_algo[32];		/**< aes128 | siphash-linux */
	char key_file[PATH_MAX];	/**< "" = random keys at start */
	uint32_t rotate_period_s;	/**< 0 = no automatic rotation */
	uint32_t pending_limit;		/**< per worker */
	uint32_t pending_hold_ms;
	uint32_t pending_per_source;	/**< per worker and source, 0 = no cap */
	bool cookie_not_required;	/**< TFO without cookies (trusted nets) */

	unsigned int nb_ports;
	struct tfo_cfg_port ports[TFO_MAX_PORTS];
	unsigned int nb_services;
	struct tfo_cfg_service services[TFO_MAX_SERVICES];
};

/** Set every key to its documented default; no ports, no services. */
void tfo_config_defaults(struct tfo_config *c);

/** The configuration compiled into the binary (config/tfo-server.ini). */
const char *tfo_config_embedded(void);

/**
 * Parse INI @p text named @p source (for messages) into @p c, on top of
 * what it holds. @return 0, or -EINVAL with one line in @p err.
 */
int tfo_config_parse_string(struct tfo_config *c, const char *text,
			    const char *source, char *err, size_t errlen);

/** Read and parse @p path; base_dir becomes the file's directory. */
int tfo_config_parse_file(struct tfo_config *c, const char *path, char *err,
			  size_t errlen);

/**
 * Set one key as the file would ("tfo", "pending_limit", "64"). Port and
 * service sections are addressed as "port DEVICE" / "service NAME", and
 * created by their first key. Section, key and value are trimmed as in
 * the file.
 */
int tfo_config_set(struct tfo_config *c, const char *section, const char *key,
		   const char *value, char *err, size_t errlen);

/**
 * A command-line override (--set): tfo_config_set, but a [port NAME] or
 * [service NAME] the configuration does not have is refused, with the
 * ones it has named (a typo must not add a section), unless @p key is the
 * one that starts such a section: a port's vdev (empty for a PCI device),
 * a service's port or plugin; a configuration without ports takes its
 * first one from any key. Section, key and value are trimmed, the
 * section's words separated by one space, as in the file.
 */
int tfo_config_override(struct tfo_config *c, const char *section, const char *key,
			const char *value, char *err, size_t errlen);

/**
 * The one-line message of a key refused for @p why, as parsing words it:
 * "SOURCE:LINE: [SECTION] KEY = "VALUE": WHY" for line @p line of the
 * file @p c was parsed from (bytes that do not show as \xNN), and
 * "[SECTION] KEY = "VALUE": WHY" for @p line 0 (tfo_config_set, --set).
 * For the layers that check a key after parsing (a service's own keys).
 * @return -EINVAL.
 */
int tfo_config_key_error(const struct tfo_config *c, unsigned int line, const char *section,
			 const char *key, const char *value, const char *why, char *err,
			 size_t errlen);

/** The one boolean grammar of every key: yes/no, on/off, true/false, 1/0,
 *  in any case. @return 0, or -EINVAL. */
int tfo_config_parse_bool(const char *s, bool *out);

/** Print the effective configuration in INI form. */
void tfo_config_dump(FILE *f, const struct tfo_config *c);

/** Print every key with its default and description (for --help-config). */
void tfo_config_help(FILE *f);

/** Parse "198.18.0.2/24" or "fd00::2/64" (prefix optional). */
int tfo_parse_addr(const char *s, struct tfo_local_addr *a);

/** Format @p a (family @p family) without prefix into @p buf (>= 46 bytes). */
const char *tfo_addr_str(int family, const struct tfo_addr *a, char *buf,
			 size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TFO_CONFIG_H */
