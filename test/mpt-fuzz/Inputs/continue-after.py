"""continue-after.py SECONDS COMMAND...: runs COMMAND, which stops itself
(SIGSTOP); continues it SECONDS after it stopped and exits with its status."""
import signal
import subprocess
import sys
import time

seconds = float(sys.argv[1])
proc = subprocess.Popen(sys.argv[2:])


def state():
    try:
        with open(f"/proc/{proc.pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


while proc.poll() is None and state() != "T":
    time.sleep(0.05)
if proc.poll() is None:
    time.sleep(seconds)
    print(f"stopped, continued after {seconds:g} s", flush=True)
    proc.send_signal(signal.SIGCONT)
sys.exit(proc.wait())
