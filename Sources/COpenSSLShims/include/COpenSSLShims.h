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
/// P-256 ECDH of a private key with an uncompressed point (04 ‖ X ‖ Y); writes 32 bytes of Z and
/// returns 32, or returns 0 when the point is not on P-256 or the key is not a P-256 key.
int cashier_p256_ecdh_x963(EVP_PKEY *private_key, const unsigned char *point, size_t point_length, unsigned char *secret);
#endif
