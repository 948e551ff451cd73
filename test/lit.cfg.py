# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mpt_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mpt_src", config.mpt_src_root))
config.substitutions.append(("%mpt_build", config.mpt_obj_root))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
# The runtime libraries mlir-runner needs for printing and memref helpers.
config.substitutions.append(("%mlir_runner_libs", ",".join(
    os.path.join(config.mlir_lib_dir, lib)
    for lib in ["libmlir_runner_utils.so", "libmlir_c_runner_utils.so"])))

# The OpenMP runtime that steps lowered with parallel loops call (libomp).
if config.mpt_openmp_runtime:
    config.available_features.add("openmp")
    config.substitutions.append(("%omp_runtime", config.mpt_openmp_runtime))

# Loaded by mlir-runner to run AMX code: it requests the AMX tile state.
config.substitutions.append(("%mpt_amx_runtime", os.path.join(
    config.mpt_lib_dir, "libmpt_amx_runtime.so")))
# Tests that execute AMX instructions need a CPU with AMX.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        cpu_flags = set(next((l for l in cpuinfo if l.startswith("flags")),
                             "").split())
except OSError:
    cpu_flags = set()
if {"amx_tile", "amx_bf16"} <= cpu_flags:
    config.available_features.add("amx")
if "avx512_bf16" in cpu_flags:
    config.available_features.add("avx512bf16")
# mpt-run's avx2 path needs FMA and F16C too.
if {"avx2", "fma", "f16c"} <= cpu_flags:
    config.available_features.add("avx2")
# `lit --param cpu_path=generic` (or avx512) runs every mpt-run that does not
# name its path on that one (MPT_CPU_PATH), as on a CPU without AMX or
# AVX-512. Tests that expect mpt-run's own choice on this machine (which
# kernels a step got) require `cpu-path-auto`; the kernel tests that run
# AMX or AVX-512 code through mlir-runner still run where the CPU has it.
cpu_path = lit_config.params.get("cpu_path", "auto")
config.environment["MPT_CPU_PATH"] = cpu_path
if cpu_path == "auto":
    config.available_features.add("cpu-path-auto")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# mpt-run's object cache (docs/CompileTime.md) in the build tree, not the
# user's ~/.cache: tests share it within and across runs, as users do.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root,
                                                    "xdg-cache")

# Sanitizer builds (-DMPT_SANITIZE): every report fails its test.
config.substitutions.append(("%mpt_sanitize_flags",
                             getattr(config, "mpt_sanitize_flags", "")))
if getattr(config, "mpt_sanitize_flags", ""):
    config.available_features.add("sanitizer")
    # intercept_tls_get_addr=0: GCC 12's LeakSanitizer guesses the bounds of
    # a thread's dynamic TLS block (libomp's, loaded for the JIT) from its
    # address (google/sanitizers#1322); when the guess is wrong it scans a
    # garbage range and dies ("Tracer caught signal 11"). Without the
    # interception LSan does not scan dynamic TLS: that can only add leak
    # reports, never hide one.
    config.environment["ASAN_OPTIONS"] = (
        "abort_on_error=0:halt_on_error=1:detect_leaks=1:"
        "intercept_tls_get_addr=0")
    # MPICH's MPI_Init has hwloc load its PCI plugin, whose libpciaccess
    # keeps 1016 bytes it never frees; hwloc unloads the plugin, so LSan
    # reports them from an unknown module and a suppressions file cannot
    # match them. PCI discovery is of no use to the shared-memory jobs of
    # test/Distributed.
    config.environment["HWLOC_COMPONENTS"] = "-pci"
    config.environment["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"

llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.mpt_tools_dir, config.llvm_tools_dir]
tools = ["mpt-opt", "mpt-run", "mlir-opt", "mlir-runner", "FileCheck", "not", "count"]
# mpt-fuzz is built with -DMPT_BUILD_FUZZER=ON.
if os.path.exists(os.path.join(config.mpt_tools_dir, "mpt-fuzz")):
    config.available_features.add("mpt-fuzz")
    tools.append("mpt-fuzz")
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The project's Python (the venv made by scripts/setup-python.sh), with a
# `torch` feature when the frontend's packages import.
venv_python = os.path.join(config.mpt_src_root, ".venv", "bin", "python")
python = venv_python if os.path.exists(venv_python) else shutil.which("python3")
# lit's default substitutions already define %python (the interpreter lit
# runs under) and the first definition wins: replace it.
config.substitutions = [s for s in config.substitutions if s[0] != "%python"]
config.substitutions.append(("%python", python))
def python_imports(modules):
    try:
        subprocess.run([python, "-c", "import " + ", ".join(modules)],
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        return True
    except Exception:
        return False


for feature, modules in [("torch", ["torch", "torch_mlir"]),
                         ("numpy", ["numpy"]),
                         ("matplotlib", ["matplotlib"]),
                         # optional (python/requirements-zoo.txt): the zoo's HF models
                         ("transformers", ["torch", "transformers"])]:
    if python_imports(modules):
        config.available_features.add(feature)

# CUDA's ptxas assembles the Tensor Core kernels; tests that need it are
# reported as unsupported where it is missing.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas")
    else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# MPICH runs the data-parallel tests (test/Distributed): an `mpi` feature
# when its launcher and library are there. Jobs run through mpijob.py, which
# kills a job that outlives its time limit, so that a hang fails the test.
mpiexec = shutil.which("mpiexec.mpich")
def mpich_loads():
    try:
        import ctypes
        ctypes.CDLL("libmpich.so.12")
        return True
    except OSError:
        return False
if mpiexec and mpich_loads():
    config.available_features.add("mpi")
    mpijob = os.path.join(config.mpt_src_root, "test", "Distributed", "Inputs",
                          "mpijob.py")
    config.substitutions.append(
        ("%mpifail", "%s %s --timeout 120 --expect-exit 1 -- %s"
         % (python, mpijob, mpiexec)))
    config.substitutions.append(
        ("%mpirun", "%s %s --timeout 300 -- %s" % (python, mpijob, mpiexec)))
