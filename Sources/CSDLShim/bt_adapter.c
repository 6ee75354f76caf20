#include "CSDLShim.h"
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Local adapters and inquiry through libbluetooth's HCI calls: what a head unit's
 * Bluetooth transport (sdl_core's device scanner) does to find phones. */

int sdl_bt_adapter(const char *spec, char address[18], char name[16], int *powered) {
    struct hci_dev_info info;
    int id = -1;
    if (spec == NULL) {
        /* The first adapter that is up, else the first there is. */
        id = hci_get_route(NULL);
        for (int i = 0; id < 0 && i < HCI_MAX_DEV; i++) {
            if (hci_devinfo(i, &info) == 0) id = i;
            else if (errno == EAFNOSUPPORT) return -1;
        }
    } else if (strncmp(spec, "hci", 3) == 0 && spec[3] != 0 && strspn(spec + 3, "0123456789") == strlen(spec + 3)) {
        id = atoi(spec + 3);
    } else {
        /* An address: hci_devid would find only adapters that are up. */
        bdaddr_t wanted;
        if (str2ba(spec, &wanted) < 0 || bachk(spec) < 0) { errno = EINVAL; return -1; }
        for (int i = 0; id < 0 && i < HCI_MAX_DEV; i++) {
            if (hci_devinfo(i, &info) == 0 && bacmp(&info.bdaddr, &wanted) == 0) id = i;
            else if (errno == EAFNOSUPPORT) return -1;
        }
    }
    if (id < 0) { errno = ENODEV; return -1; }
    memset(&info, 0, sizeof info);
    if (hci_devinfo(id, &info) < 0) return -1;  /* ENODEV: no such adapter */
    ba2str(&info.bdaddr, address);
    strncpy(name, info.name, 15);
    name[15] = 0;
    *powered = hci_test_bit(HCI_UP, &info.flags) ? 1 : 0;
    return id;
}

int sdl_bt_inquiry(int device_id, int seconds, char (*addresses)[18], int max) {
    if (max <= 0) return 0;
    inquiry_info *found = NULL;
    /* The inquiry length is counted in units of 1.28 s. */
    int length = seconds * 100 / 128;
    if (length < 1) length = 1;
    int count = hci_inquiry(device_id, length, max, NULL, &found, IREQ_CACHE_FLUSH);
    if (count < 0) return -1;
    for (int i = 0; i < count; i++) ba2str(&found[i].bdaddr, addresses[i]);
    free(found);
    return count;
}
