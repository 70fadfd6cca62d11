#include "CCurlShims.h"
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

CURLcode cashier_curl_set_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode cashier_curl_set_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode cashier_curl_set_headers(CURL *handle, struct curl_slist *headers) { return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers); }

CURLcode cashier_curl_set_body(CURL *handle, const void *body, long length) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, body);
}

CURLcode cashier_curl_set_callbacks(CURL *handle, cashier_curl_data_callback body, cashier_curl_data_callback header, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, body);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, header);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_HEADERDATA, context);
    return code;
}

long cashier_curl_response_code(CURL *handle) {
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

CURLMcode cashier_curl_multi_set_callbacks(CURLM *multi, cashier_curl_socket_callback socket, cashier_curl_timer_callback timer, void *context) {
    // Both callbacks get the loop as their context.
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket);
    if (code != CURLM_OK || (code = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, context)) != CURLM_OK) return code;
    if ((code = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer)) != CURLM_OK) return code;
    return curl_multi_setopt(multi, CURLMOPT_TIMERDATA, context);
}

CURLMcode cashier_curl_multi_set_max_connects(CURLM *multi, long count) { return curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, count); }

// One mutex for each kind of data a share can hold; libcurl asks for the one it needs.
static pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];

static void share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *context) {
    (void)handle; (void)access; (void)context;
    pthread_mutex_lock(&share_locks[data]);
}

static void share_unlock(CURL *handle, curl_lock_data data, void *context) {
    (void)handle; (void)context;
    pthread_mutex_unlock(&share_locks[data]);
}

CURLSH *cashier_curl_share_tls_sessions(void) {
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) {
        if (pthread_mutex_init(&share_locks[i], NULL) != 0) return NULL;
    }
    CURLSH *share = curl_share_init();
    if (share == NULL) return NULL;
    if (curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK
        || curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK
        || curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
        curl_share_cleanup(share);
        return NULL;
    }
    return share;
}

CURLcode cashier_curl_set_share(CURL *handle, CURLSH *share) { return curl_easy_setopt(handle, CURLOPT_SHARE, share); }

int cashier_curl_message_done(CURLMsg *message, CURL **handle, CURLcode *result) {
    if (message == NULL || message->msg != CURLMSG_DONE) return 0;
    *handle = message->easy_handle;
    *result = message->data.result;
    return 1;
}

int cashier_epoll_watch(int epoll, int fd, int add, int reading, int writing) {
    struct epoll_event event = {0};
    event.events = (reading ? EPOLLIN : 0) | (writing ? EPOLLOUT : 0);
    event.data.fd = fd;
    int op = add > 0 ? EPOLL_CTL_ADD : (add == 0 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL);
    return epoll_ctl(epoll, op, fd, &event);
}

int cashier_epoll_wait(int epoll, int *fds, int *readiness, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout);
    for (int i = 0; i < count; i++) {
        fds[i] = events[i].data.fd;
        readiness[i] = ((events[i].events & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((events[i].events & EPOLLOUT) ? CURL_CSELECT_OUT : 0)
            | ((events[i].events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
    }
    return count;
}

int cashier_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cashier_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void cashier_eventfd_signal(int fd) {
    uint64_t one = 1;
    (void)write(fd, &one, sizeof one);
}

void cashier_eventfd_drain(int fd) {
    uint64_t count;
    (void)read(fd, &count, sizeof count);
}
