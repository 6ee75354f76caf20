#!/usr/bin/python3
"""Fake USB devices, written in code, for running the real libusb code under umockdev.

    umockdev-wrapper /usr/bin/python3 Tests/USB/fake_usb.py --scenario devices \
        [--bridge 127.0.0.1:PORT] -- swift test --skip-build --filter USB

umockdev emulates devices at the kernel's usbfs boundary (LD_PRELOAD), so libusb and our
Swift code run unmodified; this script plays the kernel + device side of every usbfs
ioctl (SUBMITURB / REAPURB / DISCARDURB / CLAIMINTERFACE / ...) for each fake device.

Scenarios (--scenario):
  devices  every fake below, on bus 1
  empty    no USB device at all (and no /dev/bus/usb)

Fakes in "devices" (bus 1; address = the N in 1-N):
  1-2  1d6b:0104 serial TDK-WHOLE: a usbfs that takes bulk transfers whole (capability
                               NO_PACKET_SIZE_LIM), so libusb submits each as one URB; echoes,
                               and records the length of every bulk URB submitted
  1-3  046d:c077 "Mouse"       HID only; stalls every vendor request (not AOA-capable)
  1-4  0bb4:0c02 "OldPhone"    answers GET_PROTOCOL with protocol 0 (not AOA-capable)
  1-5  18d1:4ee1 "Pixel"       answers GET_PROTOCOL (2) / SEND_STRING / START, records the
                               strings, then leaves and comes back as 18d1:2d01 at 1-6
  1-6  18d1:2d01 "Android Accessory" (only after START) accessory iface 0 + ADB iface 1;
                               echoes what arrives on 0x02 back on 0x81, or with
                               --accessory-bridge HOST:PORT connects there as soon as it
                               appears and carries the bulk data both ways: the phone's SDL
                               app then runs on the other end of that TCP connection
  1-7  1d6b:0104 "SDL TDK" serial TDK-ECHO: unconfigured (bConfigurationValue 0), a kernel
                               driver bound to the vendor interface 1, bulk OUT 0x01 and IN
                               0x82 on interface 1 behind a CDC interface 0 (interrupt 0x83);
                               accepts at most 4096 bytes per OUT URB (short writes) and echoes
  1-8  1d6b:0104 serial TDK-BUSY: CLAIMINTERFACE fails with EBUSY
  1-9  1d6b:0104 serial TDK-LOCKED: device node mode 000 (and the client runs without
                               CAP_DAC_OVERRIDE, so the kernel really answers EACCES)
  1-10 1d6b:0104 serial TDK-SILENT: answers descriptors only; vendor control and bulk
                               transfers never complete (until cancelled)
  1-11 1d6b:0104 serial TDK-UNPLUG: echoes (or bridges to --unplug-bridge HOST:PORT), but
                               after data containing b"UNPLUG" it completes its pending URBs
                               with ENODEV and is removed (remove uevent)
  1-12 1d6b:0104 serial TDK-BRIDGE: bulk data bridged to TCP --bridge HOST:PORT (connects
                               on the first OUT transfer), so the SDL protocol can run end to
                               end over USB; without --bridge it echoes
  1-N  1d6b:0104 serial TDK-LATE (N >= 13): plugged in when the child creates the file
                               $SDL_FAKE_USB_PLUG_DIR/plug-N and pulled out when it creates
                               unplug-N; bridged to --late-bridge HOST:PORT when given

The child gets UMOCKDEV_DIR, LD_PRELOAD, SDL_UMOCKDEV_SCENARIO, SDL_FAKE_USB_RECORD (a JSON
lines file of what the fakes observed: strings, claims, configuration, detach) and
SDL_FAKE_USB_BRIDGE. As root, the child runs with CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH
dropped from its bounding set (setpriv) so file modes are enforced like for a user.
"""
import argparse, errno, json, os, shutil, socket, struct, subprocess, sys, threading, time

import gi
gi.require_version('UMockdev', '1.0')
from gi.repository import UMockdev

# usbfs ioctls (x86_64 / aarch64 numbering)
SUBMITURB, DISCARDURB, REAPURB, REAPURBNDELAY = 0x8038550A, 0x550B, 0x4008550C, 0x4008550D
CLAIMINTERFACE, RELEASEINTERFACE, SETCONFIGURATION = 0x8004550F, 0x80045510, 0x80045505
GETDRIVER, USBFS_IOCTL, GET_CAPS = 0x41045508, 0xC0105512, 0x8004551A
SIMPLE_OK = {0x80045515: "CLEAR_HALT", 0x80045504: "SETINTERFACE"}
RESET = 0x5514
USBDEVFS_DISCONNECT = 0x5516
URB_CONTROL, URB_BULK, URB_INTERRUPT = 2, 3, 1

def log(*a):
    print("[fake-usb]", *a, file=sys.stderr, flush=True)

RECORD = None
RECORD_LOCK = threading.Lock()

def record(**event):
    with RECORD_LOCK, open(RECORD, "a") as f:
        f.write(json.dumps(event) + "\n")

# ---------------------------------------------------------------- descriptors
def ep(addr, attrs=2, size=512):
    return bytes([7, 5, addr, attrs, size & 0xff, size >> 8, 0])

def iface(num, cls, sub, proto, eps):
    return bytes([9, 4, num, 0, len(eps), cls, sub, proto, 0]) + b"".join(eps)

def config(*ifaces):
    body = b"".join(ifaces)
    return bytes([9, 2, (9 + len(body)) & 0xff, (9 + len(body)) >> 8, len(ifaces), 1, 0, 0x80, 0xfa]) + body

def device_descriptor(vid, pid):
    return bytes([0x12, 1, 0, 2, 0, 0, 0, 0x40, vid & 0xff, vid >> 8, pid & 0xff, pid >> 8, 0, 1, 1, 2, 3, 1])

def sysfs_path(n):
    return f"/sys/devices/pci0000:00/0000:00:14.0/usb1/1-{n}"

def umockdev_text(n, vid, pid, product, serial, cfg, configured=True):
    h = (device_descriptor(vid, pid) + cfg).hex()
    return (f"P: /devices/pci0000:00/0000:00:14.0/usb1/1-{n}\nN: bus/usb/001/{n:03d}\n"
            f"E: DEVNAME=/dev/bus/usb/001/{n:03d}\nE: DEVTYPE=usb_device\nE: DRIVER=usb\n"
            f"E: SUBSYSTEM=usb\nE: BUSNUM=001\nE: DEVNUM={n:03d}\nE: MAJOR=189\nE: MINOR={n - 1}\n"
            f"E: PRODUCT={vid:x}/{pid:x}/100\nA: busnum=1\nA: devnum={n}\nA: speed=480\n"
            f"A: bConfigurationValue={1 if configured else ''}\nA: bNumConfigurations=1\n"
            f"A: idVendor={vid:04x}\nA: idProduct={pid:04x}\nA: product={product}\n"
            f"A: serial={serial}\nA: dev=189:{n - 1}\nH: descriptors={h}\n")

# ---------------------------------------------------------------- one fake device
class FakeUsb(UMockdev.IoctlBase):
    """Plays usbfs for one device node. Subclasses override control() and bulk_out()."""

    def __init__(self, name, strings, out_limit=None, driver=None, claim_errno=0, silent=False, caps=0,
                 record_urbs=False):
        super().__init__()
        self.caps, self.record_urbs = caps, record_urbs
        self.name, self.strings = name, strings      # strings: {1: manufacturer, 2: product, 3: serial}
        self.out_limit, self.driver, self.claim_errno, self.silent = out_limit, driver, claim_errno, silent
        self.lock = threading.RLock()
        self.done = []          # completed URBs waiting to be reaped
        self.in_waiting = []    # bulk IN URBs waiting for data: (urb, buf, length)
        self.stuck = []         # URBs that will only end when discarded: (urb, buf, length)
        self.in_queue = []      # device->host bytes not yet delivered
        self.gone = False

    # -- helpers
    def _complete(self, urb, status, actual, payload=None, buf=None, offset=0):
        if payload and buf is not None:
            buf.update(offset, payload)
        urb.update(4, struct.pack('<i', status))
        urb.update(28, struct.pack('<i', actual))
        self.done.append(urb)

    def deliver(self, data):
        """Queues device->host bytes (any thread)."""
        with self.lock:
            if data:
                self.in_queue.append(bytes(data))
            self._pump_in()

    def _pump_in(self):
        while self.in_waiting and self.in_queue:
            urb, buf, n = self.in_waiting.pop(0)
            chunk = self.in_queue.pop(0)
            if len(chunk) > n:
                self.in_queue.insert(0, chunk[n:])
                chunk = chunk[:n]
            self._complete(urb, 0, len(chunk), chunk, buf)

    def unplug_now(self, tb, path):
        """Ends every pending URB as the kernel does on disconnect, then removes the device."""
        with self.lock:
            self.gone = True
            for urb, _buf, _n in self.in_waiting + self.stuck:
                self._complete(urb, -errno.ENODEV, 0)
            self.in_waiting, self.stuck = [], []
        record(device=self.name, event="unplug")
        tb.uevent(path, "remove")
        tb.remove_device(path)

    # -- device behaviour (overridable)
    def control(self, bmrt, breq, wval, widx, data):
        """Returns reply bytes (IN), b"" (OUT ok), None (STALL) or Ellipsis (never completes)."""
        return None

    def bulk_out(self, ep, data):
        pass

    def standard_control(self, bmrt, breq, wval, widx, wlen):
        if (bmrt, breq) == (0x80, 6) and wval >> 8 == 3:      # GET_DESCRIPTOR(string)
            idx = wval & 0xff
            if idx == 0:
                return bytes([4, 3, 0x09, 0x04])
            s = self.strings.get(idx)
            if s is None:
                return None
            enc = s.encode('utf-16-le')
            return bytes([2 + len(enc), 3]) + enc
        return None

    # -- usbfs
    def do_handle_ioctl(self, client):
        req = client.get_request()
        if os.environ.get("FAKE_DEBUG"):
            log(self.name, hex(req))
        with self.lock:
            if self.gone:
                client.complete(-1, errno.ENODEV)
                return True
            if req == SUBMITURB:
                urb = client.get_arg().resolve(0, 56)
                raw = urb.retrieve()
                raw = bytes(raw[0] if isinstance(raw, tuple) else raw)
                typ, epaddr = raw[0], raw[1]
                buflen = struct.unpack_from('<i', raw, 24)[0]
                buf = urb.resolve(16, buflen) if buflen else None
                data = bytes(buf.retrieve()) if buf else b''
                if self.record_urbs and typ == URB_BULK:
                    record(device=self.name, event="in" if epaddr & 0x80 else "out", length=buflen)
                if typ == URB_CONTROL:
                    bmrt, breq, wval, widx, wlen = struct.unpack_from('<BBHHH', data)
                    if bmrt & 0x60 == 0:   # standard request
                        reply = self.standard_control(bmrt, breq, wval, widx, wlen)
                    elif self.silent:
                        reply = Ellipsis
                    else:
                        reply = self.control(bmrt, breq, wval, widx, data[8:8 + wlen])
                    if reply is Ellipsis:
                        self.stuck.append((urb, buf, buflen))
                    elif reply is None:
                        self._complete(urb, -errno.EPIPE, 0)                    # STALL
                    elif bmrt & 0x80:
                        self._complete(urb, 0, len(reply[:wlen]), reply[:wlen], buf, 8)
                    else:
                        self._complete(urb, 0, wlen)
                elif typ in (URB_BULK, URB_INTERRUPT) and not (epaddr & 0x80):
                    if self.silent:
                        self.stuck.append((urb, buf, buflen))
                    else:
                        accepted = data if self.out_limit is None else data[:self.out_limit]
                        self._complete(urb, 0, len(accepted))
                        self.bulk_out(epaddr, accepted)
                elif typ in (URB_BULK, URB_INTERRUPT):
                    (self.stuck if self.silent or epaddr != self.in_ep else self.in_waiting).append((urb, buf, buflen))
                else:
                    client.complete(-1, errno.EINVAL)
                    return True
                self._pump_in()
                client.complete(0, 0)
            elif req in (REAPURB, REAPURBNDELAY):
                if self.done:
                    client.get_arg().resolve(0, 8).set_ptr(0, self.done.pop(0))
                    client.complete(0, 0)
                else:
                    client.complete(-1, errno.EAGAIN)
            elif req == DISCARDURB:
                addr = struct.unpack('<Q', bytes(client.get_arg().retrieve()))[0]
                for lst in (self.in_waiting, self.stuck):
                    hit = [i for i, (u, _b, _n) in enumerate(lst) if u.client_addr == addr]
                    if hit:
                        u = lst.pop(hit[0])[0]
                        u.update(4, struct.pack('<i', -errno.ENOENT))
                        self.done.append(u)
                        client.complete(0, 0)
                        break
                else:
                    client.complete(-1, errno.EINVAL)
            elif req == GET_CAPS:
                client.get_arg().resolve(0, 4).update(0, struct.pack('<I', self.caps))
                client.complete(0, 0)
            elif req == CLAIMINTERFACE:
                n = struct.unpack('<I', bytes(client.get_arg().resolve(0, 4).retrieve()))[0]
                record(device=self.name, event="claim", interface=n, ok=not self.claim_errno)
                if self.claim_errno:
                    client.complete(-1, self.claim_errno)
                else:
                    client.complete(0, 0)
            elif req == RELEASEINTERFACE:
                record(device=self.name, event="release")
                client.complete(0, 0)
            elif req == SETCONFIGURATION:
                n = struct.unpack('<i', bytes(client.get_arg().resolve(0, 4).retrieve()))[0]
                record(device=self.name, event="setconfig", value=n)
                if self.on_setconfig:
                    self.on_setconfig(n)
                client.complete(0, 0)
            elif req == GETDRIVER:
                arg = client.get_arg().resolve(0, 260)
                if self.driver:
                    arg.update(4, self.driver.encode() + b"\0")
                    client.complete(0, 0)
                else:
                    client.complete(-1, errno.ENODATA)
            elif req == USBFS_IOCTL:
                raw = bytes(client.get_arg().resolve(0, 16).retrieve())
                ifno, code = struct.unpack_from('<ii', raw)
                if code == USBDEVFS_DISCONNECT and self.driver:
                    record(device=self.name, event="detach", interface=ifno, driver=self.driver)
                    self.driver = None
                    client.complete(0, 0)
                else:
                    client.complete(-1, errno.ENODATA)
            elif req == RESET:
                record(device=self.name, event="reset")
                client.complete(0, 0)
            elif req in SIMPLE_OK:
                client.complete(0, 0)
            else:
                log(f"{self.name}: unhandled ioctl 0x{req:08x}")
                client.complete(-1, errno.ENOTTY)
        return True

    in_ep = 0x81
    on_setconfig = None

# ---------------------------------------------------------------- the fakes
class Phone(FakeUsb):
    """A phone in MTP mode that speaks AOA: GET_PROTOCOL -> 2, records SEND_STRING, START re-enumerates."""
    def __init__(self, on_start):
        super().__init__("phone", {1: "Google", 2: "Pixel", 3: "PHONE0001"})
        self.on_start = on_start

    def control(self, bmrt, breq, wval, widx, data):
        if (bmrt, breq) == (0xC0, 51):
            record(device=self.name, event="get_protocol")
            return b"\x02\x00"
        if (bmrt, breq) == (0x40, 52):
            record(device=self.name, event="string", index=widx, value=data.decode('utf-8', 'replace'),
                   hex=data.hex())
            return b""
        if (bmrt, breq) == (0x40, 53):
            record(device=self.name, event="start")
            threading.Thread(target=self.on_start, daemon=True).start()
            return b""
        return None

class ZeroProtocol(FakeUsb):
    def control(self, bmrt, breq, wval, widx, data):
        return b"\x00\x00" if (bmrt, breq) == (0xC0, 51) else None

class Echo(FakeUsb):
    """Echoes bulk OUT data back on bulk IN; optionally unplugs on b'UNPLUG' or bridges to TCP."""
    def __init__(self, name, strings, out_ep, in_ep, unplug=None, bridge=None, eager=False, **kw):
        super().__init__(name, strings, **kw)
        self.out_ep, self.in_ep, self.unplug, self.bridge = out_ep, in_ep, unplug, bridge
        self.sock = None
        if bridge and eager:  # the far end speaks first (a phone's app): connect now
            threading.Thread(target=self._connect_eagerly, daemon=True).start()

    def _connect_eagerly(self):
        host, port = self.bridge.rsplit(":", 1)
        for _ in range(50):
            try:
                self.sock = socket.create_connection((host, int(port)), timeout=5)
                break
            except OSError:
                time.sleep(0.1)
        else:
            return
        self.sock.settimeout(None)
        record(device=self.name, event="bridge_connected", to=self.bridge)
        self._from_tcp()

    def bulk_out(self, ep, data):
        if ep != self.out_ep:
            return
        if self.unplug and b"UNPLUG" in data:
            threading.Thread(target=self.unplug, daemon=True).start()
            return
        if self.bridge:
            if self.sock is None:
                host, port = self.bridge.rsplit(":", 1)
                self.sock = socket.create_connection((host, int(port)), timeout=5)
                self.sock.settimeout(None)
                record(device=self.name, event="bridge_connected", to=self.bridge)
                threading.Thread(target=self._from_tcp, daemon=True).start()
            self.sock.sendall(data)
        else:
            self.deliver(data)

    def unplug_now(self, tb, path):
        """Pulled out: the head unit behind the bridge sees its link end too, as over a cable."""
        super().unplug_now(tb, path)
        sock, self.sock = self.sock, None
        if sock:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _from_tcp(self):
        sock = self.sock
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                # The far end closed (a test's head unit stopped): the next bulk OUT transfer
                # connects again, as a TDK does for its next app.
                if self.sock is sock:
                    self.sock = None
                return
            self.deliver(data)

TDK_CONFIG = config(iface(0, 0x02, 0x02, 0x01, [ep(0x83, attrs=3, size=16)]),      # CDC comm, interrupt IN
                    iface(1, 0xff, 0x00, 0x00, [ep(0x01), ep(0x82)]))              # vendor: OUT listed first
PHONE_CONFIG = config(iface(0, 0x06, 0x01, 0x01, [ep(0x81), ep(0x02), ep(0x83, attrs=3, size=28)]))
ACCESSORY_CONFIG = config(iface(0, 0xff, 0xff, 0x00, [ep(0x81), ep(0x02)]),
                          iface(1, 0xff, 0x42, 0x01, [ep(0x83), ep(0x03)]))        # ADB after the accessory
MOUSE_CONFIG = config(iface(0, 0x03, 0x01, 0x02, [ep(0x81, attrs=3, size=8)]))

def add(tb, n, vid, pid, fake, product, serial, cfg, configured=True):
    """Attaches the handler first, then adds the device (adding emits the 'add' uevent)."""
    if fake is not None:
        tb.attach_ioctl(f"/dev/bus/usb/001/{n:03d}", fake)
    tb.add_from_string(umockdev_text(n, vid, pid, product, serial, cfg, configured))

def build_devices(tb, bridge, accessory_bridge=None, unplug_bridge=None, late_bridge=None):
    def reenumerate():
        time.sleep(0.2)
        log("phone re-enumerating as accessory 18d1:2d01 at 1-6")
        tb.uevent(sysfs_path(5), "remove")
        tb.remove_device(sysfs_path(5))
        accessory = Echo("accessory", {1: "Google", 2: "Android Accessory", 3: "PHONE0001"}, 0x02, 0x81,
                         bridge=accessory_bridge, eager=True)
        add(tb, 6, 0x18d1, 0x2d01, accessory, "Android Accessory", "PHONE0001", ACCESSORY_CONFIG)
        record(device="accessory", event="arrived", bus=1, address=6)

    add(tb, 2, 0x1d6b, 0x0104, Echo("TDK-WHOLE", {1: "SDL", 2: "SDL TDK", 3: "TDK-WHOLE"}, 0x01, 0x82,
                                    caps=0x04, record_urbs=True), "SDL TDK", "TDK-WHOLE", TDK_CONFIG)
    add(tb, 3, 0x046d, 0xc077, FakeUsb("mouse", {1: "Logitech", 2: "Mouse", 3: "M1"}),
        "Mouse", "M1", MOUSE_CONFIG)
    add(tb, 4, 0x0bb4, 0x0c02, ZeroProtocol("oldphone", {1: "HTC", 2: "OldPhone", 3: "OLD1"}),
        "OldPhone", "OLD1", PHONE_CONFIG)
    add(tb, 5, 0x18d1, 0x4ee1, Phone(reenumerate), "Pixel", "PHONE0001", PHONE_CONFIG)

    def tdk(serial, **kw):
        return Echo(serial, {1: "SDL", 2: "SDL TDK", 3: serial}, 0x01, 0x82, **kw)
    echo = tdk("TDK-ECHO", out_limit=4096, driver="usbserial_generic")
    echo.on_setconfig = lambda v: tb.set_attribute(sysfs_path(7), "bConfigurationValue", str(v))
    add(tb, 7, 0x1d6b, 0x0104, echo, "SDL TDK", "TDK-ECHO", TDK_CONFIG, configured=False)
    add(tb, 8, 0x1d6b, 0x0104, tdk("TDK-BUSY", claim_errno=errno.EBUSY), "SDL TDK", "TDK-BUSY", TDK_CONFIG)
    add(tb, 9, 0x1d6b, 0x0104, None, "SDL TDK", "TDK-LOCKED", TDK_CONFIG)
    os.chmod(os.path.join(tb.get_root_dir(), "dev/bus/usb/001/009"), 0)
    add(tb, 10, 0x1d6b, 0x0104, tdk("TDK-SILENT", silent=True), "SDL TDK", "TDK-SILENT", TDK_CONFIG)
    holder = {}
    unplugger = tdk("TDK-UNPLUG", unplug=lambda: (time.sleep(0.3), holder["u"].unplug_now(tb, sysfs_path(11))),
                    bridge=unplug_bridge)
    holder["u"] = unplugger
    add(tb, 11, 0x1d6b, 0x0104, unplugger, "SDL TDK", "TDK-UNPLUG", TDK_CONFIG)
    add(tb, 12, 0x1d6b, 0x0104, tdk("TDK-BRIDGE", bridge=bridge), "SDL TDK", "TDK-BRIDGE", TDK_CONFIG)

    def plug_when_asked():
        """A TDK plugged in at 1-N each time the child creates plug-N (hotplug while running)."""
        plugged, late = set(), {}
        while True:
            for name in os.listdir(tb.get_root_dir()):
                if name.startswith("unplug-") and name not in plugged and int(name[7:]) in late:
                    plugged.add(name)
                    n = int(name[7:])
                    log(f"TDK-LATE at 1-{n} pulled out")
                    late[n].unplug_now(tb, sysfs_path(n))
                    continue
                if not name.startswith("plug-") or name in plugged:
                    continue
                plugged.add(name)
                n = int(name[5:])
                holder = {}
                device = tdk("TDK-LATE", unplug=lambda n=n, h=holder: (time.sleep(0.3), h["d"].unplug_now(tb, sysfs_path(n))),
                             bridge=late_bridge)
                holder["d"] = late[n] = device
                log(f"TDK-LATE plugged in at 1-{n}")
                add(tb, n, 0x1d6b, 0x0104, device, "SDL TDK", "TDK-LATE", TDK_CONFIG)
                record(device="TDK-LATE", event="plugged", address=n)
            time.sleep(0.05)
    threading.Thread(target=plug_when_asked, daemon=True).start()

def main():
    global RECORD
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", choices=["devices", "empty"], default="devices")
    ap.add_argument("--bridge", help="HOST:PORT: TDK-BRIDGE forwards its bulk data to this TCP endpoint")
    ap.add_argument("--accessory-bridge", help="HOST:PORT: the accessory (after the AOA switch) connects here and bridges its bulk data")
    ap.add_argument("--unplug-bridge", help="HOST:PORT: TDK-UNPLUG bridges its bulk data here (and still unplugs on b'UNPLUG')")
    ap.add_argument("--late-bridge", help="HOST:PORT: each TDK-LATE bridges its bulk data here")
    ap.add_argument("--keep-caps", action="store_true", help="do not drop CAP_DAC_OVERRIDE for the child")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no command to run")
    if "UMOCKDEV_DIR" not in os.environ and "libumockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
        ap.error("run me under umockdev-wrapper")

    tb = UMockdev.Testbed.new()
    root = tb.get_root_dir()
    RECORD = os.path.join(root, "fake-usb-record.jsonl")
    open(RECORD, "w").close()
    if args.scenario == "devices":
        build_devices(tb, args.bridge, args.accessory_bridge, args.unplug_bridge, args.late_bridge)
    env = dict(os.environ, LD_PRELOAD="libumockdev-preload.so.0", UMOCKDEV_DIR=root,
               SDL_UMOCKDEV_SCENARIO=args.scenario, SDL_FAKE_USB_RECORD=RECORD,
               SDL_FAKE_USB_BRIDGE=args.bridge or "", SDL_FAKE_USB_ACCESSORY_BRIDGE=args.accessory_bridge or "",
               SDL_FAKE_USB_UNPLUG_BRIDGE=args.unplug_bridge or "", SDL_FAKE_USB_PLUG_DIR=root,
               SDL_FAKE_USB_LATE_BRIDGE=args.late_bridge or "")
    if os.geteuid() == 0 and not args.keep_caps:
        # root ignores file modes; without these two capabilities the kernel checks them.
        cmd = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
               "--bounding-set=-dac_override,-dac_read_search", "--"] + cmd
    log(f"scenario {args.scenario}, UMOCKDEV_DIR {root}")
    rc = 1
    try:
        rc = subprocess.run(cmd, env=env, timeout=600).returncode
    finally:
        # Python may or may not finalize the testbed (it does not when ioctl handlers are
        # attached), and a finalizer that finds its root gone aborts: remove the root
        # ourselves and leave without running finalizers.
        shutil.rmtree(root, ignore_errors=True)
        log("client exit", rc)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)

if __name__ == "__main__":
    main()
