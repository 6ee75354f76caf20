// TLS over memory: OpenSSL with two memory BIOs and no socket, so that the handshake and
// the records travel inside SDL frames. One object per protected session; not thread-safe
// (the Swift side serialises calls).
#ifndef CSDLTLS_H
#define CSDLTLS_H
#include <stddef.h>
#include <stdint.h>

typedef struct sdl_tls sdl_tls;

/// Results of the calls below.
enum {
    SDL_TLS_OK = 0,            // done (a record encrypted or decrypted; the handshake finished)
    SDL_TLS_CONTINUE = 1,      // the handshake needs the peer's next bytes
    SDL_TLS_ERROR = -1,        // failed; sdl_tls_error says why
};

/// A TLS endpoint. `server` 1: the app's role (the head unit is the client); 0: the head
/// unit's. `cert_pem`/`key_pem`: this side's certificate and key (NULL for a client without
/// one); `ca_pem`: the CA to verify the peer by (NULL: no verification); `dtls` 1: DTLS 1.2.
/// NULL on failure, with the reason in `error`.
sdl_tls *sdl_tls_new(int server, int dtls, const char *cert_pem, const char *key_pem, const char *ca_pem,
                     char *error, size_t error_size);
void sdl_tls_free(sdl_tls *tls);

/// Feeds the peer's handshake bytes (none to start a client) and runs the handshake; what
/// to send back is in `*out` (malloc'd, the caller frees; NULL when nothing).
int sdl_tls_handshake(sdl_tls *tls, const uint8_t *in, size_t in_size, uint8_t **out, size_t *out_size);
/// One TLS record of `in` (at most sdl_tls_max_plaintext bytes).
int sdl_tls_encrypt(sdl_tls *tls, const uint8_t *in, size_t in_size, uint8_t **out, size_t *out_size);
/// The plaintext of one or more whole records.
int sdl_tls_decrypt(sdl_tls *tls, const uint8_t *in, size_t in_size, uint8_t **out, size_t *out_size);

/// The last failure, one line ("certificate verify failed: certificate has expired").
const char *sdl_tls_error(const sdl_tls *tls);
/// How the peer's certificate was judged, in sdl_core's categories (ssl_context_impl.cc):
/// 0 no problem (or nothing verified), 1 expired, 2 not yet valid, 3 not signed by a trusted
/// CA (self-signed, unknown issuer, bad signature), 4 another verification failure.
int sdl_tls_certificate_problem(const sdl_tls *tls);
/// The negotiated protocol ("TLSv1.2", "DTLSv1.2"), or "" before the handshake ends.
const char *sdl_tls_version(const sdl_tls *tls);
/// The peer certificate's subject serialNumber attribute (sdl_core expects the app's policy
/// app id there), or "" when there is none.
const char *sdl_tls_peer_serial_number(sdl_tls *tls);
/// The peer certificate's validity as seconds since 1970 (UTC); 0 when there is no certificate.
int sdl_tls_peer_validity(sdl_tls *tls, int64_t *not_before, int64_t *not_after);
/// The peer certificate's subject common name, or "" when there is none.
const char *sdl_tls_peer_name(sdl_tls *tls);

/// A fresh P-256 key and a certificate for `common_name` (and, when not NULL, the subject
/// attribute serialNumber, where sdl_core looks for the app id), valid from `not_before_offset` to
/// `not_after_offset` seconds from now: signed by the CA (`ca_cert_pem`, `ca_key_pem`), or,
/// with none, by itself as a CA. The PEM texts are malloc'd into `*cert_pem` and `*key_pem`
/// (the caller frees); 0 on success, -1 with the reason in `error`.
int sdl_tls_make_certificate(const char *common_name, const char *serial_number, const char *ca_cert_pem, const char *ca_key_pem,
                             long not_before_offset, long not_after_offset,
                             char **cert_pem, char **key_pem, char *error, size_t error_size);
#endif
