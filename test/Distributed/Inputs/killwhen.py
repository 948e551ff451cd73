#!/usr/bin/env python3
"""Runs COMMAND as this process and kills it with SIGKILL once FILE is not
empty, for the lit tests' rank that dies in the middle of a run:

  killwhen.py FILE -- COMMAND...

A watcher process polls FILE (rank 0's --log, which mpt-run writes as the
steps run, in blocks of its buffer) every 50 ms; this process then becomes
COMMAND (exec: same pid, the one the MPI launcher started), so the kill is
the death of the rank itself. The watcher gives up after 120 s."""
import os
import signal
import sys
import time


def main():
    path, command = sys.argv[1], sys.argv[2:]
    if command[:1] == ["--"]:
        command = command[1:]
    target = os.getpid()
    if os.fork() == 0:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if os.path.exists(path) and os.path.getsize(path) > 0:
                os.kill(target, signal.SIGKILL)
                break
            time.sleep(0.05)
        os._exit(0)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
