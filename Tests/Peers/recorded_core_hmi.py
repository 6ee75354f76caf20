#!/usr/bin/env python3
"""sdl_core's side of the HMI WebSocket, played back from a recording of a real core 8.2.

    recorded_core_hmi.py RECORDING.jsonl

Listens on 127.0.0.1 (a free port, printed as the first line). For one client it walks
the recording (made by hmi_recorder.py): core's messages are sent as recorded (its
answers to the HMI's requests carry the ids the client used), and each HMI message is
awaited and checked against the recorded one: the same method and parameters for a request
or notification, the same request id, result code and result names for an answer. Messages may
arrive a few places out of recorded order. Before it waits for the client, it prints
{"waiting": INDEX, "messages": [...]}: the recorded HMI messages from there to core's next
message, so a test can perform the driver step that makes them (an HMI sends SDL.ActivateApp
or Buttons.OnButtonEvent because a person did something). Prints one JSON line per check, then a last line
{"replayed": N, "checked": M, "mismatches": [...]}; exits when the recording ends or a
recorded HMI message does not come within 10 s. Uses Debian's python3-websockets.
"""
import asyncio
import json
import signal
import sys

import websockets

recording = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
done = asyncio.Event()


def emit(value):
    print(json.dumps(value, sort_keys=True), flush=True)


def code(message):
    if "error" in message:
        return message["error"].get("code")
    result = message.get("result")
    return result.get("code") if isinstance(result, dict) else None


def same(recorded, live, ids):
    """Whether `live` is what the HMI said in `recorded` (ids: recorded HMI request id -> live one)."""
    if "method" in recorded:
        return (live.get("method") == recorded["method"] and ("id" in live) == ("id" in recorded)
                and live.get("params", {}) == recorded.get("params", {}))
    result = lambda message: sorted(message.get("result", {})) if isinstance(message.get("result"), dict) else None
    return ("method" not in live and live.get("id") == recorded.get("id") and code(live) == code(recorded)
            and result(live) == result(recorded))


async def serve(ws, path=None):
    ids, waiting, mismatches, checked = {}, [], [], 0
    for index, entry in enumerate(recording):
        message = dict(entry["message"])
        if entry["from"] == "core":
            if "method" not in message and message.get("id") in ids:
                message["id"] = ids[message["id"]]
            await ws.send(json.dumps(message))
            continue
        while not any(same(message, live, ids) for live in waiting):
            batch = []
            for later in recording[index:]:
                if later["from"] != "hmi":
                    break
                batch.append(later["message"])
            emit({"waiting": index, "messages": batch})
            try:
                waiting.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            except (asyncio.TimeoutError, websockets.ConnectionClosed):
                mismatches.append({"expected": message, "unmatched": waiting})
                emit({"replayed": index, "checked": checked, "mismatches": mismatches})
                done.set()
                return
        live = next(live for live in waiting if same(message, live, ids))
        waiting.remove(live)
        if "method" in message and "id" in message:
            ids[message["id"]] = live["id"]
        checked += 1
        emit({"checked": message.get("method") or "answer %s" % message.get("id")})
    emit({"replayed": len(recording), "checked": checked, "mismatches": mismatches})
    done.set()


async def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    async with websockets.serve(serve, "127.0.0.1", 0, max_size=None) as server:
        emit(server.sockets[0].getsockname()[1])
        await done.wait()


asyncio.run(main())
