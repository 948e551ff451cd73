// mpt's pipelines run on builtin.module: named inside a function's pipeline
// they are one pipeline error and a failing exit, not upstream's abort when
// the first module pass is added.
// RUN: not mpt-opt %s --pass-pipeline='builtin.module(func.func(mpt-mixed-precision))' 2>&1 | FileCheck %s --check-prefix=MP
// RUN: not mpt-opt %s --pass-pipeline='builtin.module(func.func(mpt-lower-to-cpu))' 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not mpt-opt %s --pass-pipeline='builtin.module(func.func(mpt-gpu-codegen))' 2>&1 | FileCheck %s --check-prefix=GPU
// At the module, where they belong, they run.
// RUN: mpt-opt %s --pass-pipeline='builtin.module(mpt-mixed-precision{dtype=bf16})' | FileCheck %s --check-prefix=OK

// MP: error: 'mpt-mixed-precision' runs on 'builtin.module': it cannot be nested in 'func.func'
// MP-NOT: LLVM ERROR
// CPU: error: 'mpt-lower-to-cpu' runs on 'builtin.module': it cannot be nested in 'func.func'
// CPU-NOT: LLVM ERROR
// GPU: error: 'mpt-gpu-codegen' runs on 'builtin.module': it cannot be nested in 'func.func'
// GPU-NOT: LLVM ERROR

// OK-LABEL: func.func @step
// OK: return
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
