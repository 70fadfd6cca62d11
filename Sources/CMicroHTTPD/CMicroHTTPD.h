// libmicrohttpd, the HTTP server under CashierHTTP.
#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>
#endif
