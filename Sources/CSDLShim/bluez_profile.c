/* The SDL service through BlueZ's D-Bus API (org.bluez.ProfileManager1.RegisterProfile):
 * bluetoothd publishes the SDP record, listens on RFCOMM, and hands each connection's socket
 * to our org.bluez.Profile1 object in NewConnection. Works on a stock bluetoothd 5, which
 * offers the legacy SDP socket only in compatibility mode (-C). sd-bus from libsystemd. */
#include "CSDLShim.h"
#include <systemd/sd-bus.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROFILE_PATH "/org/smartdevicelink/profile"

struct sdl_bluez_profile {
    sd_bus *bus;
    sd_bus_slot *slot;
    int fd;             /* the connection NewConnection handed over, or -1 */
    int released;       /* bluetoothd called Release: it stopped or dropped the profile */
    char device[128];   /* the device object path of the connection */
};

static void copy(char *to, size_t size, const char *from) {
    if (size == 0) return;
    snprintf(to, size, "%s", from ? from : "");
}

static int on_new_connection(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct sdl_bluez_profile *p = userdata;
    const char *device = NULL;
    int fd = -1;
    int r = sd_bus_message_read(m, "oh", &device, &fd);
    if (r < 0) return r;
    /* The message owns its descriptor; keep a copy of our own. */
    int copy_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (copy_fd < 0) return -errno;
    if (p->fd >= 0) close(p->fd);  /* one connection per wait: a second one replaces the first */
    p->fd = copy_fd;
    copy(p->device, sizeof p->device, device);
    return sd_bus_reply_method_return(m, "");
}

static int on_request_disconnection(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    return sd_bus_reply_method_return(m, "");
}

static int on_release(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    ((struct sdl_bluez_profile *)userdata)->released = 1;
    return sd_bus_reply_method_return(m, "");
}

static const sd_bus_vtable profile_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("NewConnection", "oha{sv}", "", on_new_connection, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("RequestDisconnection", "o", "", on_request_disconnection, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Release", "", "", on_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

static int open_bus(const char *address, sd_bus **bus) {
    if (address == NULL || address[0] == 0) return sd_bus_open_system(bus);
    int r = sd_bus_new(bus);
    if (r < 0) return r;
    if ((r = sd_bus_set_address(*bus, address)) < 0 || (r = sd_bus_set_bus_client(*bus, 1)) < 0 || (r = sd_bus_start(*bus)) < 0) {
        *bus = sd_bus_unref(*bus);
        return r;
    }
    return 0;
}

static void fail(const sd_bus_error *e, int r, const char *what, char *name, size_t name_len, char *message, size_t message_len) {
    if (e && sd_bus_error_is_set(e)) {
        copy(name, name_len, e->name);
        copy(message, message_len, e->message);
    } else {
        copy(name, name_len, what);
        copy(message, message_len, strerror(-r));
    }
}

int sdl_bluez_profile_register(const char *bus_address, const char *uuid, const char *name, int channel,
                               void **out, char *error_name, size_t name_len, char *error_message, size_t message_len) {
    struct sdl_bluez_profile *p = calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->fd = -1;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = open_bus(bus_address, &p->bus);
    if (r < 0) {
        fail(NULL, r, "bus", error_name, name_len, error_message, message_len);
        free(p);
        return r;
    }
    /* An adapter that is there but off accepts the profile and never connects: say so now. */
    int powered = 1;
    if (sd_bus_get_property_trivial(p->bus, "org.bluez", "/org/bluez/hci0", "org.bluez.Adapter1", "Powered", &e, 'b', &powered) >= 0 && !powered) {
        copy(error_name, name_len, "adapter-off");
        copy(error_message, message_len, "the Bluetooth adapter hci0 is powered off");
        sdl_bluez_profile_close(p);
        return -ENETDOWN;
    }
    sd_bus_error_free(&e);
    r = sd_bus_add_object_vtable(p->bus, &p->slot, PROFILE_PATH, "org.bluez.Profile1", profile_vtable, p);
    if (r < 0) {
        fail(NULL, r, "vtable", error_name, name_len, error_message, message_len);
        sdl_bluez_profile_close(p);
        return r;
    }
    /* Always with a Channel: without one bluetoothd publishes no RFCOMM for a UUID it has no defaults for. */
    r = sd_bus_call_method(p->bus, "org.bluez", "/org/bluez", "org.bluez.ProfileManager1", "RegisterProfile", &e, NULL,
                           "osa{sv}", PROFILE_PATH, uuid, 6, "Name", "s", name, "Role", "s", "server",
                           "Channel", "q", (uint16_t)channel, "RequireAuthentication", "b", 0,
                           "RequireAuthorization", "b", 0, "AutoConnect", "b", 0);
    if (r < 0) {
        fail(&e, r, "RegisterProfile", error_name, name_len, error_message, message_len);
        sd_bus_error_free(&e);
        sdl_bluez_profile_close(p);
        return r;
    }
    *out = p;
    return 0;
}

int sdl_bluez_profile_wait(void *handle, int timeout_ms, char *device, size_t device_len) {
    struct sdl_bluez_profile *p = handle;
    struct timespec now, end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += timeout_ms / 1000;
    end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (end.tv_nsec >= 1000000000L) { end.tv_sec += 1; end.tv_nsec -= 1000000000L; }
    for (;;) {
        int r = sd_bus_process(p->bus, NULL);
        if (r < 0) return r;
        if (p->fd >= 0) {
            int fd = p->fd;
            p->fd = -1;
            copy(device, device_len, p->device);
            return fd;
        }
        if (p->released) return -ECONNRESET;
        if (r > 0) continue;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long left = (long long)(end.tv_sec - now.tv_sec) * 1000000LL + (end.tv_nsec - now.tv_nsec) / 1000;
        if (left <= 0) return -ETIMEDOUT;
        r = sd_bus_wait(p->bus, (uint64_t)left);
        if (r < 0 && r != -EINTR) return r;
    }
}

void sdl_bluez_profile_close(void *handle) {
    struct sdl_bluez_profile *p = handle;
    if (!p) return;
    if (p->bus && p->slot) {
        /* bluetoothd also drops it when our bus connection goes; unregistering says it at once. */
        sd_bus_call_method(p->bus, "org.bluez", "/org/bluez", "org.bluez.ProfileManager1", "UnregisterProfile", NULL, NULL, "o", PROFILE_PATH);
    }
    if (p->fd >= 0) close(p->fd);
    sd_bus_slot_unref(p->slot);
    sd_bus_flush_close_unref(p->bus);
    free(p);
}
