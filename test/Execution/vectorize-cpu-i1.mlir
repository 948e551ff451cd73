// --mpt-vectorize-cpu-loops leaves ops that read or write an i1 buffer as
// loops: memory holds a byte per i1 element, but LLVM loads a vector<16xi1>
// as 16 packed bits, so a vectorized read of a mask kept in memory (an
// imported GPT block's one-hot targets, kept for the backward) returned the
// wrong mask and the bf16 step's loss came out near 4300 instead of 2.9.
// The mask here is 1 at multiples of 3 (37 elements: a ragged length), and
// the converted values must be exactly that.
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s --check-prefix=IR

// CHECK: [1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1,  0,  0,  1]
// IR-LABEL: func.func @mask_to_float
// IR-NOT: vector.transfer_read
// IR: linalg.generic

#id = affine_map<(i) -> (i)>

func.func private @printMemrefF32(memref<*xf32>)

func.func @mask_to_float(%m: memref<37xi1>, %f: memref<37xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%m : memref<37xi1>) outs(%f : memref<37xf32>) {
  ^bb0(%b: i1, %o: f32):
    %v = arith.uitofp %b : i1 to f32
    linalg.yield %v : f32
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c37 = arith.constant 37 : index
  %m = memref.alloc() : memref<37xi1>
  scf.for %i = %c0 to %c37 step %c1 {
    %r = arith.remui %i, %c3 : index
    %b = arith.cmpi eq, %r, %c0 : index
    memref.store %b, %m[%i] : memref<37xi1>
  }
  %f = memref.alloc() : memref<37xf32>
  call @mask_to_float(%m, %f) : (memref<37xi1>, memref<37xf32>) -> ()
  %u = memref.cast %f : memref<37xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
