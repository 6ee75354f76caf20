#!/usr/bin/python3
"""Looks at `sdl-run console` on a terminal as a person would, through tmux: types half a
request, has the head unit's driver act meanwhile (an emulator's control channel), then
finishes the line. Prints the screen at both moments as JSON: {"typing": [...], "sent": [...]},
each a list of the screen's non-blank lines.

  tmux_console.py SOCKET CONTROL_HOST:PORT -- COMMAND [ARGS...]

tmux's server runs on SOCKET (a folder of the caller's) and is killed at the end; it gets no
pipe of the caller's, which it would hold open after this script ends."""
import json, shlex, socket, subprocess, sys, time

def main():
    tmux_socket, control = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1:]
    def tmux(*args, **kwargs):
        return subprocess.run(["tmux", "-S", tmux_socket, *args], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, **kwargs)
    def screen():
        return [line.rstrip() for line in tmux("capture-pane", "-p").stdout.splitlines() if line.strip()]
    def wait_for(condition, seconds=15):
        deadline = time.time() + seconds
        while time.time() < deadline:
            lines = screen()
            if condition(lines):
                return lines
            time.sleep(0.05)
        return screen()
    subprocess.run(["tmux", "-S", tmux_socket, "new-session", "-d", "-x", "160", "-y", "40", shlex.join(command)],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    try:
        wait_for(lambda lines: any(line.endswith("OnDriverDistraction") for line in lines) and lines[-1] == "sdl>")
        tmux("send-keys", "-l", "Show mainF")
        wait_for(lambda lines: lines[-1] == "sdl> Show mainF")
        host, port = control.rsplit(":", 1)
        with socket.create_connection((host, int(port))) as driver:
            driver.sendall(b'{"action": "activateApp"}\n')
            driver.recv(100)
        # The notification above, and the prompt with the half-typed line drawn again below it.
        typing = wait_for(lambda lines: any(line.endswith("OnHMIStatus FULL") for line in lines) and lines[-1] == "sdl> Show mainF")
        tmux("send-keys", "-l", "ield1=Typed")
        tmux("send-keys", "Enter")
        sent = wait_for(lambda lines: any("← Show #2" in line for line in lines))
        print(json.dumps({"typing": typing, "sent": sent}))
    finally:
        # The console leaves as a person makes it leave; the server goes with its last session.
        tmux("send-keys", "C-u", "quit", "Enter")
        deadline = time.time() + 5
        while time.time() < deadline and tmux("has-session").returncode == 0:
            time.sleep(0.05)
        tmux("kill-server")

if __name__ == "__main__":
    main()
