// The one deprecated API used here is the EC_KEY path of cashier_p256_ecdh_x963 (see there).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "COpenSSLShims.h"
#include <openssl/ec.h>

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

int cashier_p256_ecdh_x963(EVP_PKEY *private_key, const unsigned char *point, size_t point_length, unsigned char *secret) {
    // OpenSSL 3.0 turns an encoded public key into an EVP_PKEY through its decoder framework at a
    // cost several times the derivation itself; the EC_KEY API takes the point directly. The point
    // is checked to be on the curve by EC_POINT_oct2point; P-256 has cofactor 1.
    const EC_KEY *key = EVP_PKEY_get0_EC_KEY(private_key);
    if (key == NULL || point_length != 65 || point[0] != 0x04) return 0;
    const EC_GROUP *group = EC_KEY_get0_group(key);
    if (group == NULL || EC_GROUP_get_curve_name(group) != NID_X9_62_prime256v1) return 0;
    EC_POINT *peer = EC_POINT_new(group);
    if (peer == NULL) return 0;
    int length = 0;
    if (EC_POINT_oct2point(group, peer, point, point_length, NULL) == 1) {
        length = ECDH_compute_key(secret, 32, peer, key, NULL);
    }
    EC_POINT_free(peer);
    return length == 32 ? 32 : 0;
}
