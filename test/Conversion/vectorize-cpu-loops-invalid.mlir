// RUN: mpt-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops{lanes=12}))"
// RUN: not mpt-opt %s --mpt-lower-to-cpu="vectorize=1 vector-lanes=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE

// The transposes and row reductions halve lanes x lanes squares: a vector
// length that is not a power of two is an error, located at the function.

// expected-error @+1 {{mpt-vectorize-cpu-loops: lanes must be a power of two from 2 to 64, got 12}}
func.func @scale(%m: memref<16xf32>, %s: f32) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%m : memref<16xf32>) {
  ^bb0(%x: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  }
  return
}

// PIPELINE: error: mpt-vectorize-cpu-loops: lanes must be a power of two from 2 to 64, got 1
