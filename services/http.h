/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the http service's responder, apart from its parser, for
 * tfo-bench (which feeds it requests parsed by another parser).
 */
#ifndef TFO_HTTP_H
#define TFO_HTTP_H

#include "tfo/service.h"

#include "http_parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Answer the request @p r (tfo_http_parse() returned TFO_HTTP_OK) with the
 * http service instance @p state: Host and body rules, 405, path, lookup,
 * 301/304/404/200/206 and the path rules, as for a request that did not
 * come as SYN data. Only the head is given: a POST with a body answers
 * NEED_MORE. handle() is tfo_http_parse() then this with the body.
 * @p resp->buf_cap must be at least 128.
 */
enum tfo_svc_status tfo_http_respond(const void *state,
				     const struct tfo_http_req *r,
				     struct tfo_svc_resp *resp);

#ifdef __cplusplus
}
#endif

#endif /* TFO_HTTP_H */
