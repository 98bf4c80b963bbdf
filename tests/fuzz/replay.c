/* SPDX-License-Identifier: BSD-3-Clause
 * The corpus replay: a main() that feeds a libFuzzer harness every file
 * given (or every file of every directory given), so that the corpus runs
 * as a normal test under any compiler, sanitizers optional.
 *
 *   fuzz_replay_NAME FILE|DIR...
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static unsigned int nb_inputs;

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	/* exactly the file's size: ASan bounds the harness's reads */
	buf = malloc(len ? (size_t)len : 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	nb_inputs++;
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
replay_path(const char *path)
{
	struct dirent *de;
	struct stat st;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	DIR *d;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: no such file or directory\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (names == NULL)
				abort();
		}
		if (asprintf(&names[n], "%s/%s", path, de->d_name) < 0)
			abort();
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);	/* same order every run */
	for (size_t i = 0; i < n; i++) {
		rc |= replay_path(names[i]);
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		rc |= replay_path(argv[i]);
	printf("replayed %u inputs: %s\n", nb_inputs, rc ? "read errors" : "no invariant broken");
	if (nb_inputs == 0)
		return 1;
	return rc ? 1 : 0;
}
