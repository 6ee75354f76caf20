#!/usr/bin/env python3
"""A minimal, independent SDL head unit for tests: written from PROTOCOL.md with Python's
struct and pymongo's bson, sharing no code with the Swift library, so a misreading of the
spec in our codec cannot hide behind itself.

It serves one app over TCP and checks every frame the app sends against the spec rules the
issue names (header version per phase, session id 0 only on the first StartService, no data
frame with message id 0, frame info 0 on single/first frames). It prints the listening port
on its first line, then one line per violation, and exits 1 if there was any.

Modes: --version 5 (default: v5 ACK with BSON protocolVersion 5.4.0), --version 4 or 3
(v4/v3 ACK with a raw 4-byte hash id), --nak (StartServiceNAK with rejectedParams).
--ack-delay S holds the StartServiceACK back S seconds, as sdl_core does until its HMI is
ready. --secondary offers TCP_WIFI in the ACK and announces a second listener in a
TransportEventUpdate (PROTOCOL.md 4.7); the app's RegisterSecondaryTransport on it is
checked and ACKed, and no RPC frame may ever arrive there. --mtu N advertises N and sends the RegisterAppInterface response (~8.7 KB) and an
OnPermissionsChange (~15.5 KB) as multi-frame messages of N-byte payloads, with core's
8-bit multi-frame message ids; frames the app sends must then fit N - 12 payload bytes.
--answer-twice answers every request past registration twice; --answer-as FUNCTION_ID answers
them with a response of that function: the mistakes of a head unit the app side must report.
"""
import argparse, json, socket, struct, sys, threading, time
import bson

HASH_ID = 0x00010001
SESSION = 7

def frame(version, ftype, service, info, session, payload=b"", msg_id=1):
    byte0 = (version << 4) | ftype
    if version == 1:
        return struct.pack(">BBBBI", byte0, service, info, session, len(payload)) + payload
    return struct.pack(">BBBBII", byte0, service, info, session, len(payload), msg_id) + payload

def frames_for(version, service, session, payload, msg_id, mtu):
    """Single frame, or First + Consecutive frames numbered 1..255,1.. with the last 0 (PROTOCOL.md 2.3)."""
    if mtu is None or len(payload) <= mtu:
        return frame(version, 1, service, 0, session, payload, msg_id)
    chunks = [payload[i:i + mtu] for i in range(0, len(payload), mtu)]
    out = frame(version, 2, service, 0, session, struct.pack(">II", len(payload), len(chunks)), msg_id)
    for i, chunk in enumerate(chunks):
        number = 0 if i == len(chunks) - 1 else i % 255 + 1
        out += frame(version, 3, service, number, session, chunk, msg_id)
    return out

def rpc_payload(rpc_type, function_id, correlation, params):
    body = json.dumps(params).encode()
    return struct.pack(">III", (rpc_type << 28) | function_id, correlation & 0xFFFFFFFF, len(body)) + body

class Reader:
    def __init__(self, sock):
        self.sock, self.buf = sock, b""
    def read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data
    def frame(self):
        head = self.read(8)
        version = head[0] >> 4
        msg_id = None
        if version > 1:
            msg_id = struct.unpack(">I", self.read(4))[0]
        size = struct.unpack(">I", head[4:8])[0]
        payload = self.read(size)
        return dict(version=version, enc=bool(head[0] & 8), ftype=head[0] & 7, service=head[1],
                    info=head[2], session=head[3], size=size, msg_id=msg_id, payload=payload)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", type=int, default=5)
    ap.add_argument("--nak", action="store_true")
    ap.add_argument("--ack-delay", type=float, default=0)
    ap.add_argument("--mtu", type=int, default=None)
    ap.add_argument("--secondary", action="store_true")
    ap.add_argument("--answer-twice", action="store_true")
    ap.add_argument("--answer-as", type=int, default=None)
    args = ap.parse_args()
    violations = []
    def check(cond, what):
        if not cond:
            violations.append(what)
            print("VIOLATION " + what, flush=True)

    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(30)
    print(server.getsockname()[1], flush=True)
    conn, _ = server.accept()
    conn.settimeout(30)
    reader = Reader(conn)

    first = reader.frame()
    check(first["version"] == 1, "first StartService must use a v1 header, got v%d" % first["version"])
    check(first["ftype"] == 0 and first["info"] == 1 and first["service"] == 7, "first frame must be StartService(RPC)")
    check(first["session"] == 0, "first StartService must carry session id 0")
    offered = None
    if first["payload"]:
        offered = bson.decode(first["payload"]).get("protocolVersion")
        check(offered == "5.4.1", "app should offer protocolVersion 5.4.1, offered %r" % offered)
        check(first["payload"][4] == 0x02, "protocolVersion must be a BSON string (0x02)")

    if args.nak:
        payload = bson.encode({"rejectedParams": ["protocolVersion"], "reason": "test refuses"})
        conn.sendall(frame(5, 0, 7, 3, 0, payload, 0))
        conn.close()
        print("DONE", flush=True)
        sys.exit(1 if violations else 0)

    time.sleep(args.ack_delay)
    registered = []
    if args.version >= 5:
        fields = {"protocolVersion": "5.4.0", "hashId": HASH_ID, "mtu": bson.Int64(args.mtu or 131072)}
        if args.secondary:
            fields.update(secondaryTransports=["TCP_WIFI"], audioServiceTransports=[2, 1], videoServiceTransports=[2, 1])
        conn.sendall(frame(5, 0, 7, 2, SESSION, bson.encode(fields), 0))
        if args.secondary:
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            listener.settimeout(30)
            update = bson.encode({"tcpIpAddress": "127.0.0.1", "tcpPort": listener.getsockname()[1]})
            conn.sendall(frame(5, 0, 0, 0xFD, SESSION, update, 1))
            threading.Thread(target=serve_secondary, args=(listener, check, registered), daemon=True).start()
    else:
        conn.sendall(frame(args.version, 0, 7, 2, SESSION, struct.pack(">I", HASH_ID), 0))
    expected_version = 5 if args.version >= 5 else args.version

    correlation_ids = set()
    while True:
        try:
            f = reader.frame()
        except EOFError:
            check(False, "connection closed before EndService")
            break
        check(f["version"] == expected_version, "frame after the ACK uses header v%d, expected v%d" % (f["version"], expected_version))
        check(f["session"] == SESSION, "frame after the ACK must carry session %d, got %d" % (SESSION, f["session"]))
        if f["ftype"] == 0:
            if f["info"] == 4 and f["service"] == 7:  # EndService(RPC)
                if expected_version >= 5:
                    got = bson.decode(f["payload"]).get("hashId")
                    check(f["payload"][4] == 0x10, "hashId must be a BSON int32 (0x10)")
                else:
                    got = struct.unpack(">I", f["payload"][:4])[0] if len(f["payload"]) >= 4 else None
                check(got == HASH_ID, "EndService must carry the hash id %#x, got %r" % (HASH_ID, got))
                conn.sendall(frame(expected_version, 0, 7, 5, SESSION, b"", 9))
                break
            continue
        check(f["msg_id"] != 0, "data frame with message id 0")
        check(f["info"] == 0 or f["ftype"] == 3, "frame info must be 0 on single/first frames")
        check(f["ftype"] == 1, "expected single frames for small RPCs")
        if args.mtu:
            check(f["size"] <= args.mtu - 12, "frame payload %d exceeds mtu - 12 = %d" % (f["size"], args.mtu - 12))
        p = f["payload"]
        word, corr, jsize = struct.unpack(">III", p[:12])
        rpc_type, fid = word >> 28, word & 0x0FFFFFFF
        params = json.loads(p[12:12 + jsize])
        check(rpc_type == 0, "app sent RPC type %d, expected request" % rpc_type)
        check(corr not in correlation_ids, "correlation id %d reused" % corr)
        correlation_ids.add(corr)
        if fid == 1:
            check(params.get("appName") and params.get("appID"), "RegisterAppInterface lacks appName/appID")
            check(params.get("syncMsgVersion", {}).get("majorVersion") is not None, "RegisterAppInterface lacks syncMsgVersion")
            response = {"success": True, "resultCode": "SUCCESS",
                        "syncMsgVersion": {"majorVersion": 8, "minorVersion": 0, "patchVersion": 0},
                        "language": "EN-US", "hmiDisplayLanguage": "EN-US"}
            if args.mtu:  # as large as core 8.2's (~8.7 KB), so it spans several frames
                response["displayCapabilities"] = {"displayType": "SDL_GENERIC", "displayName": "GENERIC", "graphicSupported": True, "mediaClockFormats": ["CLOCK1", "CLOCKTEXT1"], "textFields": [
                    {"name": "mainField%d" % (i % 4 + 1), "characterSet": "UTF_8", "width": 500, "rows": 1} for i in range(110)]}
            conn.sendall(frames_for(expected_version, 7, SESSION, rpc_payload(1, 1, corr, response), 10, args.mtu))
            status = {"hmiLevel": "NONE", "audioStreamingState": "NOT_AUDIBLE", "systemContext": "MAIN"}
            conn.sendall(frame(expected_version, 1, 7, 0, SESSION, rpc_payload(2, 0x8000, -1, status), 11))
            if args.mtu:  # ~15.5 KB, with core's 8-bit multi-frame message id
                items = [{"rpcName": "Function%d" % i, "hmiPermissions": {"allowed": ["BACKGROUND", "FULL", "LIMITED"], "userDisallowed": []},
                          "parameterPermissions": {"allowed": [], "userDisallowed": []}} for i in range(95)]
                conn.sendall(frames_for(expected_version, 7, SESSION, rpc_payload(2, 0x8008, -1, {"permissionItem": items}), 0x1FF & 0xFF, args.mtu))
        elif fid == 2:
            conn.sendall(frame(expected_version, 1, 7, 0, SESSION, rpc_payload(1, 2, corr, {"success": True, "resultCode": "SUCCESS"}), 12))
        else:
            answer = frame(expected_version, 1, 7, 0, SESSION,
                           rpc_payload(1, args.answer_as or fid, corr, {"success": False, "resultCode": "UNSUPPORTED_REQUEST"}), 13)
            conn.sendall(answer * (2 if args.answer_twice else 1))
    if args.secondary:
        check(registered, "the app never registered its secondary transport")
    conn.close()
    print("DONE", flush=True)
    sys.exit(1 if violations else 0)

def serve_secondary(listener, check, registered):
    """The secondary link: RegisterSecondaryTransport first (v5, control, session of the
    primary, no payload), then only audio, video or control frames (PS 4.6.3)."""
    try:
        conn, _ = listener.accept()
    except OSError:
        return
    conn.settimeout(30)
    reader = Reader(conn)
    try:
        first = reader.frame()
        check(first["version"] == 5 and first["ftype"] == 0 and first["service"] == 0 and first["info"] == 7,
              "the first frame on the secondary must be RegisterSecondaryTransport (v5, control), got %r" % {k: first[k] for k in ("version", "ftype", "service", "info")})
        check(first["session"] == SESSION, "RegisterSecondaryTransport must carry the primary's session %d, got %d" % (SESSION, first["session"]))
        check(first["size"] == 0, "RegisterSecondaryTransport has no payload, got %d bytes" % first["size"])
        conn.sendall(frame(5, 0, 0, 8, SESSION, b"", 2))
        registered.append(True)
        while True:
            f = reader.frame()
            check(f["service"] in (0, 0x0A, 0x0B), "service 0x%02X on the secondary: RPC and hybrid stay on the primary" % f["service"])
            check(f["session"] == SESSION, "frame on the secondary with session %d, expected %d" % (f["session"], SESSION))
            if f["ftype"] == 0 and f["info"] == 1 and f["service"] in (0x0A, 0x0B):
                conn.sendall(frame(5, 0, f["service"], 2, SESSION, bson.encode({"mtu": bson.Int64(131072)}), 3))
    except (EOFError, OSError):
        pass

if __name__ == "__main__":
    main()
