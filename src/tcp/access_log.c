/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the access log (tcp/access_log.h): the lcores' rings of
 * records, control 0's formatting and file.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "tcp/access_log.h"
#include "tfo/log.h"

/* the ring's slots are records: whole 32-bit words */
static_assert(sizeof(struct tfo_alog_rec) == 128, "a record is 128 bytes");

/* What the file's buffer holds before a write(): the lines of a busy
 * second go out in a few system calls. */
#define TFO_ALOG_FILE_BUF (256 * 1024)

void
tfo_alog_src_flush(struct tfo_alog_src *a, const struct tfo_lat *l, uint64_t now)
{
	unsigned int n = a->nstage, done;
	uint32_t us = (uint32_t)RTE_MIN(tfo_lat_ticks_us(l, now - l->t_rx),
					(uint64_t)UINT32_MAX);

	for (unsigned int i = 0; i < n; i++) {
		a->stage[i].tsc = now;
		a->stage[i].lat_us = us;
	}
	done = rte_ring_sp_enqueue_burst_elem(a->ring, a->stage, sizeof(a->stage[0]), n,
					      NULL);
	a->st->c[TFO_STAT_access_log_records] += done;
	a->st->c[TFO_STAT_access_log_drop_full] += n - done;
	a->nstage = 0;
}

struct tfo_alog_src *
tfo_alog_src_create(const char *name, int socket, uint32_t sample, struct tfo_stats *st)
{
	struct tfo_alog_src *a = rte_zmalloc_socket(name, sizeof(*a), RTE_CACHE_LINE_SIZE,
						    socket);

	if (a == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	a->ring = rte_ring_create_elem(name, sizeof(struct tfo_alog_rec), TFO_ALOG_RING,
				       socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (a->ring == NULL) {
		rte_free(a);
		return NULL;
	}
	a->st = st;
	a->sample = RTE_MAX(sample, 1u);
	a->skip = a->sample;
	return a;
}

void
tfo_alog_src_free(struct tfo_alog_src *a)
{
	if (a == NULL)
		return;
	rte_ring_free(a->ring);
	rte_free(a);
}

/* ---- control 0 ------------------------------------------------------------ */

/* The UTC time of now and the TSC then, from which records' TSCs are
 * dated (re-read at every flush: the two clocks drift apart slowly). */
static void
tfo_alog_rebase(struct tfo_alog *a)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	a->base_tsc = rte_rdtsc();
	a->base_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
tfo_alog_open(struct tfo_alog *a)
{
	int fd, err;
	FILE *f;

	fd = open(a->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0 || (f = fdopen(fd, "a")) == NULL) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return -err;	/* the file open before stays */
	}
	if (a->f != NULL)
		fclose(a->f);
	a->f = f;
	setvbuf(a->f, NULL, _IOFBF, TFO_ALOG_FILE_BUF);
	tfo_alog_rebase(a);
	return 0;
}

/* The request line, quoted: printable ASCII as is, the rest as \xHH. */
static size_t
tfo_alog_quote(char *out, size_t cap, const char *s, unsigned int n)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (unsigned int i = 0; i < n && o + 5 < cap; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
			out[o++] = (char)ch;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = '\0';
	return o;
}

int
tfo_alog_format(const struct tfo_alog *a, const struct tfo_alog_rec *r, char *buf,
		size_t len)
{
	char addr[INET6_ADDRSTRLEN], req[TFO_ALOG_REQ_MAX * 4 + 8];
	int64_t ns = a->base_ns;
	const char *svc = a->svc_name[r->svc] != NULL ? a->svc_name[r->svc] : "-";
	time_t sec;
	struct tm tm;

	/* a record a little older than the base (taken before a rebase) */
	if (r->tsc >= a->base_tsc)
		ns += (int64_t)((r->tsc - a->base_tsc) * 1000000000.0 / (double)a->tsc_hz);
	else
		ns -= (int64_t)((a->base_tsc - r->tsc) * 1000000000.0 / (double)a->tsc_hz);
	sec = (time_t)(ns / 1000000000);
	gmtime_r(&sec, &tm);
	if (inet_ntop(r->family == AF_INET6 ? AF_INET6 : AF_INET, r->peer.b, addr,
		      sizeof(addr)) == NULL)
		snprintf(addr, sizeof(addr), "-");
	tfo_alog_quote(req, sizeof(req), r->req, RTE_MIN(r->req_len, TFO_ALOG_REQ_MAX));
	return snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s %u %s %s \"%s\" "
			"%u %" PRIu32 " %" PRIu32 "\n",
			tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			tm.tm_sec, (int)(ns / 1000000 % 1000), addr, r->peer_port,
			(r->flags & TFO_ALOG_F_TFO) ? "tfo" : "plain", svc, req, r->status,
			r->bytes, r->lat_us);
}

static void
tfo_alog_write(struct tfo_alog *a, const struct tfo_alog_rec *r, unsigned int n)
{
	char line[TFO_ALOG_REQ_MAX * 4 + 192];

	if (a->f == NULL) {
		a->st->c[TFO_STAT_access_log_write_error] += n;
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		int k = tfo_alog_format(a, &r[i], line, sizeof(line));

		if (k > 0 && fwrite(line, 1, (size_t)RTE_MIN((size_t)k, sizeof(line) - 1),
				    a->f) > 0)
			a->st->c[TFO_STAT_access_log_written]++;
		else
			a->st->c[TFO_STAT_access_log_write_error]++;
	}
}

static unsigned int
tfo_alog_take_all(struct tfo_alog *a)
{
	struct tfo_alog_rec recs[32];
	unsigned int total = 0;

	for (unsigned int i = 0; i < a->nb_src; i++) {
		unsigned int n;

		/* bounded: a ring's worth per call, so that a flood of
		 * records cannot hold control 0's other work */
		for (unsigned int k = 0; k < TFO_ALOG_RING / RTE_DIM(recs); k++) {
			n = rte_ring_sc_dequeue_burst_elem(a->src[i]->ring, recs,
							   sizeof(recs[0]), RTE_DIM(recs), NULL);
			if (n == 0)
				break;
			tfo_alog_write(a, recs, n);
			total += n;
		}
	}
	return total;
}

unsigned int
tfo_alog_poll(struct tfo_alog *a, uint64_t now_tsc)
{
	unsigned int n;

	if (unlikely(a->reopen)) {
		int rc;

		/* what was taken before goes to the old file (renamed by
		 * logrotate), then the new one is opened under the name */
		a->reopen = 0;
		if (a->f != NULL)
			fflush(a->f);
		rc = tfo_alog_open(a);
		if (rc == 0)
			TFO_LOG(INFO, "access_log %s: reopened", a->path);
		else
			TFO_LOG(ERR, "access_log %s: cannot reopen: %s (still writing to the "
				"file open before)", a->path, strerror(-rc));
	}
	n = tfo_alog_take_all(a);
	if (now_tsc >= a->next_flush_tsc) {
		a->next_flush_tsc = now_tsc + a->tsc_hz;
		if (a->f != NULL) {
			if (fflush(a->f) != 0)
				a->st->c[TFO_STAT_access_log_write_error]++;
			tfo_alog_rebase(a);
		}
	}
	return n;
}

void
tfo_alog_close(struct tfo_alog *a)
{
	tfo_alog_take_all(a);
	if (a->f != NULL) {
		fclose(a->f);
		a->f = NULL;
	}
}
