/* SPDX-License-Identifier: BSD-3-Clause
 * What every tfo application does the same way: the one-line fatal error,
 * the EAL start and stop (with its runtime directory), the "--" that
 * separates the EAL arguments from the application's.
 */
#ifndef TFO_APP_H
#define TFO_APP_H

#include <stdbool.h>

/** Name the program for app_die's messages, and its exit code. */
void app_init(const char *name, int die_code);

/** Print "NAME: MESSAGE" on stderr, stop the EAL if started, exit. */
void app_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/** Index of the first "--" in @p argv, or -1. */
int app_find_sep(int argc, char **argv);

/** rte_eal_init(); on success app_die and app_eal_stop stop it, and the
 *  runtime directory of a primary process is removed at exit (with the
 *  EAL's own files of a shared configuration, unless another process
 *  still has a file there).
 *  Log lines go to stderr only (one copy in the journal), unless the
 *  arguments ask for --syslog (then stderr and syslog, as the EAL does).
 *  @return rte_eal_init's result. */
int app_eal_init(int argc, char **argv);

/** rte_eal_cleanup(). Nothing when the EAL was not started. The runtime
 *  directory is removed at exit, once telemetry's socket is gone. */
void app_eal_stop(void);

#endif /* TFO_APP_H */
