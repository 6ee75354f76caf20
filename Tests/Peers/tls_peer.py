#!/usr/bin/env python3
"""An independent TLS client for the library's TLS server: Python's ssl module over memory
BIOs, as a head unit runs TLS inside SDL frames. Messages go both ways on stdin/stdout, each
prefixed with its length (4 bytes, big endian). Usage: tls_peer.py CA.pem [tls|dtls]

It handshakes (TLS 1.2), sends "ping from python" in one record, expects "pong from swift"
back, and exits 0; on any failure it prints the reason on stderr and exits 1."""
import ssl
import struct
import sys


def send(data):
    sys.stdout.buffer.write(struct.pack(">I", len(data)) + data)
    sys.stdout.buffer.flush()


def receive():
    header = sys.stdin.buffer.read(4)
    if len(header) < 4:
        raise SystemExit("tls_peer: the server closed the pipe")
    (size,) = struct.unpack(">I", header)
    return sys.stdin.buffer.read(size)


def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = context.maximum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = False
    context.load_verify_locations(cafile=sys.argv[1])
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_side=False)
    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            send(outgoing.read())
            incoming.write(receive())
    send(outgoing.read())  # what is left of the last flight, possibly nothing
    tls.write(b"ping from python")
    send(outgoing.read())
    incoming.write(receive())
    answer = tls.read(1024)
    if answer != b"pong from swift":
        sys.stderr.write(f"tls_peer: got {answer!r}\n")
        return 1
    sys.stderr.write(f"tls_peer: {tls.version()} with {tls.getpeercert()['subject']}\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ssl.SSLError as error:
        sys.stderr.write(f"tls_peer: {error}\n")
        sys.exit(1)
