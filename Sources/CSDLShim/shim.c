#include "CSDLShim.h"

int sdl_libusb_set_log_level(libusb_context *ctx, int level) {
    return libusb_set_option(ctx, LIBUSB_OPTION_LOG_LEVEL, level);
}

int sdl_libusb_no_device_discovery(libusb_context *ctx) {
#if defined(LIBUSB_API_VERSION) && LIBUSB_API_VERSION >= 0x01000109
    return libusb_set_option(ctx, LIBUSB_OPTION_NO_DEVICE_DISCOVERY);
#else
    (void)ctx;
    return LIBUSB_ERROR_NOT_SUPPORTED;
#endif
}

bdaddr_t sdl_bdaddr_any(void) {
    bdaddr_t any = {{0, 0, 0, 0, 0, 0}};
    return any;
}

uint16_t sdl_htobs(uint16_t value) { return htobs(value); }
