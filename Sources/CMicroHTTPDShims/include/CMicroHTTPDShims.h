// MHD_start_daemon is variadic, and MHD_get_daemon_info returns a union: Swift can call neither.
#ifndef CMICROHTTPDSHIMS_H
#define CMICROHTTPDSHIMS_H
#include "../../CMicroHTTPD/CMicroHTTPD.h"

/// Told each request's target (path and query, as sent) once its request line is in, before
/// libmicrohttpd parses the query: what it returns becomes the request's own context (the
/// access handler's `*req_cls`), NULL for none.
typedef void *(*cashier_mhd_target_callback)(void *cls, const char *target, struct MHD_Connection *connection);

/// Starts a daemon on `host` (an IPv4 or IPv6 literal) and `port` (0 = any free port) with an
/// internal poll() thread pool, at most `per_ip_connection_limit` connections from one address
/// (0: no limit), and `connections` told of each connection's start and end. Returns NULL on
/// failure (bad host, port in use, ...).
struct MHD_Daemon *cashier_mhd_start(const char *host, uint16_t port, unsigned int threads,
                                     unsigned int connection_limit, unsigned int per_ip_connection_limit,
                                     unsigned int timeout_seconds, size_t connection_memory_limit,
                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                     MHD_RequestCompletedCallback completed, void *completed_cls,
                                     MHD_NotifyConnectionCallback connections, void *connections_cls,
                                     cashier_mhd_target_callback target, void *target_cls);

/// libmicrohttpd 0.9.x parses every query parameter into the connection's memory (the
/// `connection_memory_limit`) as soon as the request line is in, before any callback can answer:
/// a few hundred parameters exhaust it, and the connection is then dropped without a response.
/// Called from the target callback, this cuts the query off in place (libmicrohttpd then parses
/// none of it) when it has more than `max_parameters` parameters (returns 1), or when the target
/// and a record for each parameter would take more than `max_bytes` (returns 2); else returns 0.
int cashier_mhd_cut_query(const char *target, size_t max_parameters, size_t max_bytes);

/// What `cashier_mhd_cut_query` counts for a parameter: its record in libmicrohttpd 0.9.x
/// (struct MHD_HTTP_Header, 56 bytes on 64-bit) rounded up to its pool's 16-byte alignment.
#define CASHIER_MHD_RECORD_BYTES 64

/// What a connection's memory holds beyond the largest request it accepts, for the answer's
/// status line and headers. libmicrohttpd 0.9.x writes those into the same memory the request's
/// line and headers still take, and closes the connection without a word when they do not fit:
/// without this room, requests whose headers came within a few hundred bytes of the memory's end
/// were read, handled and never answered.
#define CASHIER_MHD_ANSWER_RESERVE 4096

/// How much of the connection's memory the request in hand takes (from its first access-handler
/// call on): its line and headers as received, a record (`CASHIER_MHD_RECORD_BYTES`) for each
/// header, query parameter and cookie, and the copy of the Cookie header libmicrohttpd parses.
size_t cashier_mhd_request_memory(struct MHD_Connection *connection);

/// Why `cashier_mhd_start` could not listen on `host` and `port`: binds a socket there as the
/// daemon does (SO_REUSEADDR) and returns 0 if that works now, else the errno (-1 for a host that
/// is not an address literal).
int cashier_listen_probe(const char *host, uint16_t port);

/// The peer's address as text into `buffer` (INET6_ADDRSTRLEN bytes); 1 on success, 0 if unknown.
int cashier_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size);

/// The connection's socket (-1 if unknown).
int cashier_mhd_connection_fd(struct MHD_Connection *connection);

/// What the connection-start callback stored in `*socket_context` (NULL if nothing).
void *cashier_mhd_connection_context(struct MHD_Connection *connection);

/// The port the daemon is bound to.
uint16_t cashier_mhd_bound_port(struct MHD_Daemon *daemon);
#endif
