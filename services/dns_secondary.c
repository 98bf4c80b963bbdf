/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's secondary zones kept fresh (dns_xfr.h).
 *
 * One helper thread per dns service does every transfer, one at a time,
 * over a kernel TCP socket: never a worker, never the control lcore, so a
 * slow or silent primary stalls nobody (every wait is a poll() of at most
 * 100 ms that also watches for the stop). A zone is fetched at start, when
 * its SOA refresh timer runs out (the retry timer after a failure) and
 * when a NOTIFY from its primary arrives (handle() sets the zone's flag,
 * the thread looks every 50 ms). IXFR is asked when we hold a version;
 * an IXFR answer that does not apply, or is malformed, is retried as AXFR.
 *
 * A transfer's records replace the zone's under the lock reload() takes
 * too, and the zone set is rebuilt and published by dns.c's publish
 * callback, exactly as a reload does (svc_retire.h frees the old one). A
 * failure keeps the old records: the old zone serves. Past the SOA expire
 * without a successful refresh the zone is dropped from the set and its
 * names answered SERVFAIL (RFC 1034 4.3.5), logged once.
 *
 * The service API gives counters to handle() only (each lcore's own): the
 * thread adds to its own atomic ones and raises a flag; the next handle()
 * on any lcore moves them to that lcore's counters (dns_secondary_fold).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "tfo/log.h"

#include "dns_xfr.h"

#define SEC_FIRST_RETRY_S 5	/* before a first version: no SOA retry yet */
#define SEC_CONNECT_MS 5000
#define SEC_IDLE_MS 10000	/* no byte from the primary this long: failed */
#define SEC_TOTAL_MS 300000	/* one transfer at most */
#define SEC_TICK_MS 50

struct dns_secondary_zone {
	struct dns_secondary_src src;
	/* under sec->lock: what the zone set is built from */
	struct dns_recs recs;
	bool loaded;
	/* the thread's */
	uint32_t serial, refresh, retry, expire;
	uint64_t next_ms, expire_ms;
	enum dns_xfr_err last_err;	/* the last failure's, logged on change */
	/* shared with handle() */
	uint32_t notify;		/* atomic: a NOTIFY came */
	uint8_t down;			/* atomic: not served, SERVFAIL */
};

struct dns_secondary {
	unsigned int nb;
	uint32_t nb_down;		/* atomic */
	uint32_t ctr_new;		/* atomic: ctr has counts to fold */
	uint64_t ctr[DNS_XC_MAX];	/* atomic */
	pthread_mutex_t lock;
	pthread_t thread;
	bool running;
	uint32_t stop;			/* atomic */
	bool dirty;			/* the thread's: publish again */
	uint16_t id;
	dns_secondary_publish_fn publish;
	void *arg;
	uint8_t buf[2 + 65535];
	struct dns_secondary_zone z[];
};

static const char *const err_names[DNS_XE_MAX] = {
	[DNS_XE_CONNECT] = "connect", [DNS_XE_TRUNCATED] = "truncated",
	[DNS_XE_MESSAGE] = "message", [DNS_XE_RCODE] = "rcode", [DNS_XE_ZONE] = "zone",
	[DNS_XE_SERIAL] = "serial",
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
sec_count(struct dns_secondary *sec, enum dns_xfr_ctr c)
{
	__atomic_fetch_add(&sec->ctr[c], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&sec->ctr_new, 1, __ATOMIC_RELEASE);
}

void
dns_secondary_fold(struct dns_secondary *sec, uint64_t *ctr)
{
	if (__atomic_load_n(&sec->ctr_new, __ATOMIC_RELAXED) == 0 ||
	    __atomic_exchange_n(&sec->ctr_new, 0, __ATOMIC_ACQUIRE) == 0)
		return;
	for (unsigned int i = 0; i < DNS_XC_MAX; i++)
		ctr[i] += __atomic_exchange_n(&sec->ctr[i], 0, __ATOMIC_RELAXED);
}

bool
dns_secondary_down(const struct dns_secondary *sec, const uint8_t *lname)
{
	if (__atomic_load_n(&sec->nb_down, __ATOMIC_RELAXED) == 0)
		return false;
	for (unsigned int i = 0; i < sec->nb; i++)
		if (__atomic_load_n(&sec->z[i].down, __ATOMIC_RELAXED) &&
		    dns_name_under(lname, sec->z[i].src.origin))
			return true;
	return false;
}

bool
dns_secondary_notify(struct dns_secondary *sec, const uint8_t *lname, uint8_t family,
	       const uint8_t *addr)
{
	/* origins are unique: at most one zone matches */
	for (unsigned int k = 0; k < sec->nb; k++) {
		if (dns_notify_verdict(&sec->z[k].src, 1, lname, family, addr) == 0) {
			__atomic_store_n(&sec->z[k].notify, 1, __ATOMIC_RELEASE);
			return true;
		}
	}
	return false;
}

void
dns_secondary_lock(struct dns_secondary *sec)
{
	if (sec != NULL)
		pthread_mutex_lock(&sec->lock);
}

void
dns_secondary_unlock(struct dns_secondary *sec)
{
	if (sec != NULL)
		pthread_mutex_unlock(&sec->lock);
}

int
dns_secondary_build(struct dns_secondary *sec, const struct dns_zone_src *z, unsigned int nb,
	      int socket, uint16_t edns_size, struct dns_set **out, char *why,
	      size_t whylen)
{
	unsigned int cap = sec != NULL ? sec->nb : 0, n = 0;
	struct dns_recs *recs = calloc(cap + 1, sizeof(*recs));
	uint8_t (*origins)[DNS_NAME_MAX] = calloc(cap + 1, sizeof(*origins));
	const char **names = calloc(cap + 1, sizeof(*names));
	int rc;

	if (recs == NULL || origins == NULL || names == NULL) {
		rc = tfo_errmsg(why, whylen, "out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < cap; i++) {
		if (!sec->z[i].loaded)
			continue;
		memcpy(origins[n], sec->z[i].src.origin, dns_name_len(sec->z[i].src.origin));
		names[n] = sec->z[i].src.text;
		recs[n++] = sec->z[i].recs;
	}
	rc = dns_set_load(z, nb, recs, (const uint8_t (*)[DNS_NAME_MAX])origins, names, n,
			  socket, edns_size, out, why, whylen);
out:
	free(recs);
	free(origins);
	free(names);
	return rc;
}

/* ------------------------------------------------------------------ */
/* one transfer                                                        */

/* Wait for @p ev on @p fd until @p deadline (ms) or the stop. */
static int
sec_wait(struct dns_secondary *sec, int fd, short ev, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		uint64_t now = now_ms();
		int rc;

		if (__atomic_load_n(&sec->stop, __ATOMIC_RELAXED))
			return -ECANCELED;
		if (now >= deadline)
			return -ETIMEDOUT;
		rc = poll(&p, 1, (int)RTE_MIN(deadline - now, 100u));
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

static int
sec_connect(struct dns_secondary *sec, const struct dns_secondary_src *s)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, e = 0;

	memset(&ss, 0, sizeof(ss));
	if (s->family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(s->port);
		memcpy(&a->sin_addr, s->addr, 4);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(s->port);
		memcpy(&a->sin6_addr, s->addr, 16);
		sl = sizeof(*a);
	}
	fd = socket(s->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		socklen_t el = sizeof(e);

		if (errno != EINPROGRESS) {
			e = -errno;
			close(fd);
			return e;
		}
		e = sec_wait(sec, fd, POLLOUT, now_ms() + SEC_CONNECT_MS);
		if (e == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e != 0)
			e = -e;
		if (e < 0) {
			close(fd);
			return e;
		}
	}
	return fd;
}

/* Send the query and read the answer's messages into @p rx until done. */
static int
sec_exchange(struct dns_secondary *sec, int fd, struct dns_xfr_rx *rx, uint32_t qlen,
	     enum dns_xfr_err *err, char *why, size_t whylen)
{
	uint64_t end = now_ms() + SEC_TOTAL_MS;
	uint32_t have = 0, sent = 0;

	while (sent < qlen) {
		ssize_t n = send(fd, sec->buf + sent, qlen - sent, MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			*err = DNS_XE_CONNECT;
			return tfo_errmsg(why, whylen, "send: %s", strerror(errno));
		}
		if (n > 0)
			sent += (uint32_t)n;
		else if (sec_wait(sec, fd, POLLOUT, now_ms() + SEC_IDLE_MS) < 0)
			break;
	}
	while (!rx->done) {
		uint32_t need = have < 2 ? 2 : 2u + (uint32_t)(sec->buf[0] << 8 | sec->buf[1]);
		ssize_t n;
		int rc;

		if (have >= 2 && have == need) {
			if (dns_xfr_msg(rx, sec->buf + 2, need - 2, err, why, whylen) < 0)
				return -EINVAL;
			have = 0;
			continue;
		}
		rc = sec_wait(sec, fd, POLLIN, RTE_MIN(end, now_ms() + SEC_IDLE_MS));
		if (rc < 0) {
			*err = DNS_XE_TRUNCATED;
			return tfo_errmsg(why, whylen, "%s after %u records",
					  rc == -ETIMEDOUT ? "stalled" : strerror(-rc),
					  rx->rrs.n);
		}
		n = recv(fd, sec->buf + have, need - have, 0);
		if (n == 0) {
			*err = DNS_XE_TRUNCATED;
			return tfo_errmsg(why, whylen, "the primary closed the connection "
					  "after %u records, before the closing SOA", rx->rrs.n);
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			*err = DNS_XE_TRUNCATED;
			return tfo_errmsg(why, whylen, "recv: %s", strerror(errno));
		}
		have += (uint32_t)n;
	}
	return 0;
}

/* AXFR (@p ixfr false) or IXFR of zone @p z into @p out: as dns_xfr_result. */
static int
sec_transfer(struct dns_secondary *sec, struct dns_secondary_zone *z, bool ixfr,
	     struct dns_recs *out,
	     bool *ixfr_used, enum dns_xfr_err *err, char *why, size_t whylen)
{
	struct dns_xfr_rx rx = { .origin = z->src.origin };
	const struct dns_rec *soa = NULL;
	uint32_t qlen;
	int fd, rc;

	for (unsigned int i = 0; ixfr && i < z->recs.n && soa == NULL; i++)
		if (z->recs.r[i].type == DNS_T_SOA)
			soa = &z->recs.r[i];
	rx.id = ++sec->id;
	rx.ixfr = soa != NULL;
	rx.our_serial = z->serial;
	fd = sec_connect(sec, &z->src);
	if (fd < 0) {
		*err = DNS_XE_CONNECT;
		return tfo_errmsg(why, whylen, "connect: %s", strerror(-fd));
	}
	qlen = dns_xfr_query(sec->buf, rx.id, z->src.origin, soa ? soa->rdata : NULL,
			     soa ? soa->rdlen : 0, soa ? soa->ttl : 0);
	rc = sec_exchange(sec, fd, &rx, qlen, err, why, whylen);
	close(fd);
	if (rc == 0)
		rc = dns_xfr_result(&rx, &z->recs, z->loaded, z->serial, out, ixfr_used,
				    err, why, whylen);
	dns_xfr_rx_free(&rx);
	return rc;
}

/* ------------------------------------------------------------------ */
/* the timers                                                          */

static void
sec_times(struct dns_secondary_zone *z)
{
	for (unsigned int i = 0; i < z->recs.n; i++)
		if (z->recs.r[i].type == DNS_T_SOA)
			dns_soa_times(z->recs.r[i].rdata, z->recs.r[i].rdlen, &z->serial,
				      &z->refresh, &z->retry, &z->expire);
}

static void
sec_fail(struct dns_secondary *sec, struct dns_secondary_zone *z, enum dns_xfr_err e,
	 const char *why)
{
	char n[DNS_NAME_MAX * 4];
	uint32_t retry = z->loaded ? RTE_MAX(z->retry, 1u) : SEC_FIRST_RETRY_S;

	sec_count(sec, (enum dns_xfr_ctr)(DNS_XC_FAILED_CONNECT + e - 1));
	z->next_ms = now_ms() + (uint64_t)retry * 1000;
	dns_name_str(z->src.origin, n, sizeof(n));
	/* one line per failure; a primary that stays down repeats it every
	 * retry interval only while the reason stays the same */
	if (e == z->last_err && !z->loaded)
		return;
	z->last_err = e;
	if (z->loaded)
		TFO_LOG(WARNING, "dns: secondary %s: transfer from %s failed (%s): %s; "
			"serial %u keeps serving, retry in %u s", n, z->src.text,
			err_names[e], why, z->serial, retry);
	else
		TFO_LOG(WARNING, "dns: secondary %s: transfer from %s failed (%s): %s; "
			"not served yet (SERVFAIL), retry in %u s", n, z->src.text,
			err_names[e], why, retry);
}

static void
sec_set_down(struct dns_secondary *sec, struct dns_secondary_zone *z, bool down)
{
	if (__atomic_load_n(&z->down, __ATOMIC_RELAXED) == down)
		return;
	__atomic_store_n(&z->down, down, __ATOMIC_RELAXED);
	if (down)
		__atomic_fetch_add(&sec->nb_down, 1, __ATOMIC_RELEASE);
	else
		__atomic_fetch_sub(&sec->nb_down, 1, __ATOMIC_RELEASE);
}

/* Publish with the lock held; @return as reload(). */
static int
sec_publish(struct dns_secondary *sec, char *msg, size_t msglen)
{
	int rc = sec->publish(sec->arg, msg, msglen);

	sec->dirty = rc == -EBUSY;
	return rc;
}

static void
sec_refresh(struct dns_secondary *sec, struct dns_secondary_zone *z)
{
	struct dns_recs out = { 0 }, old;
	enum dns_xfr_err err = DNS_XE_NONE;
	char why[512] = "", msg[512] = "", n[DNS_NAME_MAX * 4];
	bool ixfr_used = false;
	int rc;

	rc = sec_transfer(sec, z, z->loaded, &out, &ixfr_used, &err, why, sizeof(why));
	/* any doubt about an IXFR: the whole zone instead */
	if (rc < 0 && z->loaded && err != DNS_XE_CONNECT && err != DNS_XE_SERIAL &&
	    !__atomic_load_n(&sec->stop, __ATOMIC_RELAXED)) {
		why[0] = '\0';
		rc = sec_transfer(sec, z, false, &out, &ixfr_used, &err, why, sizeof(why));
	}
	if (rc < 0) {
		if (err != DNS_XE_NONE && !__atomic_load_n(&sec->stop, __ATOMIC_RELAXED))
			sec_fail(sec, z, err, why);
		return;
	}
	if (rc == 0) {
		/* the primary confirms our version: the expire timer restarts */
		sec_count(sec, DNS_XC_UPTODATE);
		z->next_ms = now_ms() + (uint64_t)RTE_MAX(z->refresh, 1u) * 1000;
		z->expire_ms = now_ms() + (uint64_t)z->expire * 1000;
		return;
	}
	dns_secondary_lock(sec);
	old = z->recs;
	z->recs = out;
	z->loaded = true;
	rc = sec_publish(sec, msg, sizeof(msg));
	if (rc < 0 && rc != -EBUSY) {
		/* the records make no zone we serve: the old ones stay */
		z->recs = old;
		z->loaded = old.n != 0;
		dns_secondary_unlock(sec);
		dns_recs_free(&out);
		sec_fail(sec, z, DNS_XE_ZONE, msg);
		return;
	}
	dns_secondary_unlock(sec);
	dns_recs_free(&old);
	sec_times(z);
	/* -EBUSY: served from the next publication (sec_main) */
	if (rc != -EBUSY)
		sec_set_down(sec, z, false);
	z->last_err = DNS_XE_NONE;
	sec_count(sec, DNS_XC_OK);
	if (ixfr_used)
		sec_count(sec, DNS_XC_IXFR);
	z->next_ms = now_ms() + (uint64_t)RTE_MAX(z->refresh, 1u) * 1000;
	z->expire_ms = now_ms() + (uint64_t)z->expire * 1000;
	dns_name_str(z->src.origin, n, sizeof(n));
	TFO_LOG(INFO, "dns: secondary %s: serial %u from %s by %s (%u records); %s", n,
		z->serial, z->src.text, ixfr_used ? "IXFR" : "AXFR", z->recs.n,
		rc == -EBUSY ? "served once a replaced set drains" : msg);
}

/* RFC 1034 4.3.5: past expire the zone is no longer authoritative. */
static void
sec_expire(struct dns_secondary *sec, struct dns_secondary_zone *z)
{
	char n[DNS_NAME_MAX * 4], msg[512];
	struct dns_recs old;

	dns_secondary_lock(sec);
	old = z->recs;
	memset(&z->recs, 0, sizeof(z->recs));
	z->loaded = false;
	sec_set_down(sec, z, true);
	sec_publish(sec, msg, sizeof(msg));
	dns_secondary_unlock(sec);
	dns_recs_free(&old);
	sec_count(sec, DNS_XC_EXPIRED);
	dns_name_str(z->src.origin, n, sizeof(n));
	TFO_LOG(ERR, "dns: secondary %s: expired (no refresh from %s for %u s, SOA "
		"expire): answered SERVFAIL until a transfer succeeds", n, z->src.text,
		z->expire);
}

static void *
sec_main(void *arg)
{
	struct dns_secondary *sec = arg;
	const struct timespec tick = { 0, SEC_TICK_MS * 1000000L };

	while (!__atomic_load_n(&sec->stop, __ATOMIC_RELAXED)) {
		for (unsigned int i = 0; i < sec->nb; i++) {
			struct dns_secondary_zone *z = &sec->z[i];
			uint64_t now = now_ms();

			if (__atomic_exchange_n(&z->notify, 0, __ATOMIC_ACQUIRE))
				z->next_ms = now;
			if (z->loaded && now >= z->expire_ms)
				sec_expire(sec, z);
			if (now >= z->next_ms)
				sec_refresh(sec, z);
		}
		if (sec->dirty) {
			char msg[512];
			int rc;

			dns_secondary_lock(sec);
			rc = sec_publish(sec, msg, sizeof(msg));
			dns_secondary_unlock(sec);
			for (unsigned int i = 0; rc > 0 && i < sec->nb; i++)
				if (sec->z[i].loaded)
					sec_set_down(sec, &sec->z[i], false);
		}
		nanosleep(&tick, NULL);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* life cycle                                                          */

struct dns_secondary *
dns_secondary_create(const struct dns_secondary_src *src, unsigned int nb,
		     dns_secondary_publish_fn publish,
	       void *arg)
{
	struct dns_secondary *sec = calloc(1, sizeof(*sec) + nb * sizeof(sec->z[0]));

	if (sec == NULL)
		return NULL;
	pthread_mutex_init(&sec->lock, NULL);
	sec->nb = nb;
	sec->publish = publish;
	sec->arg = arg;
	for (unsigned int i = 0; i < nb; i++) {
		sec->z[i].src = src[i];
		sec->z[i].down = 1;
	}
	sec->nb_down = nb;
	return sec;
}

int
dns_secondary_start(struct dns_secondary *sec)
{
	sigset_t all, old;
	int rc;

	/* signals (SIGHUP, SIGINT) stay the main thread's business */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&sec->thread, NULL, sec_main, sec);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -rc;
	sec->running = true;
	pthread_setname_np(sec->thread, "tfo-dns-xfr");
	return 0;
}

void
dns_secondary_destroy(struct dns_secondary *sec)
{
	if (sec == NULL)
		return;
	if (sec->running) {
		__atomic_store_n(&sec->stop, 1, __ATOMIC_RELEASE);
		pthread_join(sec->thread, NULL);
	}
	for (unsigned int i = 0; i < sec->nb; i++)
		dns_recs_free(&sec->z[i].recs);
	pthread_mutex_destroy(&sec->lock);
	free(sec);
}
