// Throwaway certificates for tests and examples: a P-256 key and an X.509 certificate, made
// in memory with OpenSSL, so that protected services run without files of secrets.
#include "CSDLTLS.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The PEM text of what `write` puts in a memory BIO, malloc'd and NUL-terminated.
static char *pem_text(BIO *bio) {
    char *data = NULL;
    long size = BIO_get_mem_data(bio, &data);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text) { memcpy(text, data, (size_t)size); text[size] = 0; }
    return text;
}

static int add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    int ok = extension && X509_add_ext(cert, extension, -1);
    X509_EXTENSION_free(extension);
    return ok;
}

int sdl_tls_make_certificate(const char *common_name, const char *serial_number, const char *ca_cert_pem, const char *ca_key_pem,
                             long not_before_offset, long not_after_offset,
                             char **cert_pem, char **key_pem, char *error, size_t error_size) {
    int ok = 0;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    X509 *issuer = NULL;
    EVP_PKEY *signer = NULL;
    BIO *cert_bio = BIO_new(BIO_s_mem()), *key_bio = BIO_new(BIO_s_mem());
    *cert_pem = NULL;
    *key_pem = NULL;
    if (!key || !cert || !cert_bio || !key_bio) goto done;
    if (ca_cert_pem && ca_key_pem) {
        BIO *bio = BIO_new_mem_buf(ca_cert_pem, -1);
        issuer = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        BIO_free(bio);
        bio = BIO_new_mem_buf(ca_key_pem, -1);
        signer = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
        BIO_free(bio);
        if (!issuer || !signer) goto done;
    }
    unsigned char serial[8];
    if (RAND_bytes(serial, sizeof serial) != 1) goto done;
    serial[0] &= 0x7F;  // positive
    BIGNUM *number = BN_bin2bn(serial, sizeof serial, NULL);
    int serial_ok = number && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(cert)) != NULL;
    BN_free(number);
    if (!serial_ok) goto done;
    X509_set_version(cert, X509_VERSION_3);
    X509_gmtime_adj(X509_getm_notBefore(cert), not_before_offset);
    X509_gmtime_adj(X509_getm_notAfter(cert), not_after_offset);
    X509_NAME *name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0);
    if (serial_number) X509_NAME_add_entry_by_txt(name, "serialNumber", MBSTRING_UTF8, (const unsigned char *)serial_number, -1, -1, 0);
    X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name);
    X509_set_pubkey(cert, key);
    const int is_ca = issuer == NULL;
    if (!add_extension(cert, issuer ? issuer : cert, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "CA:FALSE")) goto done;
    if (!add_extension(cert, issuer ? issuer : cert, NID_subject_key_identifier, "hash")) goto done;
    if (!X509_sign(cert, signer ? signer : key, EVP_sha256())) goto done;
    if (!PEM_write_bio_X509(cert_bio, cert) || !PEM_write_bio_PrivateKey(key_bio, key, NULL, NULL, 0, NULL, NULL)) goto done;
    *cert_pem = pem_text(cert_bio);
    *key_pem = pem_text(key_bio);
    ok = *cert_pem && *key_pem;

done:
    if (!ok) {
        unsigned long code = ERR_get_error();
        const char *reason = code ? ERR_reason_error_string(code) : NULL;
        if (error && error_size) snprintf(error, error_size, "%s", reason ? reason : "OpenSSL could not make the certificate");
        free(*cert_pem);
        free(*key_pem);
        *cert_pem = NULL;
        *key_pem = NULL;
    }
    ERR_clear_error();
    BIO_free(cert_bio);
    BIO_free(key_bio);
    X509_free(issuer);
    EVP_PKEY_free(signer);
    X509_free(cert);
    EVP_PKEY_free(key);
    return ok ? 0 : -1;
}
