/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a configuration from a file (only a regular file, a UTF-8
 * BOM skipped). The keys, their parsing and printing are config.c's; the
 * checks of a configuration as a whole, which need the layers above, are
 * the assembly's (server/config_check.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/config.h"
#include "ops/file.h"
#include "tfo/log.h"

int
tfo_config_parse_file(struct tfo_config *c, const char *path, char *err,
		      size_t errlen)
{
	char *text, dir[PATH_MAX], why[128];
	struct stat st;
	ssize_t got = 0;
	int fd, rc;

	fd = tfo_open_regular(path, why, sizeof(why));
	if (fd < 0)
		return tfo_errmsg(err, errlen, "%s: %s", path, why);
	if (fstat(fd, &st) < 0 || st.st_size > (1 << 20)) {
		close(fd);
		return tfo_errmsg(err, errlen, "%s: unreadable or larger than 1 MiB", path);
	}
	text = malloc((size_t)st.st_size + 1);
	if (text == NULL) {
		close(fd);
		return tfo_errmsg(err, errlen, "%s: out of memory", path);
	}
	while (got < st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)(st.st_size - got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (got != st.st_size) {
		free(text);
		return tfo_errmsg(err, errlen, "%s: read error", path);
	}
	text[got] = '\0';
	if (strlen(text) != (size_t)got) {
		free(text);
		return tfo_errmsg(err, errlen, "%s: contains a NUL byte", path);
	}
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(c->base_dir, sizeof(c->base_dir), "%s", dirname(dir));
	rc = tfo_config_parse_string(c, text, path, err, errlen);
	free(text);
	return rc;
}
