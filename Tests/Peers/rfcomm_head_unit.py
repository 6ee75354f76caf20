#!/usr/bin/python3
"""The head unit's side of Bluetooth for the lab VM: what sdl_core's Bluetooth transport
does, with Linux's own tools. Looks the SDL service up by SDP on DEVICE from the local
adapter ADAPTER (sdptool), connects an RFCOMM socket to the channel it names, and relays it
to the head unit at 127.0.0.1:PORT (`sdl-run emulate`).

  rfcomm_head_unit.py --adapter hci0 --device 00:AA:01:01:00:01 --relay 12345 [--wait 60]

Prints one line per thing it sees ("record", "connected", byte counts) on stdout.
"""
import argparse, re, socket, subprocess, sys, threading, time

SDL_UUID = "936da01f-9abd-4d9d-80c7-02af85c822a8"


def log(*words):
    print("[head unit]", *words, flush=True)


def find_channel(adapter, device, deadline):
    """The RFCOMM channel of the SDL record on device, or None when the record has none."""
    while time.time() < deadline:
        listing = subprocess.run(["sdptool", "-i", adapter, "browse", device], capture_output=True, text=True).stdout
        for record in listing.split("\n\n"):
            if SDL_UUID in record.lower():
                log("record:", " | ".join(line.strip() for line in record.splitlines() if line.strip()))
                match = re.search(r"Channel: (\d+)", record)
                return int(match.group(1)) if match else None
        time.sleep(1)
    sys.exit("no SDL record on %s within the wait" % device)


def address_of(adapter):
    out = subprocess.run(["hciconfig", adapter], capture_output=True, text=True).stdout
    return re.search(r"BD Address: ([0-9A-F:]{17})", out).group(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--relay", type=int, required=True)
    parser.add_argument("--wait", type=float, default=60)
    args = parser.parse_args()
    deadline = time.time() + args.wait
    channel = find_channel(args.adapter, args.device, deadline)
    if channel is None:
        sys.exit("the SDL record names no RFCOMM channel: no head unit can connect")
    link = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_STREAM, socket.BTPROTO_RFCOMM)
    link.bind((open(f"/sys/class/bluetooth/{args.adapter}/address").read().strip() if False else address_of(args.adapter), 0))
    link.connect((args.device, channel))
    log("connected to", args.device, "channel", channel)
    head_unit = socket.create_connection(("127.0.0.1", args.relay))
    counts = {"to phone": 0, "from phone": 0}

    def pump(source, sink, key):
        while True:
            try:
                data = source.recv(65536)
            except OSError as error:
                log(key, "ended:", error); break
            if not data:
                break
            counts[key] += len(data)
            try:
                sink.sendall(data)
            except OSError as error:
                log(key, "ended:", error); break
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    threading.Thread(target=pump, args=(head_unit, link, "to phone"), daemon=True).start()
    pump(link, head_unit, "from phone")
    log("relay ended; bytes", counts)


if __name__ == "__main__":
    main()
