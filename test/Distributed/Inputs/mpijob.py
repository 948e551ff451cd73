#!/usr/bin/env python3
"""Runs an MPI job for the lit tests with a time limit, so that a hang fails
the test instead of stalling the suite:

  mpijob.py [--timeout S] [--expect-exit N | --expect-failure] -- COMMAND...

Without --expect-exit it exits with COMMAND's status. With it, it exits 0
when COMMAND exited with status N, 1 otherwise; --expect-failure accepts
any status but 0 (a launcher reports a rank killed by a signal with a
status of its own). A job still running after S
seconds (default 120) is killed with its process group and the test fails
(exit 1, 'mpijob.py: timeout'), whatever --expect-exit says: `not` cannot
tell a hang from an error, this can."""
import argparse
import os
import signal
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--expect-exit", type=int)
    p.add_argument("--expect-failure", action="store_true")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    proc = subprocess.Popen(command, start_new_session=True)
    try:
        rc = proc.wait(timeout=a.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        print("mpijob.py: timeout: %s still running after %g s"
              % (command[0], a.timeout), file=sys.stderr)
        sys.exit(1)
    if a.expect_failure:
        if rc == 0:
            print("mpijob.py: %s exited with 0, expected a failure" % command[0],
                  file=sys.stderr)
        sys.exit(0 if rc != 0 else 1)
    if a.expect_exit is None:
        sys.exit(rc)
    if rc != a.expect_exit:
        print("mpijob.py: %s exited with %d, expected %d"
              % (command[0], rc, a.expect_exit), file=sys.stderr)
        sys.exit(1)
    sys.exit(0)


if __name__ == "__main__":
    main()
