// Functions for the OpenSSL macros Swift cannot import (stack accessors, BIO controls, OPENSSL_free).
#ifndef COPENSSLSHIMS_H
#define COPENSSLSHIMS_H
#include "../../COpenSSL/COpenSSL.h"

int cashier_sk_X509_num(const STACK_OF(X509) *stack);
X509 *cashier_sk_X509_value(const STACK_OF(X509) *stack, int index);
STACK_OF(X509) *cashier_sk_X509_new_null(void);
int cashier_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate);
void cashier_sk_X509_free(STACK_OF(X509) *stack);
void cashier_sk_X509_pop_free(STACK_OF(X509) *stack);
int cashier_sk_CMS_SignerInfo_num(STACK_OF(CMS_SignerInfo) *stack);
CMS_SignerInfo *cashier_sk_CMS_SignerInfo_value(STACK_OF(CMS_SignerInfo) *stack, int index);
long cashier_BIO_get_mem_data(BIO *bio, char **data);
void cashier_OPENSSL_free(void *pointer);
/// XN_FLAG_RFC2253 without ASN1_STRFLGS_ESC_MSB, so UTF-8 names stay readable.
unsigned long cashier_XN_FLAG_RFC2253_UTF8(void);
#endif
