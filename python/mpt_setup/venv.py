"""Runs a frontend script under the project's venv (<repo>/.venv, made by
scripts/setup-python.sh) when the interpreter running it cannot import
torch-mlir: shared by tools/mpt-import-torch and bench/peer. Standard
library only, so it works from any python3."""
import importlib.util
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_PY = os.path.join(REPO, ".venv", "bin", "python")


def ensure_venv(script, tool, exit_code=1):
    """Returns when torch-mlir imports; else re-executes `script` (with the
    same arguments) under the venv's python, once, or exits with one error
    line naming `tool`."""
    if importlib.util.find_spec("torch_mlir") is not None:
        return
    guard = "MPT_REEXEC_" + re.sub(r"\W", "_", tool).upper()
    if os.path.exists(VENV_PY) and os.environ.get(guard) != "1":
        os.environ[guard] = "1"
        os.execv(VENV_PY, [VENV_PY, os.path.realpath(script)] + sys.argv[1:])
    print(f"{tool}: error: torch/torch-mlir not installed; run scripts/setup-python.sh",
          file=sys.stderr)
    sys.exit(exit_code)
