// RUN: mpt-opt %s --split-input-file --mpt-estimate-work | FileCheck %s
// Idempotent: a second run replaces the estimate, not appends one.
// RUN: mpt-opt %s --split-input-file --mpt-estimate-work --mpt-estimate-work | FileCheck %s

// @step runs once (nothing calls it): 3 constants, a call, and a call in a
// loop of 4: 8. @scale runs 1 + 4 = 5 times, each 4 constants and 3 ops in
// a loop of 8 (28): 140. @dynamic's loop has unknown bounds (one iteration
// counted): 2 ops. The declaration has no body to estimate.

// CHECK-LABEL: func.func @step(
// CHECK-SAME:      attributes {passthrough = {{\[}}["mpt-work", "8"]]}
// CHECK-LABEL: func.func private @scale(
// CHECK-SAME:      attributes {passthrough = ["noinline", ["mpt-work", "140"]]}
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      attributes {passthrough = {{\[}}["mpt-work", "2"]]}
// CHECK-LABEL: func.func private @external(
// CHECK-NOT:       passthrough
func.func @step(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  call @scale(%m) : (memref<8xf32>) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    func.call @scale(%m) : (memref<8xf32>) -> ()
  }
  return
}
func.func private @scale(%m: memref<8xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %m[%i] : memref<8xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %m[%i] : memref<8xf32>
  }
  return
}
func.func @dynamic(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %n {
    func.call @external(%m) : (memref<?xf32>) -> ()
  }
  return
}
func.func private @external(memref<?xf32>)

// -----

// Nested constant loops multiply (2 x 3 iterations of a vector op), as do
// the dimensions of an scf.parallel (4 x 2 of one store); with 6 constants:
// 20. The LLVM dialect's functions are estimated too.

// CHECK-LABEL: llvm.func @nested(
// CHECK-SAME:      passthrough = {{\[}}["mpt-work", "20"]]
llvm.func @nested(%v: vector<16xf32>, %p: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %w = arith.addf %v, %v : vector<16xf32>
    }
  }
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c2) step (%c1, %c1) {
    llvm.store %zero, %p : f32, !llvm.ptr
  }
  llvm.return
}
