/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the files an operator names (a configuration, a cookie key
 * file): opened only when regular, a UTF-8 byte order mark skipped. The
 * configuration (config_file.c), the key ring (keyring.c) and tfo-keytool
 * read their files through it; it depends on nothing but log.h, so that
 * neither of the first two has to import the other for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/file.h"
#include "tfo/log.h"

/*
 * Open @p path for reading only if it is a regular file: a FIFO without a
 * writer would block open() for ever, a device or a directory is a typo.
 * O_NONBLOCK keeps the open itself from waiting; the type is checked on the
 * descriptor (no race with a rename).
 */
int
tfo_open_regular(const char *path, char *why, size_t whylen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	int rc;

	if (fd < 0) {
		rc = -errno;
		tfo_errmsg(why, whylen, "%s", strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		tfo_errmsg(why, whylen, "%s", strerror(-rc));
	} else if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		tfo_errmsg(why, whylen, "%s, not a regular file",
			   S_ISDIR(st.st_mode) ? "a directory" :
			   S_ISFIFO(st.st_mode) ? "a FIFO" :
			   S_ISSOCK(st.st_mode) ? "a socket" : "a device");
	} else {
		/* reads of a regular file never wait; clear the flag anyway */
		(void)fcntl(fd, F_SETFL, 0);
		return fd;
	}
	close(fd);
	return rc;
}

const char *
tfo_skip_bom(const char *text)
{
	if ((unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb &&
	    (unsigned char)text[2] == 0xbf)
		return text + 3;
	return text;
}
