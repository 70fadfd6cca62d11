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
#endif
