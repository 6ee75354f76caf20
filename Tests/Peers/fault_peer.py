#!/usr/bin/env python3
"""A misbehaving head unit, or a faulty link in front of a good one, for fault-injection tests.

  fault_peer.py silent                 accepts, reads everything, never answers
  fault_peer.py close                  accepts and closes at once
  fault_peer.py garbage                answers the first bytes with bytes that are no SDL frame, then stays
  fault_peer.py proxy HOST:PORT [--cut-at N | --stall-at N] [--direction up|down] [--delay MS]
                                       forwards to HOST:PORT; on the first connection only, after N bytes
                                       in one direction (up: app to head unit) the link is cut (both
                                       sockets closed) or stalls (nothing more forwarded, both stay open);
                                       --delay holds every chunk MS milliseconds on every connection

Prints the port it listens on (127.0.0.1) as its first line; logs what it did on stderr.
"""
import argparse
import asyncio
import random
import signal
import sys


def log(message):
    print(f"fault_peer: {message}", file=sys.stderr, flush=True)


async def silent(reader, writer):
    while await reader.read(65536):
        pass
    writer.close()


async def close(reader, writer):
    writer.close()


async def garbage(reader, writer):
    await reader.read(65536)
    noise = bytes(random.Random(7).randrange(256) for _ in range(512))
    writer.write(noise)
    await writer.drain()
    log(f"sent {len(noise)} bytes of garbage")
    await silent(reader, writer)


class Proxy:
    def __init__(self, upstream, cut_at, stall_at, direction, delay_ms):
        self.host, port = upstream.rsplit(":", 1)
        self.port = int(port)
        self.fault_at = cut_at if cut_at is not None else stall_at
        self.fault = "cut" if cut_at is not None else ("stall" if stall_at is not None else None)
        self.direction = direction
        self.delay = delay_ms / 1000
        self.connections = 0

    async def __call__(self, app_reader, app_writer):
        self.connections += 1
        faulty = self.fault is not None and self.connections == 1
        hu_reader, hu_writer = await asyncio.open_connection(self.host, self.port)
        state = {"done": False}
        writers = (app_writer, hu_writer)

        async def pump(reader, writer, direction):
            forwarded = 0
            while not state["done"]:
                data = await reader.read(65536)
                if not data:
                    break
                if self.delay:
                    await asyncio.sleep(self.delay)
                if faulty and direction == self.direction and forwarded + len(data) >= self.fault_at:
                    head = data[: self.fault_at - forwarded]
                    writer.write(head)
                    await writer.drain()
                    forwarded += len(head)
                    log(f"{self.fault} after {forwarded} bytes {direction}")
                    if self.fault == "cut":
                        state["done"] = True
                        for w in writers:
                            w.close()
                        return
                    await asyncio.sleep(3600)  # stall: hold both sockets open, forward nothing
                writer.write(data)
                await writer.drain()
                forwarded += len(data)
            state["done"] = True
            for w in writers:
                w.close()

        await asyncio.gather(pump(app_reader, hu_writer, "up"), pump(hu_reader, app_writer, "down"),
                             return_exceptions=True)


async def main():
    # Started from a Swift test, the process inherits the signal mask of a dispatch thread,
    # with SIGTERM blocked: the test could never stop it, and `swift test` would wait for it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["silent", "close", "garbage", "proxy"])
    parser.add_argument("upstream", nargs="?")
    parser.add_argument("--cut-at", type=int)
    parser.add_argument("--stall-at", type=int)
    parser.add_argument("--direction", choices=["up", "down"], default="up")
    parser.add_argument("--delay", type=int, default=0)
    args = parser.parse_args()
    if args.mode == "proxy":
        if not args.upstream:
            parser.error("proxy needs HOST:PORT")
        handler = Proxy(args.upstream, args.cut_at, args.stall_at, args.direction, args.delay)
    else:
        handler = {"silent": silent, "close": close, "garbage": garbage}[args.mode]
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
