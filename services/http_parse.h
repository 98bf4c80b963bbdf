/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a strict, bounded HTTP/1.x request-head parser for a
 * static server (GET, HEAD; POST where the configuration says: its body is
 * framed by Content-Length only) (used by services/http.c, its tests and
 * tfo-bench http).
 *
 * The parser keeps no state between calls: the engine hands the service
 * every byte received and not consumed yet, so each call parses from the
 * start. It never reads at or past b[len]; it stops at the first byte that
 * makes the head invalid, so garbage (a TLS ClientHello, binary) is answered
 * at once instead of waiting for a timeout.
 *
 * Grammar (RFC 9112), deliberately strict:
 *  - lines end in CRLF; a bare LF, a bare CR, NUL or any other CTL in a
 *    line is a syntax error (400);
 *  - empty lines (CRLF) before the request line are skipped (RFC 9112 2.2);
 *  - request-line = method SP request-target SP HTTP-version CRLF, exactly
 *    one SP each; method is a token (an unknown one is 405, not 400, and
 *    methods are case-sensitive); request-target is 1*(%x21-7E);
 *  - HTTP-version is "HTTP/" DIGIT "." DIGIT; major 1 only (else 505);
 *    1.x with x >= 1 is handled as 1.1;
 *  - field-line = token ":" OWS value OWS CRLF; whitespace before the
 *    colon and obs-fold (a line starting with SP/HTAB) are 400.
 */
#ifndef TFO_HTTP_PARSE_H
#define TFO_HTTP_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** If-None-Match field lines remembered; later ones are ignored (no 304). */
#define TFO_HTTP_MAX_INM 4
/** Upper bound of max_uri: the decoded path lives on the stack. */
#define TFO_HTTP_MAX_URI_LIMIT 8192
/** Upper bound of max_header. */
#define TFO_HTTP_MAX_HEADER_LIMIT 65536
/** Length of an IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT". */
#define TFO_HTTP_DATE_LEN 29

enum tfo_http_method {
	TFO_HTTP_GET = 0,
	TFO_HTTP_HEAD,
	TFO_HTTP_POST,		/**< 405 but where the configuration allows it */
	TFO_HTTP_OTHER,		/**< any other token: 405 */
};

/** What tfo_http_parse() found. */
enum tfo_http_perr {
	TFO_HTTP_OK = 0,	/**< a complete head, in the request */
	TFO_HTTP_INCOMPLETE,	/**< valid so far; need more bytes */
	TFO_HTTP_E_SYNTAX,	/**< 400: request line or field line */
	TFO_HTTP_E_TOO_BIG,	/**< 400: head longer than max_header */
	TFO_HTTP_E_URI_LONG,	/**< 414: request-target longer than max_uri */
	TFO_HTTP_E_VERSION,	/**< 505: HTTP major version other than 1 */
};

enum tfo_http_body {
	TFO_HTTP_BODY_NONE = 0,	/**< no Content-Length/Transfer-Encoding, or
				 *   Content-Length: 0 */
	TFO_HTTP_BODY_SOME,	/**< Content-Length > 0 or Transfer-Encoding */
};

/** tfo_http_req.content_length when the head has no Content-Length. */
#define TFO_HTTP_NO_LENGTH UINT64_MAX

struct tfo_http_slice {
	const uint8_t *p;
	uint32_t len;
};

/** A parsed request head; slices point into the parsed bytes. */
struct tfo_http_req {
	uint32_t head_len;	/**< bytes up to and incl. the empty line */
	uint8_t method;		/**< enum tfo_http_method */
	uint8_t minor;		/**< HTTP/1.<minor>: 0 or 1 */
	uint8_t nb_host;	/**< Host field lines seen (saturates) */
	uint8_t body;		/**< enum tfo_http_body */
	bool chunked;		/**< Transfer-Encoding was sent (any coding) */
	bool close;		/**< Connection: close, or 1.0 without keep-alive */
	bool keep_alive;	/**< Connection: keep-alive was sent */
	uint8_t nb_inm;		/**< If-None-Match values in inm[] */
	struct tfo_http_slice target;	/**< request-target, raw */
	struct tfo_http_slice inm[TFO_HTTP_MAX_INM];
	struct tfo_http_slice ims;	/**< last If-Modified-Since, or len 0 */
	/** Content-Length's value (one value: several that differ are a
	 *  syntax error, RFC 9112 6.3), or TFO_HTTP_NO_LENGTH; a value over
	 *  2^63 saturates there too (no body that long is accepted). */
	uint64_t content_length;
	struct tfo_http_slice host;	/**< first Host value, or len 0 */
	struct tfo_http_slice range;	/**< last Range value, or len 0 */
	struct tfo_http_slice if_range;	/**< last If-Range value, or len 0 */
};

struct tfo_http_limits {
	uint32_t max_header;	/**< whole head, request line included */
	uint32_t max_uri;	/**< request-target */
};

/**
 * Parse the request head at the start of @p b[0..len). Reads no byte at or
 * after b[len]. @p r is filled when TFO_HTTP_OK is returned (partly
 * otherwise). An error is returned as soon as the bytes seen make the head
 * invalid, even when it is incomplete.
 */
enum tfo_http_perr tfo_http_parse(const uint8_t *b, uint32_t len,
				  const struct tfo_http_limits *lim,
				  struct tfo_http_req *r);

/** Results of tfo_http_path(). */
enum tfo_http_path_res {
	TFO_HTTP_PATH_OK = 0,
	TFO_HTTP_PATH_BAD,	/**< 400: form, %-encoding, %00, ".." above / */
	TFO_HTTP_PATH_NOFILE,	/**< 404: %2F (no file name holds a slash) */
};

/**
 * Turn request-target @p t into the normalized, percent-decoded path the
 * files are keyed by: origin-form "/a/b?q" or absolute-form
 * "http://host/a/b"; the query is dropped; "%XX" decoded (%2e counts as a
 * dot); "." segments and empty segments ("//") removed; ".." removes the
 * previous segment, and is an error at the root. A path that ends in a
 * slash (or in "/." or "/..") keeps its trailing slash: it names a
 * directory. @p out needs t->len + 1 bytes (@p cap); on OK the path is
 * out[0..*out_len), starting with '/', not NUL-terminated.
 */
enum tfo_http_path_res tfo_http_path(const struct tfo_http_slice *t,
				     char *out, uint32_t cap,
				     uint32_t *out_len);

/** What an encoded slash (%2F) in a path means (tfo_http_path_mode()). */
enum tfo_http_slash {
	TFO_HTTP_SLASH_404 = 0,	/**< TFO_HTTP_PATH_NOFILE (no file name
				 *   holds a slash) */
	TFO_HTTP_SLASH_DECODE,	/**< a '/': a segment separator like a raw one */
	TFO_HTTP_SLASH_KEEP,	/**< kept as the 3 bytes "%2F" (uppercase) in
				 *   the path, the key of a file named so */
};

/** tfo_http_path() with @p slash saying what %2F means. */
enum tfo_http_path_res tfo_http_path_mode(const struct tfo_http_slice *t,
					  char *out, uint32_t cap,
					  uint32_t *out_len,
					  enum tfo_http_slash slash);

/**
 * 1 if the If-None-Match field value @p v matches the entity-tag @p etag
 * (quoted, strong, e.g. "\"abc\""), by weak comparison (RFC 9110 13.1.2):
 * "*" or a list member W/"abc" or "abc". A malformed list matches nothing
 * after the malformed member.
 */
int tfo_http_inm_match(const struct tfo_http_slice *v, const char *etag,
		       uint32_t etag_len);

/**
 * Decode base64 (RFC 4648: the standard or the URL-safe alphabet, padding
 * optional) @p s[0..n) into @p out (@p cap bytes); with @p pct, "%XX" is
 * decoded first (an OCSP GET path: "%2F", "%2B", "%3D"). @return the
 * length, or -1: not base64, or longer than @p cap.
 */
int tfo_http_b64_decode(const uint8_t *s, uint32_t n, bool pct, uint8_t *out,
			uint32_t cap);

/** Format @p t (seconds since the epoch, >= 0) as an IMF-fixdate, no NUL. */
void tfo_http_fmt_date(char out[TFO_HTTP_DATE_LEN], int64_t t);

#ifdef __cplusplus
}
#endif

#endif /* TFO_HTTP_PARSE_H */
