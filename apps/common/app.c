/* SPDX-License-Identifier: BSD-3-Clause
 * What every tfo application does the same way (see app.h).
 */
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

/*
 * The runtime directory is empty only once the telemetry socket is gone,
 * and telemetry unlinks it from an atexit handler of its own, registered
 * inside rte_eal_init(): so ours is registered before, and runs after it.
 * Only a primary process removes it (a secondary's belongs to its primary),
 * and rmdir() leaves it alone while another process still has a file there.
 */
static void
app_runtime_dir_remove(void)
{
	if (eal_runtime_dir[0] != '\0')
		rmdir(eal_runtime_dir);
	eal_runtime_dir[0] = '\0';
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
		rte_openlog_stream(stderr);
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
