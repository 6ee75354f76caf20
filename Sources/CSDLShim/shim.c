#include "CSDLShim.h"
#include <libusb.h>
#include <bluetooth/bluetooth.h>
#include <errno.h>
#include <string.h>
#include <bluetooth/sdp.h>
#include <bluetooth/sdp_lib.h>
#include <bluetooth/rfcomm.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <linux/usb/functionfs.h>

int sdl_libusb_set_log_level(void *ctx, int level) {
    return libusb_set_option((libusb_context *)ctx, LIBUSB_OPTION_LOG_LEVEL, level);
}

int sdl_libusb_no_device_discovery(void *ctx) {
#if defined(LIBUSB_API_VERSION) && LIBUSB_API_VERSION >= 0x01000109
    return libusb_set_option((libusb_context *)ctx, LIBUSB_OPTION_NO_DEVICE_DISCOVERY);
#else
    (void)ctx;
    return LIBUSB_ERROR_NOT_SUPPORTED;
#endif
}



/* RFCOMM sockets: the BlueZ headers stay in C so that Swift never imports a second copy
 * of <sys/socket.h> (its enum constants would then be found twice, and so not at all). */

int sdl_rfcomm_socket(void) {
    return socket(AF_BLUETOOTH, SOCK_STREAM, BTPROTO_RFCOMM);
}

int sdl_rfcomm_bind_listen(int fd, uint8_t channel) {
    struct sockaddr_rc address;
    memset(&address, 0, sizeof address);
    address.rc_family = AF_BLUETOOTH;
    address.rc_channel = channel;  /* rc_bdaddr stays all zeros: BDADDR_ANY */
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) return -1;
    return listen(fd, 1);
}

int sdl_rfcomm_accept(int fd, char peer[18]) {
    struct sockaddr_rc address;
    socklen_t length = sizeof address;
    memset(&address, 0, sizeof address);
    int client = accept(fd, (struct sockaddr *)&address, &length);
    if (client >= 0) ba2str(&address.rc_bdaddr, peer);
    return client;
}

int sdl_bt_address_valid(const char *address) {
    bdaddr_t parsed;
    return bachk(address) == 0 && str2ba(address, &parsed) == 0;
}

/* A socket's SO_SNDTIMEO or SO_RCVTIMEO in milliseconds (0: none). Bluetooth sockets wait for
 * a connect up to the send timeout, then fail with EINPROGRESS; a page that no radio answers
 * would otherwise wait for ever. */
static void sdl_set_timeout(int fd, int option, int timeout_ms) {
    struct timeval limit = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, option, &limit, sizeof limit);
}

int sdl_rfcomm_connect(int fd, const char *source, const char *text, uint8_t channel, int timeout_ms) {
    struct sockaddr_rc address;
    memset(&address, 0, sizeof address);
    if (!sdl_bt_address_valid(text)) { errno = EINVAL; return -1; }
    if (source != NULL) {
        /* Binding the local end picks the adapter the connection leaves from. */
        if (!sdl_bt_address_valid(source)) { errno = EINVAL; return -1; }
        address.rc_family = AF_BLUETOOTH;
        str2ba(source, &address.rc_bdaddr);
        if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) return -1;
        memset(&address, 0, sizeof address);
    }
    str2ba(text, &address.rc_bdaddr);
    address.rc_family = AF_BLUETOOTH;
    address.rc_channel = channel;
    sdl_set_timeout(fd, SO_SNDTIMEO, timeout_ms);
    int status = connect(fd, (struct sockaddr *)&address, sizeof address);
    int saved = errno;
    sdl_set_timeout(fd, SO_SNDTIMEO, 0);  /* the link's writes wait as long as they must */
    if (status < 0 && saved == EINPROGRESS) saved = ETIMEDOUT;
    errno = saved;
    return status;
}

/* SDP through BlueZ's libbluetooth: its API is linked lists of tagged values and
 * compound-literal addresses, which stay here in C; the Swift side sees three calls. */

static sdp_session_t *sdl_local_sdp(void) {
    bdaddr_t any = {{0, 0, 0, 0, 0, 0}};
    bdaddr_t local = {{0, 0, 0, 0xff, 0xff, 0xff}};
    return sdp_connect(&any, &local, SDP_RETRY_IF_BUSY);
}

void *sdl_sdp_register_rfcomm(const uint8_t uuid[16], uint8_t channel, const char *name) {
    sdp_session_t *session = sdl_local_sdp();
    if (session == NULL) return NULL;  /* errno from the failed connect */

    uuid_t service_uuid, root_uuid, l2cap_uuid, rfcomm_uuid;
    sdp_uuid128_create(&service_uuid, uuid);
    sdp_uuid16_create(&root_uuid, PUBLIC_BROWSE_GROUP);
    sdp_uuid16_create(&l2cap_uuid, L2CAP_UUID);
    sdp_uuid16_create(&rfcomm_uuid, RFCOMM_UUID);

    sdp_record_t *record = sdp_record_alloc();
    sdp_list_t *classes = sdp_list_append(NULL, &service_uuid);
    sdp_list_t *browse = sdp_list_append(NULL, &root_uuid);
    sdp_list_t *l2cap = sdp_list_append(NULL, &l2cap_uuid);
    sdp_data_t *channel_data = sdp_data_alloc(SDP_UINT8, &channel);
    sdp_list_t *rfcomm = sdp_list_append(sdp_list_append(NULL, &rfcomm_uuid), channel_data);
    sdp_list_t *protocols = sdp_list_append(sdp_list_append(NULL, l2cap), rfcomm);
    sdp_list_t *access = sdp_list_append(NULL, protocols);

    sdp_set_service_id(record, service_uuid);
    sdp_set_service_classes(record, classes);
    sdp_set_browse_groups(record, browse);
    sdp_set_access_protos(record, access);
    sdp_set_info_attr(record, name, "SmartDeviceLink", "SmartDeviceLink app");

    int status = sdp_record_register(session, record, 0);
    int saved = errno;

    sdp_data_free(channel_data);
    sdp_list_free(l2cap, NULL);
    sdp_list_free(rfcomm, NULL);
    sdp_list_free(protocols, NULL);
    sdp_list_free(access, NULL);
    sdp_list_free(classes, NULL);
    sdp_list_free(browse, NULL);
    if (status < 0) {
        sdp_record_free(record);
        sdp_close(session);
        errno = saved;
        return NULL;
    }
    return session;  /* the record lives as long as the session */
}

void sdl_sdp_unregister(void *session) {
    if (session != NULL) sdp_close((sdp_session_t *)session);
}

static int sdl_sdp_find_rfcomm_channel_unguarded(const char *source, const char *address, const uint8_t uuid[16], int timeout_ms, uint8_t *channel);

/* libbluetooth writes its SDP requests with send() and no MSG_NOSIGNAL: a link that goes
 * down mid-request (the adapter powered off, seen in scripts/lab) would raise SIGPIPE and end
 * the whole process. The signal is held back on this thread and taken before it returns. */
int sdl_sdp_find_rfcomm_channel(const char *source, const char *address, const uint8_t uuid[16], int timeout_ms, uint8_t *channel) {
    sigset_t pipe, previous;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &previous);
    int status = sdl_sdp_find_rfcomm_channel_unguarded(source, address, uuid, timeout_ms, channel);
    int saved = errno;
    struct timespec now = {0, 0};
    while (sigtimedwait(&pipe, NULL, &now) == SIGPIPE) {}
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved;
    return status;
}

static int sdl_sdp_find_rfcomm_channel_unguarded(const char *source, const char *address, const uint8_t uuid[16], int timeout_ms, uint8_t *channel) {
    bdaddr_t local = {{0, 0, 0, 0, 0, 0}};
    bdaddr_t target;
    if (str2ba(address, &target) < 0) { errno = EINVAL; return -1; }
    if (source != NULL && str2ba(source, &local) < 0) { errno = EINVAL; return -1; }
    /* sdp_connect returns NULL without Bluetooth; passing NULL on would crash libbluetooth. */
    /* Non-blocking, so that the connect can be bounded; the request then blocks, bounded too.
     * libbluetooth retries a busy connect only when blocking: that retry is here. */
    sdp_session_t *session = NULL;
    for (int attempt = 0; session == NULL; attempt++) {
        session = sdp_connect(&local, &target, SDP_NON_BLOCKING);
        if (session == NULL && (errno != EBUSY || attempt * 100 >= timeout_ms)) return -1;
        if (session == NULL) usleep(100 * 1000);
    }
    struct pollfd connecting = {session->sock, POLLOUT, 0};
    int ready = poll(&connecting, 1, timeout_ms);
    int failure = 0;
    socklen_t length = sizeof failure;
    if (ready <= 0 || getsockopt(session->sock, SOL_SOCKET, SO_ERROR, &failure, &length) < 0 || failure != 0) {
        sdp_close(session);
        errno = ready == 0 ? ETIMEDOUT : (failure != 0 ? failure : errno);
        return -1;
    }
    fcntl(session->sock, F_SETFL, fcntl(session->sock, F_GETFL) & ~O_NONBLOCK);
    sdl_set_timeout(session->sock, SO_RCVTIMEO, timeout_ms);
    sdl_set_timeout(session->sock, SO_SNDTIMEO, timeout_ms);

    uuid_t service_uuid;
    sdp_uuid128_create(&service_uuid, uuid);
    sdp_list_t *search = sdp_list_append(NULL, &service_uuid);
    uint32_t range = 0x0000ffff;
    sdp_list_t *attributes = sdp_list_append(NULL, &range);
    sdp_list_t *records = NULL;
    int status = sdp_service_search_attr_req(session, search, SDP_ATTR_REQ_RANGE, attributes, &records);
    sdp_list_free(search, NULL);
    sdp_list_free(attributes, NULL);
    int found = -1;
    for (sdp_list_t *r = records; status == 0 && r != NULL && found < 0; r = r->next) {
        sdp_record_t *record = (sdp_record_t *)r->data;
        sdp_list_t *protocols = NULL;
        if (sdp_get_access_protos(record, &protocols) == 0) {
            int port = sdp_get_proto_port(protocols, RFCOMM_UUID);
            if (port > 0) found = port;
            sdp_list_foreach(protocols, (sdp_list_func_t)sdp_list_free, NULL);
            sdp_list_free(protocols, NULL);
        }
    }
    sdp_list_free(records, (sdp_free_func_t)sdp_record_free);
    sdp_close(session);
    if (found < 0) { errno = ENOENT; return -1; }
    *channel = (uint8_t)found;
    return 0;
}

int sdl_ffs_max_packet_size(int fd) {
    struct usb_endpoint_descriptor descriptor;
    memset(&descriptor, 0, sizeof descriptor);
    if (ioctl(fd, FUNCTIONFS_ENDPOINT_DESC, &descriptor) < 0) return -1;
    return descriptor.wMaxPacketSize & 0x7ff;
}
