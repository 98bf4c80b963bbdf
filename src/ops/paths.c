/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the build tree's or the installed directories (paths.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/paths.h"

/* meson.build defines both from its directory options (absolute) */
#ifndef TFO_DATADIR
#define TFO_DATADIR "/usr/local/share/tfo-fastpath"
#endif
#ifndef TFO_SYSCONFDIR
#define TFO_SYSCONFDIR "/usr/local/etc/tfo-fastpath"
#endif

const char *
tfo_paths_datadir(void)
{
	return TFO_DATADIR;
}

const char *
tfo_paths_sysconfdir(void)
{
	return TFO_SYSCONFDIR;
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Is @p root a meson build root with our marker? Then its first line, the
 * source tree's config/, goes to @p dir. Both the marker and meson-private/
 * are asked for, so that a stray file beside an installed binary does not
 * move its configuration.
 */
static bool
build_root_config(const char *root, char *dir, size_t len)
{
	char path[PATH_MAX + 32], line[PATH_MAX];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/meson-private", root);
	if (!is_dir(path))
		return false;
	snprintf(path, sizeof(path), "%s/" TFO_PATHS_MARKER, root);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	line[strcspn(line, "\n")] = '\0';
	if (line[0] != '/' || strlen(line) >= len || !is_dir(line))
		return false;
	snprintf(dir, len, "%s", line);
	return true;
}

bool
tfo_paths_base_dir(const char *exe, char *dir, size_t len)
{
	char real[PATH_MAX];

	if (realpath(exe != NULL ? exe : "/proc/self/exe", real) != NULL) {
		for (int up = 0; up <= TFO_PATHS_MAX_UP; up++) {
			char *slash = strrchr(real, '/');

			if (slash == NULL || slash == real)
				break;
			*slash = '\0';	/* the executable's directory, then up */
			if (build_root_config(real, dir, len))
				return true;
		}
	}
	snprintf(dir, len, "%s", TFO_DATADIR);
	return false;
}
