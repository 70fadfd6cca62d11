#include "COpenSSLShims.h"

int cashier_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
X509 *cashier_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
STACK_OF(X509) *cashier_sk_X509_new_null(void) { return sk_X509_new_null(); }
int cashier_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
void cashier_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
void cashier_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
int cashier_sk_CMS_SignerInfo_num(STACK_OF(CMS_SignerInfo) *stack) { return sk_CMS_SignerInfo_num(stack); }
CMS_SignerInfo *cashier_sk_CMS_SignerInfo_value(STACK_OF(CMS_SignerInfo) *stack, int index) {
    return sk_CMS_SignerInfo_value(stack, index);
}
long cashier_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
void cashier_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
unsigned long cashier_XN_FLAG_RFC2253_UTF8(void) { return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB; }
