#!/usr/bin/env python3
"""Records what sdl_core and its HMI say to each other, for Tests/Fixtures/core-hmi/.

    hmi_recorder.py LISTEN_PORT ws://127.0.0.1:8087 OUT.jsonl

A WebSocket proxy: point `sdl-run --hmi ws://127.0.0.1:LISTEN_PORT` at it and it relays
every message to core and back, writing one JSON line per message:
{"from": "hmi"|"core", "message": {...}}. Uses Debian's python3-websockets.
"""
import asyncio
import json
import signal
import sys

import websockets

port, core_url, out_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
out = open(out_path, "w")


def record(side, text):
    out.write(json.dumps({"from": side, "message": json.loads(text)}, sort_keys=True) + "\n")
    out.flush()


async def relay(hmi, path=None):
    async with websockets.connect(core_url, max_size=None) as core:
        async def pump(source, sink, side):
            async for text in source:
                record(side, text)
                await sink.send(text)
        tasks = [asyncio.create_task(pump(hmi, core, "hmi")), asyncio.create_task(pump(core, hmi, "core"))]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()


async def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    async with websockets.serve(relay, "127.0.0.1", port, max_size=None):
        print(port, flush=True)
        await asyncio.Future()


asyncio.run(main())
