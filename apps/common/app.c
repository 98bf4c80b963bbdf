/* SPDX-License-Identifier: BSD-3-Clause
 * What every tfo application does the same way (see app.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_log.h>

#include "app.h"

static const char *app_name = "tfo";
static int app_die_code = 1;
static bool eal_started;
static char eal_runtime_dir[PATH_MAX];

/*
 * The instruction set the build assumed (-march: x86-64-v3 by default,
 * native on request), checked against this CPU: a binary copied to an
 * older one stops here with the reason instead of dying of SIGILL in the
 * middle of the start. Wider units the code uses are dispatched at run
 * time and not listed (siphash.c, aes128.c, ipsec-mb). A constructor
 * compiled for the x86-64 baseline: main() itself already uses AVX
 * encodings (-march=x86-64-v3 zeroes its structs with vmovdqa), and so
 * may the other constructors of the program, which run after this one.
 */
#if defined(__x86_64__)
#define APP_BASELINE __attribute__((target("arch=x86-64")))
#else
#define APP_BASELINE
#endif

APP_BASELINE static const char *
app_cpu_missing(void)
{
	__builtin_cpu_init();
#ifdef __AVX512F__
	if (!__builtin_cpu_supports("avx512f"))
		return "avx512f";
#endif
#ifdef __AVX2__
	if (!__builtin_cpu_supports("avx2"))
		return "avx2";
#endif
#ifdef __BMI2__
	if (!__builtin_cpu_supports("bmi2"))
		return "bmi2";
#endif
#ifdef __FMA__
	if (!__builtin_cpu_supports("fma"))
		return "fma";
#endif
#ifdef __AVX__
	if (!__builtin_cpu_supports("avx"))
		return "avx";
#endif
#ifdef __AES__
	if (!__builtin_cpu_supports("aes"))
		return "aes";
#endif
#ifdef __SSE4_2__
	if (!__builtin_cpu_supports("sse4.2"))
		return "sse4.2";
#endif
	return NULL;
}

/* 101: the first priority a program may use, before RTE_INIT's (65535) */
APP_BASELINE __attribute__((constructor(101))) static void
app_cpu_check(void)
{
	const char *missing = app_cpu_missing();

	if (missing == NULL)
		return;
	fprintf(stderr, "%s: this CPU lacks %s, which the build assumed (-march=%s): "
		"rebuild on it, or with -Dcpu_instruction_set=x86-64-v2 for older CPUs\n",
		program_invocation_short_name, missing, TFO_MARCH);
	exit(1);
}

void
app_init(const char *name, int die_code)
{
	app_name = name;
	app_die_code = die_code;
}

void
app_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", app_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	app_eal_stop();
	exit(app_die_code);
}

int
app_find_sep(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return -1;
}

/* A file a primary process's EAL leaves in its runtime directory with a
 * shared configuration (for secondaries): its config, the page and
 * memory tables. A secondary's own files (mp_socket_PID_...) are not. */
static bool
app_primary_file(const char *name)
{
	return strcmp(name, "config") == 0 || strcmp(name, "hugepage_info") == 0 ||
	       strcmp(name, "mp_socket") == 0 || strncmp(name, "fbarray_", 8) == 0;
}

/*
 * The runtime directory is empty only once the telemetry socket is gone,
 * and telemetry unlinks it from an atexit handler of its own, registered
 * inside rte_eal_init(): so ours is registered before, and runs after it.
 * Only a primary process removes it (a secondary's belongs to its primary).
 * With a shared configuration (without --no-shconf or --in-memory) the
 * EAL leaves its config and memory tables there for secondaries, which a
 * next start of the same prefix would only overwrite: they go too, unless
 * another process (a secondary such as dpdk-dumpcap) still has a file
 * there, in which case the directory stays whole.
 */
static void
app_runtime_dir_remove(void)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	bool others = false;
	DIR *d;

	if (eal_runtime_dir[0] == '\0')
		return;
	d = opendir(eal_runtime_dir);
	if (d != NULL) {
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' && !app_primary_file(e->d_name))
				others = true;
		rewinddir(d);
		while (!others && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", eal_runtime_dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(eal_runtime_dir);
	eal_runtime_dir[0] = '\0';
}

/*
 * net_tap on a kernel without the multiq qdisc (sch_multiq) logs four ERR
 * lines through its own logtype at every start ("tap_nl_dump_ext_ack():
 * Specified qdisc kind is unknown", "qdisc_create_multiq(): Could not add
 * multiq qdisc", "...failed to create multiq qdisc.", " Disabling rte flow
 * support"), which read as a failure; nothing else is wrong: it only
 * turns off rte_flow on the tap, which we do not need for packet I/O. A
 * log level cannot fold them (the lines are ERR, as real errors of the
 * same logtype are), so the EAL's stream is a filter that replaces that
 * sequence, and only it, with one line of ours. Every other line is
 * passed through as written.
 */
#define APP_LOG_LINE 1024

static struct {
	char line[APP_LOG_LINE];	/* the line being assembled */
	size_t n;
	char held[APP_LOG_LINE];	/* an ext-ack line kept for one line */
	bool multiq;			/* the last line was the multiq failure */
	bool said;			/* our one line is out */
} app_log;

static bool
app_log_has(const char *line, const char *what)
{
	return strstr(line, what) != NULL;
}

static void
app_log_line(const char *line)
{
	bool multiq = app_log_has(line, "qdisc_create_multiq()") ||
		      app_log_has(line, "failed to create multiq qdisc");

	/* " Disabling rte flow support" follows the multiq line (or the
	 * ingress qdisc's, which is a different story: kept) */
	if (multiq || (app_log.multiq && app_log_has(line, "Disabling rte flow support"))) {
		app_log.held[0] = '\0';
		app_log.multiq = true;
		if (!app_log.said)
			fputs("tfo: net_tap: this kernel has no multiq qdisc: rte_flow on "
			      "the tap is off; packet I/O is fine\n", stderr);
		app_log.said = true;
		return;
	}
	app_log.multiq = false;
	if (app_log.held[0] != '\0') {
		fputs(app_log.held, stderr);
		app_log.held[0] = '\0';
	}
	if (app_log_has(line, "tap_nl_dump_ext_ack()") &&
	    app_log_has(line, "qdisc kind is unknown")) {
		snprintf(app_log.held, sizeof(app_log.held), "%s", line);
		return;
	}
	fputs(line, stderr);
}

static ssize_t
app_log_write(void *cookie __rte_unused, const char *buf, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		app_log.line[app_log.n++] = buf[i];
		if (buf[i] == '\n' || app_log.n == sizeof(app_log.line) - 1) {
			app_log.line[app_log.n] = '\0';
			app_log_line(app_log.line);
			app_log.n = 0;
		}
	}
	fflush(stderr);
	return (ssize_t)size;
}

/* The EAL's log stream: stderr through the filter above, or stderr
 * itself when the filter cannot be made. */
static FILE *
app_log_stream(void)
{
	static const cookie_io_functions_t io = { .write = app_log_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (f == NULL)
		return stderr;
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* Is --syslog (with or without a facility) among the EAL arguments? */
static bool
app_has_syslog(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
		else if (strncmp(argv[i], "--syslog", 8) == 0 &&
			 (argv[i][8] == '\0' || argv[i][8] == '='))
			return true;
	return false;
}

int
app_eal_init(int argc, char **argv)
{
	static bool registered;
	int rc;

	if (!registered && atexit(app_runtime_dir_remove) == 0)
		registered = true;
	/* DPDK 22.11's default log stream writes each line to stderr and to
	 * syslog: under systemd (stderr is the journal) every line would be
	 * there twice. A stream set before rte_eal_init stays the one used;
	 * --syslog asks for syslog, so then the EAL's stream is kept. */
	if (!app_has_syslog(argc, argv))
		rte_openlog_stream(app_log_stream());
	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		return rc;
	eal_started = true;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s",
			 rte_eal_get_runtime_dir());
	return rc;
}

void
app_eal_stop(void)
{
	if (!eal_started)
		return;
	eal_started = false;
	rte_eal_cleanup();
	/* the directory goes at exit (app_runtime_dir_remove) */
}
