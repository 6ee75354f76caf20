#!/usr/bin/env python3
"""The HMI side of sdl_core 8.2, as far as an HMI sees it, for testing sdl-run --hmi.

Listens on a WebSocket (127.0.0.1, a free port, printed as the first line), answers
MB.registerComponent with a component id and MB.subscribeTo with success, and after
BasicCommunication.OnReady asks UI.GetLanguage, announces an app (HMI app id 654, policy
app id "app-x") and shows two alerts at once. Answers SDL.ActivateApp. On SDL.UpdateSDL it plays
core's side of a policy table update: BasicCommunication.PolicyUpdate, and once the HMI has
said which file to send (BasicCommunication.OnSystemRequest), BasicCommunication.SystemRequest
with the file the app brought back. After Navigation.OnWayPointChange an app sends a location
and asks for the waypoints (Navigation.SendLocation, Navigation.GetWayPoints). After the first
BasicCommunication.OnAppActivated of a window (a widget the driver shows) the app makes another
widget and changes that one's template twice, once to the same (UI.CreateWindow, UI.Show).
Prints every message it receives as one JSON line on stdout. Uses Debian's python3-websockets.
"""
import asyncio
import json
import signal
import sys

import websockets


def emit(message):
    print(json.dumps(message), flush=True)


async def serve(ws, path=None):
    component = 500
    widgets_asked = False
    async for text in ws:
        message = json.loads(text)
        emit(message)
        method = message.get("method")
        if method == "MB.registerComponent":
            component += 1
            await ws.send(json.dumps({"id": message["id"], "jsonrpc": "2.0", "result": component}))
        elif method == "MB.subscribeTo":
            await ws.send(json.dumps({"id": message["id"], "jsonrpc": "2.0", "result": {"code": 0}}))
        elif method == "BasicCommunication.OnReady":
            await ws.send(json.dumps({"id": 7, "jsonrpc": "2.0", "method": "UI.GetLanguage"}))
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "BasicCommunication.OnAppRegistered",
                                      "params": {"application": {"appID": 654, "policyAppID": "app-x", "appName": "X"}}}))
            # An alert with a soft button (core sends duration 0 then), and a second one at once.
            await ws.send(json.dumps({"id": 8, "jsonrpc": "2.0", "method": "UI.Alert", "params": {
                "appID": 654, "duration": 0, "softButtons": [{"softButtonID": 1, "text": "Yes", "type": "TEXT"}]}}))
            await ws.send(json.dumps({"id": 9, "jsonrpc": "2.0", "method": "UI.Alert", "params": {"appID": 654, "duration": 3000}}))
        elif method == "SDL.UpdateSDL":
            await ws.send(json.dumps({"id": message["id"], "jsonrpc": "2.0", "result": {"code": 0, "method": method, "result": "UPDATING"}}))
            await ws.send(json.dumps({"id": 20, "jsonrpc": "2.0", "method": "BasicCommunication.PolicyUpdate", "params": {
                "file": "/tmp/fs/mp/images/ivsu_cache/sdl_snapshot.json", "timeout": 60, "retry": [1, 5, 25, 125, 625]}}))
        elif method == "BasicCommunication.OnSystemRequest":
            await ws.send(json.dumps({"id": 21, "jsonrpc": "2.0", "method": "BasicCommunication.SystemRequest", "params": {
                "requestType": "PROPRIETARY", "fileName": "/tmp/fs/mp/images/ivsu_cache/0SYNC", "appID": 654}}))
        elif method == "Navigation.OnWayPointChange":
            await ws.send(json.dumps({"id": 30, "jsonrpc": "2.0", "method": "Navigation.SendLocation", "params": {
                "appID": 654, "latitudeDegrees": 42.33, "longitudeDegrees": -83.05, "locationName": "Detroit"}}))
            await ws.send(json.dumps({"id": 31, "jsonrpc": "2.0", "method": "Navigation.GetWayPoints", "params": {
                "appID": 654, "wayPointType": "ALL"}}))
        elif method == "BasicCommunication.OnAppActivated" and "windowID" in message["params"] and not widgets_asked:
            widgets_asked = True
            await ws.send(json.dumps({"id": 40, "jsonrpc": "2.0", "method": "UI.CreateWindow", "params": {
                "appID": 654, "windowID": 2, "windowName": "Second", "type": "WIDGET"}}))
            for request_id in (41, 42):
                await ws.send(json.dumps({"id": request_id, "jsonrpc": "2.0", "method": "UI.Show", "params": {
                    "appID": 654, "windowID": 2, "showStrings": [], "templateConfiguration": {"template": "NON-MEDIA"}}}))
        elif method == "SDL.ActivateApp":
            await ws.send(json.dumps({"id": message["id"], "jsonrpc": "2.0",
                                      "result": {"code": 0, "method": "SDL.ActivateApp"}}))


async def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    async with websockets.serve(serve, "127.0.0.1", 0) as server:
        emit(server.sockets[0].getsockname()[1])
        await asyncio.Future()


asyncio.run(main())
