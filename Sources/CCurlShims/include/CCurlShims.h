// curl_easy_setopt and curl_easy_getinfo are variadic; Swift calls these typed wrappers instead.
#ifndef CCURLSHIMS_H
#define CCURLSHIMS_H
#include "../../CCurl/CCurl.h"

typedef size_t (*cashier_curl_data_callback)(char *data, size_t size, size_t count, void *context);

CURLcode cashier_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode cashier_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode cashier_curl_set_headers(CURL *handle, struct curl_slist *headers);
CURLcode cashier_curl_set_body(CURL *handle, const void *body, long length);
CURLcode cashier_curl_set_callbacks(CURL *handle, cashier_curl_data_callback body, cashier_curl_data_callback header, void *context);
long cashier_curl_response_code(CURL *handle);

// The multi interface, driven by sockets: libcurl tells the loop which sockets to watch and when
// its next timer is due; the loop tells libcurl which sockets are ready.
typedef int (*cashier_curl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context, void *socketContext);
typedef int (*cashier_curl_timer_callback)(CURLM *multi, long timeoutMilliseconds, void *context);
CURLMcode cashier_curl_multi_set_callbacks(CURLM *multi, cashier_curl_socket_callback socket, cashier_curl_timer_callback timer, void *context);
// How many open connections the multi handle keeps for reuse (CURLMOPT_MAXCONNECTS).
CURLMcode cashier_curl_multi_set_max_connects(CURLM *multi, long count);
// A share that holds the TLS sessions of every handle given it (CURLOPT_SHARE), guarded by
// mutexes of its own, so a connection any loop opens can resume a session another loop's
// handshake made; NULL if libcurl refused. Made once: the mutexes are static.
CURLSH *cashier_curl_share_tls_sessions(void);
CURLcode cashier_curl_set_share(CURL *handle, CURLSH *share);
// 1 and the finished handle and its result when `message` says a transfer is done, else 0.
int cashier_curl_message_done(CURLMsg *message, CURL **handle, CURLcode *result);

// epoll's event struct is packed on x86-64, which Swift does not import faithfully: these take
// and give plain values.
// A new epoll instance, or -1.
int cashier_epoll_create(void);
// A non-blocking eventfd, or -1; `signal` makes it readable, `drain` reads it back to zero.
int cashier_eventfd_create(void);
void cashier_eventfd_signal(int fd);
void cashier_eventfd_drain(int fd);
// Adds (`add` 1), changes (0) or removes (-1) `fd` in `epoll`, watching for reading and/or writing.
int cashier_epoll_watch(int epoll, int fd, int add, int reading, int writing);
// Waits up to `timeout` ms; fills `fds` and `readiness` (CURL_CSELECT_IN/OUT/ERR bits) for up to `capacity` ready descriptors.
int cashier_epoll_wait(int epoll, int *fds, int *readiness, int capacity, int timeout);
#endif
