#!/usr/bin/python3
"""A USB device made with configfs + FunctionFS, for the lab VM (dummy_hcd): the device-side
peer of the host roles.

  ffs_gadget.py phone --listen PORT    an Android-like phone (18d1:4ee1): answers the Android
      Open Accessory requests (GET_PROTOCOL -> 2, six SEND_STRINGs, START), re-enumerates as
      the accessory (18d1:2d01) and relays its bulk endpoints to an app that connects to
      127.0.0.1:PORT (`sdl-run SCENARIO --tcp 127.0.0.1:PORT`). For `sdl-run emulate --usb`.
  ffs_gadget.py tdk --connect PORT     a TDK-like head unit (1d6b:0104, a vendor bulk
      interface, no AOA) whose bulk endpoints are relayed to the head unit at 127.0.0.1:PORT
      (`sdl-run emulate`). For the app's own host role, `sdl-run SCENARIO --usb 1d6b:0104`.

Prints one line per thing it sees ("ready", the AOA strings, byte counts) on stdout.
"""
import argparse, errno, os, socket, struct, sys, threading, time

GADGETS = "/sys/kernel/config/usb_gadget"
SETUP, ENABLE = 4, 2
EVENTS = {0: "BIND", 1: "UNBIND", 2: "ENABLE", 3: "DISABLE", 4: "SETUP", 5: "SUSPEND", 6: "RESUME"}


def log(*words):
    print("[gadget]", *words, flush=True)


def write(path, value):
    with open(path, "w") as f:
        f.write(value)


class Gadget:
    def __init__(self, name, vid, pid):
        self.root = f"{GADGETS}/{name}"
        self.mount = f"/dev/ffs-{name}"
        self.udc = sorted(os.listdir("/sys/class/udc"))[0]
        os.makedirs(self.root + "/strings/0x409", exist_ok=True)
        write(self.root + "/idVendor", vid)
        write(self.root + "/idProduct", pid)
        for key, value in (("manufacturer", "SDL Linux lab"), ("product", name), ("serialnumber", "LAB0001")):
            write(f"{self.root}/strings/0x409/{key}", value)
        os.makedirs(self.root + "/configs/c.1/strings/0x409", exist_ok=True)
        write(self.root + "/configs/c.1/strings/0x409/configuration", "SDL")
        os.makedirs(self.root + "/functions/ffs." + name, exist_ok=True)
        if not os.path.exists(f"{self.root}/configs/c.1/ffs.{name}"):
            os.symlink(f"{self.root}/functions/ffs.{name}", f"{self.root}/configs/c.1/ffs.{name}")
        os.makedirs(self.mount, exist_ok=True)
        if not os.path.ismount(self.mount):
            if os.system(f"mount -t functionfs {name} {self.mount}") != 0:
                sys.exit("cannot mount FunctionFS (is usb_f_fs loaded?)")
        self.ep0 = os.open(self.mount + "/ep0", os.O_RDWR)
        os.write(self.ep0, descriptors())
        os.write(self.ep0, strings())

    def bind(self):
        write(self.root + "/UDC", self.udc)

    def unbind(self):
        try:
            write(self.root + "/UDC", "\n")
        except OSError:
            pass

    def events(self):
        while True:
            data = os.read(self.ep0, 12 * 4)
            for i in range(0, len(data), 12):
                request_type, request, value, index, length = struct.unpack("<BBHHH", data[i:i + 8])
                yield data[i + 8], request_type, request, index, length


def descriptors():
    """FunctionFS descriptors v2: one vendor interface, bulk IN 0x81 and OUT 0x02, full and high speed,
    with all control recipients so that device-level vendor requests (AOA) reach ep0."""
    interface = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 0xFF, 0xFF, 0, 1)
    def endpoint(address, size):
        return struct.pack("<BBBBHB", 7, 5, address, 2, size, 0)
    full = interface + endpoint(0x81, 64) + endpoint(0x02, 64)
    high = interface + endpoint(0x81, 512) + endpoint(0x02, 512)
    body = struct.pack("<III", 1 | 2 | 64, 3, 3) + full + high
    return struct.pack("<II", 3, 8 + len(body)) + body


def strings():
    text = struct.pack("<H", 0x0409) + b"SDL\0"
    return struct.pack("<IIII", 2, 16 + len(text), 1, 1) + text


def relay(gadget, link):
    """Bulk IN gets what the link sends; what the host writes to bulk OUT goes to the link."""
    to_host = os.open(gadget.mount + "/ep1", os.O_WRONLY)
    from_host = os.open(gadget.mount + "/ep2", os.O_RDONLY)
    counts = {"to host": 0, "from host": 0}

    def down():
        while True:
            try:
                data = os.read(from_host, 16384)
            except OSError as error:
                # ESHUTDOWN: the host reset or reconfigured the device (usbip bind does);
                # the endpoint comes back at the next ENABLE, as on a real device.
                if error.errno == errno.ESHUTDOWN:
                    time.sleep(0.05); continue
                log("bulk OUT ended:", error); break
            if not data:
                break
            counts["from host"] += len(data); link.sendall(data)
        link.close()

    threading.Thread(target=down, daemon=True).start()
    while True:
        data = link.recv(16384)
        if not data:
            break
        counts["to host"] += len(data)
        while True:
            try:
                os.write(to_host, data); break
            except OSError as error:
                if error.errno != errno.ESHUTDOWN:
                    log("bulk IN ended:", error); return
                time.sleep(0.05)
    log("relay ended; bytes", counts)


def phone(args):
    gadget = Gadget("sdlphone", "0x18d1", "0x4ee1")
    gadget.bind(); log("bound as 18d1:4ee1 on", gadget.udc)
    received, accessory = [], False
    for kind, request_type, request, index, length in gadget.events():
        if kind != SETUP:
            log("event", EVENTS.get(kind, kind))
            if kind == ENABLE and accessory:
                break
            continue
        if request_type == 0xC0 and request == 51:
            os.write(gadget.ep0, struct.pack("<H", 2)); log("GET_PROTOCOL -> 2")
        elif request_type == 0x40 and request == 52:
            text = os.read(gadget.ep0, length).rstrip(b"\0").decode(errors="replace") if length else ""
            received.append(text); log("SEND_STRING", index, text)
        elif request_type == 0x40 and request == 53:
            os.read(gadget.ep0, 0); log("START; strings:", received)
            time.sleep(0.2); gadget.unbind(); write(gadget.root + "/idProduct", "0x2d01"); time.sleep(0.2); gadget.bind()
            accessory = True; log("re-enumerated as 18d1:2d01")
        else:
            log("SETUP stalled: type 0x%02x request %d" % (request_type, request))
            try:
                os.read(gadget.ep0, 0) if request_type & 0x80 else os.write(gadget.ep0, b"")
            except OSError:
                pass
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.listen)); server.listen(1)
    log("ready: the app may connect to", args.listen)
    app, _ = server.accept(); log("app connected")
    relay(gadget, app)


def tdk(args):
    gadget = Gadget("sdltdk", "0x1d6b", "0x0104")
    gadget.bind(); log("bound as 1d6b:0104 on", gadget.udc)
    for kind, *_ in gadget.events():
        log("event", EVENTS.get(kind, kind))
        if kind == ENABLE:
            break
    head_unit = socket.create_connection(("127.0.0.1", args.connect))
    log("ready: relaying to the head unit at", args.connect)
    relay(gadget, head_unit)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    roles = parser.add_subparsers(dest="role", required=True)
    roles.add_parser("phone").add_argument("--listen", type=int, required=True)
    roles.add_parser("tdk").add_argument("--connect", type=int, required=True)
    args = parser.parse_args()
    {"phone": phone, "tdk": tdk}[args.role](args)
