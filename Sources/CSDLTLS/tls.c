#define _DEFAULT_SOURCE  // timegm
// TLS over two memory BIOs: what one side writes comes out of `out` for an SDL frame, and
// what the peer sent goes into `in`. Macros of OpenSSL (BIO_pending, SSL_CTX_set_mode...)
// stay on this side of the boundary.
#include "CSDLTLS.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sdl_tls {
    SSL_CTX *ctx;
    SSL *ssl;
    BIO *in;   // the peer's bytes, read by OpenSSL
    BIO *out;  // our bytes, written by OpenSSL
    char error[256];
    char peer[256];
};

// The first queued OpenSSL error (or `fallback`), with the verification result when the
// peer's certificate was refused: one line.
static void note_error(sdl_tls *tls, const char *fallback) {
    unsigned long code = ERR_get_error();
    const char *reason = code ? ERR_reason_error_string(code) : NULL;
    long verify = tls->ssl ? SSL_get_verify_result(tls->ssl) : X509_V_OK;
    if (verify != X509_V_OK) {
        snprintf(tls->error, sizeof tls->error, "%s: %s", reason ? reason : fallback, X509_verify_cert_error_string(verify));
    } else {
        snprintf(tls->error, sizeof tls->error, "%s", reason ? reason : fallback);
    }
    ERR_clear_error();
}

static int load_pem(SSL_CTX *ctx, const char *cert_pem, const char *key_pem, const char *ca_pem) {
    if (cert_pem) {
        BIO *bio = BIO_new_mem_buf(cert_pem, -1);
        X509 *cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        int ok = cert && SSL_CTX_use_certificate(ctx, cert) == 1;
        // The rest of the file: the chain up to the CA, sent along.
        X509 *extra;
        while (ok && (extra = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
            if (SSL_CTX_add_extra_chain_cert(ctx, extra) != 1) { X509_free(extra); ok = 0; }
        }
        ERR_clear_error();  // the end of the file reads as an error
        X509_free(cert);
        BIO_free(bio);
        if (!ok) return 0;
    }
    if (key_pem) {
        BIO *bio = BIO_new_mem_buf(key_pem, -1);
        EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
        int ok = key && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
        EVP_PKEY_free(key);
        BIO_free(bio);
        if (!ok) return 0;
    }
    if (ca_pem) {
        BIO *bio = BIO_new_mem_buf(ca_pem, -1);
        X509_STORE *store = SSL_CTX_get_cert_store(ctx);
        X509 *ca;
        int count = 0;
        while ((ca = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
            X509_STORE_add_cert(store, ca);
            X509_free(ca);
            count++;
        }
        ERR_clear_error();
        BIO_free(bio);
        if (count == 0) return 0;
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    return 1;
}

sdl_tls *sdl_tls_new(int server, int dtls, const char *cert_pem, const char *key_pem, const char *ca_pem,
                     char *error, size_t error_size) {
    // No clean-up of OpenSSL at exit: it dropped the key under which each thread keeps its
    // random generators while the process's other threads still ran, so their memory was
    // neither freed nor reachable (LeakSanitizer reported it). The kernel frees it all at exit.
    OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, NULL);
    sdl_tls *tls = calloc(1, sizeof *tls);
    if (!tls) return NULL;
    const SSL_METHOD *method = dtls ? (server ? DTLS_server_method() : DTLS_client_method())
                                    : (server ? TLS_server_method() : TLS_client_method());
    tls->ctx = SSL_CTX_new(method);
    if (!tls->ctx) goto failed;
    // TLS 1.2 exactly, as sdl_core's TLSv1.2 setting; DTLS 1.0 and 1.2 (core's default is DTLSv1.0).
    if (dtls) {
        SSL_CTX_set_min_proto_version(tls->ctx, DTLS1_VERSION);
        SSL_CTX_set_max_proto_version(tls->ctx, DTLS1_2_VERSION);
    } else {
        SSL_CTX_set_min_proto_version(tls->ctx, TLS1_2_VERSION);
        SSL_CTX_set_max_proto_version(tls->ctx, TLS1_2_VERSION);
    }
    if (!load_pem(tls->ctx, cert_pem, key_pem, ca_pem)) {
        snprintf(tls->error, sizeof tls->error, "%s", "the certificate, key or CA could not be read");
        goto failed;
    }
    tls->ssl = SSL_new(tls->ctx);
    tls->in = BIO_new(BIO_s_mem());
    tls->out = BIO_new(BIO_s_mem());
    if (!tls->ssl || !tls->in || !tls->out) goto failed;
    BIO_set_mem_eof_return(tls->in, -1);  // an empty input is "more later", not the end
    BIO_set_mem_eof_return(tls->out, -1);
    SSL_set_bio(tls->ssl, tls->in, tls->out);
    if (dtls) {
        // The SDL frame is the datagram: no path MTU to discover, and a flight fits one frame.
        SSL_set_options(tls->ssl, SSL_OP_NO_QUERY_MTU);
        DTLS_set_link_mtu(tls->ssl, 16384);
    }
    if (server) SSL_set_accept_state(tls->ssl); else SSL_set_connect_state(tls->ssl);
    return tls;

failed:
    if (!tls->error[0]) note_error(tls, "OpenSSL could not make a TLS context");
    if (error && error_size) snprintf(error, error_size, "%s", tls->error);
    if (tls->ssl) SSL_free(tls->ssl); else { BIO_free(tls->in); BIO_free(tls->out); }
    SSL_CTX_free(tls->ctx);
    free(tls);
    return NULL;
}

void sdl_tls_free(sdl_tls *tls) {
    if (!tls) return;
    SSL_free(tls->ssl);  // frees both BIOs
    SSL_CTX_free(tls->ctx);
    free(tls);
}

// Everything OpenSSL wrote, moved into a malloc'd buffer.
static int drain(sdl_tls *tls, uint8_t **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    size_t pending = BIO_ctrl_pending(tls->out);
    if (pending == 0) return 1;
    *out = malloc(pending);
    if (!*out) return 0;
    int read = BIO_read(tls->out, *out, (int)pending);
    *out_size = read > 0 ? (size_t)read : 0;
    return 1;
}

int sdl_tls_handshake(sdl_tls *tls, const uint8_t *in, size_t in_size, uint8_t **out, size_t *out_size) {
    if (in_size > 0 && BIO_write(tls->in, in, (int)in_size) != (int)in_size) {
        note_error(tls, "the handshake data could not be buffered");
        return SDL_TLS_ERROR;
    }
    int result = SSL_do_handshake(tls->ssl);
    int failed = 0;
    if (result != 1) {
        int reason = SSL_get_error(tls->ssl, result);
        failed = reason != SSL_ERROR_WANT_READ && reason != SSL_ERROR_WANT_WRITE;
        if (failed) note_error(tls, "the TLS handshake failed");
    }
    // An alert for the peer is sent even when the handshake failed here.
    if (!drain(tls, out, out_size)) return SDL_TLS_ERROR;
    if (failed) return SDL_TLS_ERROR;
    return result == 1 ? SDL_TLS_OK : SDL_TLS_CONTINUE;
}

int sdl_tls_encrypt(sdl_tls *tls, const uint8_t *in, size_t in_size, uint8_t **out, size_t *out_size) {
    int written = SSL_write(tls->ssl, in, (int)in_size);
    if (written != (int)in_size) {
        note_error(tls, SSL_is_init_finished(tls->ssl) ? "the record could not be encrypted" : "the TLS handshake has not finished");
        return SDL_TLS_ERROR;
    }
    return drain(tls, out, out_size) ? SDL_TLS_OK : SDL_TLS_ERROR;
}

int sdl_tls_decrypt(sdl_tls *tls, const uint8_t *in, size_t in_size, uint8_t **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    if (BIO_write(tls->in, in, (int)in_size) != (int)in_size) {
        note_error(tls, "the record could not be buffered");
        return SDL_TLS_ERROR;
    }
    size_t capacity = in_size + 1024, size = 0;
    uint8_t *plain = malloc(capacity);
    if (!plain) return SDL_TLS_ERROR;
    for (;;) {
        if (capacity - size < 16384) {
            capacity += 16384;
            uint8_t *bigger = realloc(plain, capacity);
            if (!bigger) { free(plain); return SDL_TLS_ERROR; }
            plain = bigger;
        }
        int read = SSL_read(tls->ssl, plain + size, (int)(capacity - size));
        if (read > 0) { size += (size_t)read; continue; }
        int reason = SSL_get_error(tls->ssl, read);
        if (reason == SSL_ERROR_WANT_READ) break;  // every whole record read
        free(plain);
        note_error(tls, reason == SSL_ERROR_ZERO_RETURN ? "the peer closed the TLS session" : "the record could not be decrypted");
        return SDL_TLS_ERROR;
    }
    *out = plain;
    *out_size = size;
    return SDL_TLS_OK;
}

const char *sdl_tls_error(const sdl_tls *tls) { return tls->error; }

int sdl_tls_certificate_problem(const sdl_tls *tls) {
    switch (SSL_get_verify_result(tls->ssl)) {
    case X509_V_OK: return 0;
    case X509_V_ERR_CERT_HAS_EXPIRED: return 1;
    case X509_V_ERR_CERT_NOT_YET_VALID: return 2;
    case X509_V_ERR_SUBJECT_ISSUER_MISMATCH:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        return 3;
    default: return 4;
    }
}

const char *sdl_tls_version(const sdl_tls *tls) {
    return SSL_is_init_finished(tls->ssl) ? SSL_get_version(tls->ssl) : "";
}

// A text field of the peer certificate's subject, kept in tls->peer ("" when there is none).
static const char *peer_subject(sdl_tls *tls, int nid) {
    X509 *peer = SSL_get1_peer_certificate(tls->ssl);
    tls->peer[0] = 0;
    if (peer) {
        X509_NAME_get_text_by_NID(X509_get_subject_name(peer), nid, tls->peer, sizeof tls->peer);
        X509_free(peer);
    }
    return tls->peer;
}

const char *sdl_tls_peer_serial_number(sdl_tls *tls) { return peer_subject(tls, NID_serialNumber); }

// Seconds since 1970 of an ASN.1 time.
static int64_t epoch_seconds(const ASN1_TIME *time) {
    struct tm parts;
    if (!time || ASN1_TIME_to_tm(time, &parts) != 1) return 0;
    return (int64_t)timegm(&parts);
}

int sdl_tls_peer_validity(sdl_tls *tls, int64_t *not_before, int64_t *not_after) {
    X509 *peer = SSL_get1_peer_certificate(tls->ssl);
    if (!peer) return 0;
    *not_before = epoch_seconds(X509_get0_notBefore(peer));
    *not_after = epoch_seconds(X509_get0_notAfter(peer));
    X509_free(peer);
    return 1;
}

const char *sdl_tls_peer_name(sdl_tls *tls) { return peer_subject(tls, NID_commonName); }
