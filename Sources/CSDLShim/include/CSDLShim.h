#ifndef CSDLSHIM_H
#define CSDLSHIM_H
#include <stdint.h>
#include <libusb.h>
#include <bluetooth/bluetooth.h>

/// libusb_set_option is variadic; Swift cannot call it. These set the two options we use.
int sdl_libusb_set_log_level(libusb_context *ctx, int level);
int sdl_libusb_no_device_discovery(libusb_context *ctx);

/// BDADDR_ANY is a compound-literal macro Swift cannot import.
bdaddr_t sdl_bdaddr_any(void);
/// htobs is a function-like macro.
uint16_t sdl_htobs(uint16_t value);

/// Publishes an SDP record for an RFCOMM service with a 128-bit service-class UUID on the
/// local SDP server (what an Android phone's SDL router does, so a head unit finds it).
/// Returns an opaque session (keep it: closing it withdraws the record), or NULL with errno set.
void *sdl_sdp_register_rfcomm(const uint8_t uuid[16], uint8_t channel, const char *name);
/// Withdraws a record registered with sdl_sdp_register_rfcomm.
void sdl_sdp_unregister(void *session);

/// Looks up the RFCOMM channel of the service with this UUID on a remote device.
/// Returns 0 and sets *channel, or -1 with errno set (no SDP server, no such service: ENOENT).
int sdl_sdp_find_rfcomm_channel(const char *address, const uint8_t uuid[16], uint8_t *channel);

#endif
