// libcurl (the OpenSSL build), for calls that present a client certificate.
#ifndef CCURL_H
#define CCURL_H
#include <curl/curl.h>
#endif
