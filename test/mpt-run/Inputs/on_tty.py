"""Runs a command with its stderr on a pseudo-terminal (stdout to /dev/null)
and prints what the terminal showed, carriage returns as newlines."""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
shown = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: the terminal's last writer is gone
        break
    if not chunk:
        break
    shown += chunk
sys.stdout.write(shown.decode(errors="replace").replace("\r", "\n"))
sys.exit(proc.wait())
