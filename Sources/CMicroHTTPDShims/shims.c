#include "CMicroHTTPDShims.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* `host` (an IPv4 or IPv6 literal) and `port` as a socket address in `storage`; its length, or 0
   when `host` is not an address literal. */
static socklen_t cashier_socket_address(const char *host, uint16_t port, struct sockaddr_storage *storage) {
    memset(storage, 0, sizeof *storage);
    struct sockaddr_in *v4 = (struct sockaddr_in *)storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)storage;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return sizeof *v4;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        return sizeof *v6;
    }
    return 0;
}

struct MHD_Daemon *cashier_mhd_start(const char *host, uint16_t port, unsigned int threads,
                                     unsigned int connection_limit, unsigned int per_ip_connection_limit,
                                     unsigned int timeout_seconds, size_t connection_memory_limit,
                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                     MHD_RequestCompletedCallback completed, void *completed_cls,
                                     MHD_NotifyConnectionCallback connections, void *connections_cls,
                                     cashier_mhd_target_callback target, void *target_cls) {
    struct sockaddr_storage address;
    /* poll(), not epoll: quiescing an epoll daemon that runs its own threads races inside
       libmicrohttpd 0.9.x (MHD_quiesce_daemon and a worker's MHD_epoll both remove the listen
       socket from the epoll set; the loser gets ENOENT and MHD_PANIC aborts the process). With
       poll() a quiesced worker simply leaves the listen socket out of its next poll set. */
    unsigned int flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_TURBO | MHD_USE_SUSPEND_RESUME;
    if (cashier_socket_address(host, port, &address) == 0) return NULL;
    if (address.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, connections, connections_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, target, target_cls,
                            MHD_OPTION_END);
}

int cashier_mhd_cut_query(const char *target, size_t max_parameters, size_t max_bytes) {
    if (target == NULL) return 0;
    /* The target points into the connection's read buffer, which libmicrohttpd itself writes
       into while parsing: the callback runs on the same bytes it is about to parse. */
    char *query = strchr(target, '?');
    if (query == NULL || query[1] == '\0') return 0;
    size_t parameters = 1;
    const char *end = query + 1;
    for (; *end != '\0'; end++) {
        if (*end == '&') parameters++;
    }
    size_t length = (size_t)(end - target);
    int cut = parameters > max_parameters ? 1 : length + parameters * CASHIER_MHD_RECORD_BYTES > max_bytes ? 2 : 0;
    if (cut != 0) query[1] = '\0';
    return cut;
}

int cashier_listen_probe(const char *host, uint16_t port) {
    struct sockaddr_storage address;
    socklen_t length = cashier_socket_address(host, port, &address);
    if (length == 0) return -1;
    int probe = socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return errno;
    int on = 1;
    int failure = 0;
    if (setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        bind(probe, (const struct sockaddr *)&address, length) != 0 || listen(probe, 1) != 0) {
        failure = errno;
    }
    close(probe);
    return failure;
}

int cashier_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return 0;
    const struct sockaddr *address = info->client_addr;
    const void *raw = NULL;
    if (address->sa_family == AF_INET) raw = &((const struct sockaddr_in *)address)->sin_addr;
    else if (address->sa_family == AF_INET6) raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    else return 0;
    return inet_ntop(address->sa_family, raw, buffer, (socklen_t)size) != NULL;
}

int cashier_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

void *cashier_mhd_connection_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

uint16_t cashier_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

size_t cashier_mhd_request_memory(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    size_t used = info == NULL ? 0 : info->header_size;
    int records = MHD_get_connection_values(connection, MHD_HEADER_KIND | MHD_GET_ARGUMENT_KIND | MHD_COOKIE_KIND, NULL, NULL);
    if (records > 0) used += (size_t)records * CASHIER_MHD_RECORD_BYTES;
    const char *cookie = NULL;
    size_t cookie_length = 0;
    if (MHD_lookup_connection_value_n(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_COOKIE, strlen(MHD_HTTP_HEADER_COOKIE),
                                      &cookie, &cookie_length) == MHD_YES) {
        used += (cookie_length + 1 + 15) & ~(size_t)15;  /* the copy libmicrohttpd parses cookies in */
    }
    return used;
}
