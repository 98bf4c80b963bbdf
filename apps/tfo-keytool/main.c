/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-keytool: TFO cookie keys and cookies from the command line, for
 * operators debugging a fleet (no DPDK environment needed).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "ops/file.h"
#include "cookie/cookie.h"

#define EXIT_USAGE 2

static const char usage_text[] =
"usage: tfo-keytool COMMAND [options]\n"
"\n"
"Commands:\n"
"  gen [--backup]\n"
"      Print a fresh random key (getrandom) in Linux's tcp_fastopen_key\n"
"      format, xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx; with --backup, two keys\n"
"      as \"primary,backup\". The output is a valid tfo-server key file and a\n"
"      valid value for sysctl net.ipv4.tcp_fastopen_key.\n"
"  cookie KEY --client ADDR --server ADDR [--algo aes128|siphash-linux]\n"
"      Print the 8-byte TFO cookie the server would issue to client ADDR\n"
"      connecting to server ADDR, as 16 lowercase hex digits (the bytes as\n"
"      they appear in the TCP option). aes128 (default) is the cookie of\n"
"      Linux 3.7-5.1 and of tfo-server's default; siphash-linux is the\n"
"      cookie of Linux 5.2 and later. Both addresses IPv4 or both IPv6.\n"
"  check KEY --client ADDR --server ADDR --cookie HEX [--algo ...]\n"
"      Say whether the server would accept that cookie: prints \"primary\",\n"
"      \"backup\" or \"bad\"; exit status 0, 0 or 1.\n"
"  fingerprint KEY\n"
"      Print the fingerprint of the key (16 hex digits; the backup's on a\n"
"      second line if KEY has one). tfo-server logs and reports these, never\n"
"      the keys; compare them to check that a fleet shares its keys.\n"
"\n"
"KEY is one of:\n"
"  --key TEXT       the key text: \"primary\" or \"primary,backup\"\n"
"  --key -          read the key text from standard input\n"
"  --key-file PATH  read it from a file (tfo-server's key_file)\n"
"  A key on the command line is visible to other users (ps): prefer the\n"
"  other two. cookie uses the primary key; check tries primary then backup.\n"
"\n"
"Exit status: 0 success, 1 error (or \"bad\" for check), 2 usage error.\n";

struct opts {
	const char *key_text;
	const char *key_file;
	const char *client;
	const char *server;
	const char *cookie;
	enum tfo_cookie_algo algo;
	bool backup;
};

static int __attribute__((format(printf, 1, 2)))
die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tfo-keytool: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tfo-keytool --help'.\n");
	return EXIT_USAGE;
}

/* Read the key text from --key, --key - or --key-file. */
static int
load_keys(const struct opts *o, struct tfo_key *p, struct tfo_key *b,
	  bool *has_backup)
{
	char buf[256];
	const char *text = o->key_text;
	int rc;

	if ((o->key_text == NULL) == (o->key_file == NULL)) {
		fprintf(stderr, "tfo-keytool: give exactly one of --key and "
			"--key-file\n");
		return -EINVAL;
	}
	if (o->key_file != NULL || strcmp(o->key_text, "-") == 0) {
		FILE *f = stdin;
		char why[128];
		size_t n;

		/* a regular file only, as tfo-server's: a FIFO would hang */
		if (o->key_file != NULL) {
			int fd = tfo_open_regular(o->key_file, why, sizeof(why));

			f = fd < 0 ? NULL : fdopen(fd, "r");
			if (f == NULL) {
				if (fd >= 0)
					close(fd);
				fprintf(stderr, "tfo-keytool: %s: %s\n", o->key_file,
					fd < 0 ? why : strerror(errno));
				return fd < 0 ? fd : -EIO;
			}
		}
		n = fread(buf, 1, sizeof(buf) - 1, f);
		if (f != stdin)
			fclose(f);
		buf[n] = '\0';
		text = buf;
	}
	rc = tfo_key_parse(tfo_skip_bom(text), p, b, has_backup);
	explicit_bzero(buf, sizeof(buf));
	if (rc < 0)
		fprintf(stderr, "tfo-keytool: the key is not in tcp_fastopen_key "
			"format: xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx (32 hex "
			"digits), optionally followed by ,<backup key>\n");
	return rc;
}

static int
parse_addr(const char *what, const char *s, int *family, struct tfo_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (s == NULL) {
		fprintf(stderr, "tfo-keytool: --%s ADDR is required\n", what);
		return -EINVAL;
	}
	if (inet_pton(AF_INET, s, a->b) == 1) {
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->b) == 1) {
		*family = AF_INET6;
		return 0;
	}
	fprintf(stderr, "tfo-keytool: --%s: '%s' is not an IPv4 or IPv6 "
		"address\n", what, s);
	return -EINVAL;
}

static int
cmd_gen(const struct opts *o)
{
	struct tfo_key k[2];
	char text[2][40];

	for (int i = 0; i < (o->backup ? 2 : 1); i++) {
		int rc = tfo_key_generate(&k[i]);

		if (rc < 0) {
			fprintf(stderr, "tfo-keytool: getrandom: %s\n",
				strerror(-rc));
			return 1;
		}
		tfo_key_format(&k[i], text[i], sizeof(text[i]));
	}
	if (o->backup)
		printf("%s,%s\n", text[0], text[1]);
	else
		printf("%s\n", text[0]);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(text, sizeof(text));
	return 0;
}

static int
compute(const struct opts *o, const struct tfo_key *k, uint8_t ck[8])
{
	struct tfo_addr c, s;
	int fc, fs, rc;

	if (parse_addr("client", o->client, &fc, &c) < 0 ||
	    parse_addr("server", o->server, &fs, &s) < 0)
		return -EINVAL;
	if (fc != fs) {
		fprintf(stderr, "tfo-keytool: --client and --server must both "
			"be IPv4 or both IPv6\n");
		return -EINVAL;
	}
	rc = tfo_cookie_compute(o->algo, k, fc, &c, &s, ck);
	if (rc == -ENOTSUP)
		fprintf(stderr, "tfo-keytool: aes128 needs a CPU with AES-NI\n");
	else if (rc < 0)
		fprintf(stderr, "tfo-keytool: %s\n", strerror(-rc));
	return rc;
}

static int
cmd_cookie(const struct opts *o)
{
	struct tfo_key p, b;
	uint8_t ck[8];
	bool two;
	int rc;

	if (load_keys(o, &p, &b, &two) < 0)
		return 1;
	rc = compute(o, &p, ck);
	explicit_bzero(&p, sizeof(p));
	explicit_bzero(&b, sizeof(b));
	if (rc < 0)
		return 1;
	for (int i = 0; i < 8; i++)
		printf("%02x", ck[i]);
	printf("\n");
	return 0;
}

static int
cmd_check(const struct opts *o)
{
	struct tfo_key k[2];
	uint8_t want[8], got[8];
	const char *verdict = "bad";
	bool two;
	int rc = 0;

	if (o->cookie == NULL) {
		fprintf(stderr, "tfo-keytool: --cookie HEX is required\n");
		return 1;
	}
	if (strlen(o->cookie) != 16 ||
	    strspn(o->cookie, "0123456789abcdefABCDEF") != 16) {
		fprintf(stderr, "tfo-keytool: --cookie: 16 hex digits expected "
			"(an 8-byte cookie; tfo-server issues no other length)\n");
		return 1;
	}
	for (int i = 0; i < 8; i++)
		sscanf(o->cookie + 2 * i, "%2hhx", &want[i]);
	if (load_keys(o, &k[0], &k[1], &two) < 0)
		return 1;
	for (int i = 0; i < (two ? 2 : 1) && rc == 0; i++) {
		rc = compute(o, &k[i], got);
		if (rc == 0 && memcmp(got, want, 8) == 0) {
			verdict = i == 0 ? "primary" : "backup";
			break;
		}
	}
	explicit_bzero(k, sizeof(k));
	if (rc < 0)
		return 1;
	printf("%s\n", verdict);
	return strcmp(verdict, "bad") == 0 ? 1 : 0;
}

static int
cmd_fingerprint(const struct opts *o)
{
	struct tfo_key p, b;
	char fp[17];
	bool two;

	if (load_keys(o, &p, &b, &two) < 0)
		return 1;
	tfo_key_fingerprint(&p, fp);
	printf("%s\n", fp);
	if (two) {
		tfo_key_fingerprint(&b, fp);
		printf("%s\n", fp);
	}
	explicit_bzero(&p, sizeof(p));
	explicit_bzero(&b, sizeof(b));
	return 0;
}

/* The first option given that @p cmd does not take, or NULL. */
static const char *
misplaced(const char *cmd, const struct opts *o)
{
	bool gen = strcmp(cmd, "gen") == 0, fp = strcmp(cmd, "fingerprint") == 0;

	if (gen && (o->key_text != NULL || o->key_file != NULL))
		return "--key/--key-file";
	if ((gen || fp) && (o->client != NULL || o->server != NULL))
		return "--client/--server";
	if (!gen && o->backup)
		return "--backup";
	if (strcmp(cmd, "check") != 0 && o->cookie != NULL)
		return "--cookie";
	if ((gen || fp) && o->algo != TFO_COOKIE_ALGO_AES128)
		return "--algo";
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "key-file", required_argument, NULL, 'f' },
		{ "client", required_argument, NULL, 'c' },
		{ "server", required_argument, NULL, 's' },
		{ "cookie", required_argument, NULL, 'x' },
		{ "algo", required_argument, NULL, 'a' },
		{ "backup", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .algo = TFO_COOKIE_ALGO_AES128 };
	const char *cmd;
	int ch;

	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
	    strcmp(cmd, "help") == 0) {
		fputs(usage_text, stdout);
		return 0;
	}
	/* options follow the command */
	optind = 2;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k': o.key_text = optarg; break;
		case 'f': o.key_file = optarg; break;
		case 'c': o.client = optarg; break;
		case 's': o.server = optarg; break;
		case 'x': o.cookie = optarg; break;
		case 'b': o.backup = true; break;
		case 'a':
			if (tfo_cookie_algo_parse(optarg, &o.algo) < 0)
				return die_usage("--algo: '%s' is neither aes128 "
						 "nor siphash-linux", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return die_usage("%s: bad option", cmd);
		}
	}
	if (optind < argc)
		return die_usage("unexpected argument '%s'", argv[optind]);
	if (misplaced(cmd, &o) != NULL)
		return die_usage("%s does not apply to this command",
				 misplaced(cmd, &o));

	if (strcmp(cmd, "gen") == 0)
		return cmd_gen(&o);
	if (strcmp(cmd, "cookie") == 0)
		return cmd_cookie(&o);
	if (strcmp(cmd, "check") == 0)
		return cmd_check(&o);
	if (strcmp(cmd, "fingerprint") == 0)
		return cmd_fingerprint(&o);
	return die_usage("unknown command '%s'", cmd);
}
