/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: where the files a configuration names are looked for when
 * it does not say (the embedded default configuration's www/, zones/).
 * A binary run from its meson build tree uses the source tree's config/
 * (tests, scripts/demo.sh); any other binary (installed, copied) uses the
 * installed data directory, datadir/tfo-fastpath. The source path is never
 * compiled in: the build tree holds it in a file (TFO_PATHS_MARKER) beside
 * meson-private/, so an installed binary names no source or build path
 * (tests/install_test.py checks). Start-up only.
 */
#ifndef TFO_PATHS_H
#define TFO_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The file in a meson build root naming the source tree's config/. */
#define TFO_PATHS_MARKER "tfo-config-dir"

/** How many directories up from the executable a build root is looked for
 *  (build/apps/tfo-server: 1; build/tests/fuzz/x: 2). */
#define TFO_PATHS_MAX_UP 3

/** The installed data directory (prefix/datadir/tfo-fastpath). */
const char *tfo_paths_datadir(void);

/** The installed configuration directory (sysconfdir/tfo-fastpath). */
const char *tfo_paths_sysconfdir(void);

/**
 * The directory relative paths of the embedded configuration resolve from,
 * for the executable @p exe (NULL: this process's, /proc/self/exe): the
 * source tree's config/ when @p exe lies within TFO_PATHS_MAX_UP levels of
 * a meson build root holding TFO_PATHS_MARKER, else tfo_paths_datadir().
 * Written to @p dir (@p len bytes, PATH_MAX is enough).
 *
 * @return true when it is the build tree's, false when the installed one.
 */
bool tfo_paths_base_dir(const char *exe, char *dir, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TFO_PATHS_H */
