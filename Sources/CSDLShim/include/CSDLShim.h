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

#endif
