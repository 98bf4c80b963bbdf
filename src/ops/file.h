/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the files an operator names (a configuration, a cookie key
 * file): opened only when regular, a UTF-8 byte order mark skipped.
 */
#ifndef TFO_FILE_H
#define TFO_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Open @p path read-only, refusing anything but a regular file (a FIFO
 * with no writer would hang the open; a directory or device is a typo).
 * Never blocks. @return the descriptor, or a negative errno with the
 * reason (without the path) in @p why.
 */
int tfo_open_regular(const char *path, char *why, size_t whylen);

/** @p text past a UTF-8 byte order mark, if it starts with one (files
 *  written by some editors do; it is not part of the content). */
const char *tfo_skip_bom(const char *text);

#ifdef __cplusplus
}
#endif

#endif /* TFO_FILE_H */
