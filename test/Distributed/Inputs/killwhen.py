#!/usr/bin/env python3
"""Runs COMMAND as this process and kills it with SIGKILL once FILE has
LINES lines, for the lit tests' rank that dies in the middle of a run:

  killwhen.py FILE LINES -- COMMAND...

A watcher process polls FILE (rank 0's --log, which mpt-run writes and
flushes a line a step, after its header) every 20 ms; this process then becomes
COMMAND (exec: same pid, the one the MPI launcher started), so the kill is
the death of the rank itself. The watcher gives up after 120 s."""
import os
import signal
import sys
import time


def main():
    path, lines, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    if command[:1] == ["--"]:
        command = command[1:]
    target = os.getpid()
    if os.fork() == 0:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if os.path.exists(path):
                with open(path) as f:
                    if sum(1 for _ in f) >= lines:
                        os.kill(target, signal.SIGKILL)
                        break
            time.sleep(0.02)
        os._exit(0)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
