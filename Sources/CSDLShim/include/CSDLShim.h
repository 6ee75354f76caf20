#ifndef CSDLSHIM_H
#define CSDLSHIM_H
#include <stddef.h>
#include <stdint.h>

/* This header includes no library header on purpose: a C header included from two Clang
 * modules (here and CLibUSB/CBlueZ) gives Swift two copies of its enum constants, and
 * then neither is found. Library types therefore cross as void pointers. */

/// libusb_set_option is variadic; Swift cannot call it. These set the two options we use
/// on a `libusb_context *`.
int sdl_libusb_set_log_level(void *ctx, int level);
int sdl_libusb_no_device_discovery(void *ctx);

/// An RFCOMM stream socket, or -1 with errno set (EAFNOSUPPORT: no Bluetooth in the kernel).
int sdl_rfcomm_socket(void);
/// Binds `fd` to `channel` on any local adapter and listens; 0 or -1 with errno.
int sdl_rfcomm_bind_listen(int fd, uint8_t channel);
/// Accepts one connection; writes the peer's address ("00:11:22:33:44:55") into `peer`.
int sdl_rfcomm_accept(int fd, char peer[18]);
/// Connects `fd` to `address` on `channel` from the adapter whose address is `source`
/// (NULL: the kernel's choice), waiting at most `timeout_ms`; 0 or -1 with errno (EINVAL:
/// not an address; ETIMEDOUT).
int sdl_rfcomm_connect(int fd, const char *source, const char *address, uint8_t channel, int timeout_ms);
/// Whether `address` reads as a Bluetooth device address.
int sdl_bt_address_valid(const char *address);

/// Publishes an SDP record for an RFCOMM service with a 128-bit service-class UUID on the
/// local SDP server (what an Android phone's SDL router does, so a head unit finds it).
/// Returns an opaque session (keep it: closing it withdraws the record), or NULL with errno set.
void *sdl_sdp_register_rfcomm(const uint8_t uuid[16], uint8_t channel, const char *name);
/// Withdraws a record registered with sdl_sdp_register_rfcomm.
void sdl_sdp_unregister(void *session);

/// Looks up the RFCOMM channel of the service with this UUID on a remote device, asking
/// from the adapter whose address is `source` (NULL: any), within about `timeout_ms` for the
/// connect and as much again for the answer.
/// Returns 0 and sets *channel, or -1 with errno set (no SDP server, no such service: ENOENT;
/// no answer: ETIMEDOUT).
int sdl_sdp_find_rfcomm_channel(const char *source, const char *address, const uint8_t uuid[16], int timeout_ms, uint8_t *channel);

/// Finds a local adapter by name ("hci1") or address, powered or not; `spec` NULL means the
/// default one. Returns its device id and writes its address, name and whether it is up, or
/// -1 with errno set (ENODEV: no such adapter; EINVAL: not a name or address; EAFNOSUPPORT:
/// no Bluetooth in the kernel).
int sdl_bt_adapter(const char *spec, char address[18], char name[16], int *powered);
/// Inquires for nearby devices from adapter `device_id` for about `seconds` and writes up to
/// `max` addresses; returns how many, or -1 with errno set.
int sdl_bt_inquiry(int device_id, int seconds, char (*addresses)[18], int max);

/// Registers the SDL service with BlueZ over D-Bus (org.bluez.ProfileManager1.RegisterProfile,
/// role server, RFCOMM `channel` 1…30) on the system bus, or on
/// `bus_address` when not NULL (a test's private bus). Returns 0 and a handle in *out, or a
/// negative errno with the D-Bus error's name and message copied out ("adapter-off" when
/// hci0 is there but powered off).
int sdl_bluez_profile_register(const char *bus_address, const char *uuid, const char *name, int channel,
                               void **out, char *error_name, size_t name_len, char *error_message, size_t message_len);
/// Waits up to `timeout_ms` for bluetoothd's NewConnection and returns its socket (ours to
/// close), with the device's object path in `device`; -ETIMEDOUT, -ECONNRESET (bluetoothd
/// released the profile) or another negative errno.
int sdl_bluez_profile_wait(void *handle, int timeout_ms, char *device, size_t device_len);
/// Unregisters the profile and closes the bus connection.
void sdl_bluez_profile_close(void *handle);

/// The max packet size of a FunctionFS endpoint file at the speed the host chose
/// (ioctl FUNCTIONFS_ENDPOINT_DESC), or -1 with errno set (not a FunctionFS endpoint).
int sdl_ffs_max_packet_size(int fd);

#endif
