#!/usr/bin/python3
"""Runs a command on a pseudo-terminal and types at it, as a person at a terminal would:
line editing and completion work only on a terminal, so a pipe cannot test them.

  pty_session.py KEYS -- COMMAND [ARGS...]

KEYS is typed after the first output arrives, with \\t for Tab, \\r for Enter and \\x04
for Ctrl-D (Python string escapes); then everything the command wrote is printed."""
import os, pty, select, sys, time

def main():
    keys = sys.argv[1].encode().decode("unicode_escape").encode()
    command = sys.argv[sys.argv.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    output = b""
    def read_for(seconds):
        nonlocal output
        deadline = time.time() + seconds
        while time.time() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return False
                if not chunk:
                    return False
                output += chunk
        return True
    # Wait for the prompt, then type one key at a time, as a person does.
    while b"sdl> " not in output and read_for(0.1) and len(output) < 1_000_000:
        if time.time() > start + 30:
            break
    for key in keys:
        os.write(fd, bytes([key]))
        read_for(0.05)
    read_for(1.0)
    try:
        os.kill(pid, 15)
    except ProcessLookupError:
        pass
    sys.stdout.write(output.decode(errors="replace"))

start = time.time()
if __name__ == "__main__":
    main()
