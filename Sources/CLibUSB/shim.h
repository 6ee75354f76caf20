#include <libusb.h>
