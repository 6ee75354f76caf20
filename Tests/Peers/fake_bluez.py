#!/usr/bin/python3
"""A stand-in for bluetoothd on a private D-Bus bus: just enough of BlueZ 5's D-Bus API for
the SDL phone role (org.bluez.ProfileManager1 and the adapter's Powered property). Written
from BlueZ's doc/profile-api.txt with python3-dbus; it shares no code with the library.

On RegisterProfile it prints the call as a JSON line, then plays a head unit connecting:
it makes a socketpair, hands one end to the registering program's org.bluez.Profile1
NewConnection (device 00:11:22:33:44:55), and relays the other end to --bridge HOST:PORT
(the emulator), as bluetoothd hands over an RFCOMM socket. --deny refuses RegisterProfile
as D-Bus does without permission; --adapter-off says hci0 is powered off. A profile
registered without a Channel is refused: the real bluetoothd serves it on no channel.

First line: {"event": "ready", "bus": ADDRESS}. Without --bus it starts a private
dbus-daemon of its own (stopped with it), whose address the line gives.

  fake_bluez.py [--bus ADDRESS] [--bridge HOST:PORT] [--deny] [--adapter-off] [--devices PATH,...]

--devices: connect once from each device object path in turn (default: one, on hci0); only
the last one is relayed to --bridge, the others lead nowhere.
"""
import argparse, json, signal, socket, subprocess, sys, threading
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

DEVICE = "/org/bluez/hci0/dev_00_11_22_33_44_55"

def log(**event):
    print(json.dumps(event, sort_keys=True), flush=True)

def plain(value):
    """D-Bus values as JSON."""
    if isinstance(value, dbus.Boolean): return bool(value)
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)): return int(value)
    if isinstance(value, dbus.Dictionary): return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, dbus.Array): return [plain(v) for v in value]
    return str(value)

def relay(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data: break
            sink.sendall(data)
    except OSError:
        pass
    for s in (source, sink):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass

class ProfileManager(dbus.service.Object):
    def __init__(self, bus, args):
        super().__init__(bus, "/org/bluez")
        self.bus, self.args = bus, args
        self.held = []  # the head-unit ends of connections that lead nowhere stay open

    @dbus.service.method("org.bluez.ProfileManager1", in_signature="osa{sv}", out_signature="", sender_keyword="sender")
    def RegisterProfile(self, path, uuid, options, sender=None):
        if self.args.deny:
            raise dbus.exceptions.DBusException("Rejected send message (fake policy)", name="org.freedesktop.DBus.Error.AccessDenied")
        log(event="RegisterProfile", path=str(path), uuid=str(uuid), options=plain(options))
        if "Channel" not in options and "PSM" not in options:
            # bluetoothd 5.66 accepts this, then publishes a record without RFCOMM and listens on
            # nothing for a UUID it has no defaults for: no head unit can connect. Say so at once.
            raise dbus.exceptions.DBusException(
                "fake bluetoothd: no Channel for %s, so no head unit could connect to it" % uuid,
                name="org.bluez.Error.InvalidArguments")
        for index, device in enumerate(self.args.devices.split(",")):
            GLib.timeout_add(50 + 100 * index, self.connect, sender, path, device)

    @dbus.service.method("org.bluez.ProfileManager1", in_signature="o", out_signature="")
    def UnregisterProfile(self, path):
        log(event="UnregisterProfile", path=str(path))

    def connect(self, sender, path, device):
        phone, head_unit = socket.socketpair()
        self.held.append(head_unit)
        if self.args.bridge and device == self.args.devices.split(",")[-1]:
            host, port = self.args.bridge.rsplit(":", 1)
            upstream = socket.create_connection((host, int(port)), timeout=5)
            upstream.settimeout(None)
            threading.Thread(target=relay, args=(head_unit, upstream), daemon=True).start()
            threading.Thread(target=relay, args=(upstream, head_unit), daemon=True).start()
        profile = self.bus.get_object(sender, path)
        profile.NewConnection(device, dbus.types.UnixFd(phone.fileno()), {}, dbus_interface="org.bluez.Profile1",
                              reply_handler=lambda: log(event="NewConnection", device=device),
                              error_handler=lambda e: log(event="NewConnectionFailed", error=str(e)))
        phone.close()
        return False

class Adapter(dbus.service.Object):
    def __init__(self, bus, powered):
        super().__init__(bus, "/org/bluez/hci0")
        self.powered = powered

    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface == "org.bluez.Adapter1" and name == "Powered":
            return dbus.Boolean(self.powered)
        raise dbus.exceptions.DBusException("No such property " + name, name="org.freedesktop.DBus.Error.InvalidArgs")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bus")
    ap.add_argument("--bridge")
    ap.add_argument("--deny", action="store_true")
    ap.add_argument("--adapter-off", action="store_true")
    ap.add_argument("--devices", default=DEVICE)
    args = ap.parse_args()
    # A child of Foundation's Process inherits SIGTERM blocked; the test stops us with it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    daemon = None
    if args.bus is None:
        daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        args.bus = daemon.stdout.readline().strip()
    try:
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.bus.BusConnection(args.bus)
        keep = [dbus.service.BusName("org.bluez", bus), ProfileManager(bus, args), Adapter(bus, not args.adapter_off)]
        log(event="ready", bus=args.bus)
        loop = GLib.MainLoop()
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
        loop.run()
        del keep
    finally:
        if daemon:
            daemon.terminate()

if __name__ == "__main__":
    main()
