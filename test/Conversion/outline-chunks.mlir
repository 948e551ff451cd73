// RUN: mpt-opt %s --split-input-file --verify-diagnostics \
// RUN:   --mpt-outline-chunks=max-ops=3 | FileCheck %s

// Runs of at most 3 ops (nested ops counted) become private noinline,
// internal functions, called in order. A chunk takes what it uses from
// before it as arguments (the function's own arguments, earlier chunks'
// results) and returns what later ops use; constants are cloned into it.
// The stack allocation stays in @f between chunks, and the loop (3 ops with
// its body) is a chunk of its own.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[N:.*]]: index)
// CHECK-NEXT:    %[[C0:.*]]:2 = call @f_chunk0(%[[A]]) : (memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
// CHECK-NEXT:    call @f_chunk1(%[[C0]]#1, %[[N]])
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = call @f_chunk2(%[[C0]]#1, %[[S]])
// CHECK-NEXT:    call @f_chunk3(%[[S]], %[[Z]], %[[C0]]#0)
// CHECK-NEXT:    return %[[Z]]

// CHECK-LABEL: func.func private @f_chunk0(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
// CHECK-SAME:      attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline", "mpt-chunk"]}
// CHECK-NEXT:    %[[X:.*]] = memref.alloc()
// CHECK-NEXT:    memref.copy %[[A]], %[[X]]
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc()
// CHECK-NEXT:    return %[[X]], %[[Y]]

// CHECK-LABEL: func.func private @f_chunk1(
// CHECK-SAME:      %[[Y:.*]]: memref<4xf32>, %[[N:.*]]: index)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         scf.for %[[I:.*]] = %[[ZERO]] to %[[N]] step %[[N]] {
// CHECK-NEXT:      memref.store %[[ONE]], %[[Y]][%[[I]]]
// CHECK:         return{{$}}

// CHECK-LABEL: func.func private @f_chunk2(
// CHECK-SAME:      %[[Y:.*]]: memref<4xf32>, %[[S:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT:    memref.copy %[[Y]], %[[S]]
// CHECK-NEXT:    memref.dealloc %[[Y]]
// CHECK-NEXT:    %[[Z:.*]] = memref.alloc()
// CHECK-NEXT:    return %[[Z]]

// CHECK-LABEL: func.func private @f_chunk3(
// CHECK-NEXT:    memref.copy
// CHECK-NEXT:    memref.copy
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    return{{$}}
func.func @f(%a: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %x = memref.alloc() : memref<4xf32>
  memref.copy %a, %x : memref<4xf32> to memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %n step %n {
    memref.store %one, %y[%i] : memref<4xf32>
  }
  %s = memref.alloca() : memref<4xf32>
  memref.copy %y, %s : memref<4xf32> to memref<4xf32>
  memref.dealloc %y : memref<4xf32>
  %z = memref.alloc() : memref<4xf32>
  memref.copy %s, %z : memref<4xf32> to memref<4xf32>
  memref.copy %x, %z : memref<4xf32> to memref<4xf32>
  memref.dealloc %x : memref<4xf32>
  return %z : memref<4xf32>
}

// -----

// Functions of at most max-ops ops, declarations and functions of more than
// one block are left alone. A loop that allocates on the stack outside an
// allocation scope stays in its function (its buffer would be freed when a
// chunk returned); the ops around it are chunked.

// CHECK-LABEL: func.func @small(
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    memref.copy
// CHECK-NEXT:    return
func.func @small(%a: memref<4xf32>) -> memref<4xf32> {
  %x = memref.alloc() : memref<4xf32>
  memref.copy %a, %x : memref<4xf32> to memref<4xf32>
  return %x : memref<4xf32>
}

// CHECK-LABEL: func.func private @external(
func.func private @external(memref<4xf32>)

// CHECK-LABEL: func.func @blocks(
// CHECK-NOT:     call
// CHECK:         cf.br
func.func @blocks(%a: memref<4xf32>) {
  %x = memref.alloc() : memref<4xf32>
  memref.copy %a, %x : memref<4xf32> to memref<4xf32>
  cf.br ^next
^next:
  memref.copy %a, %x : memref<4xf32> to memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  memref.dealloc %x : memref<4xf32>
  return
}

// CHECK-LABEL: func.func @stack_in_loop(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[N:.*]]: index)
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[X:.*]] = call @stack_in_loop_chunk0(%[[A]])
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      memref.alloca
// CHECK:         call @stack_in_loop_chunk1(%[[X]], %[[A]])
// CHECK-NEXT:    return
func.func @stack_in_loop(%a: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<4xf32>
  memref.copy %a, %x : memref<4xf32> to memref<4xf32>
  scf.for %i = %c0 to %n step %n {
    %s = memref.alloca() : memref<4xf32>
    memref.copy %x, %s : memref<4xf32> to memref<4xf32>
  }
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  memref.dealloc %x : memref<4xf32>
  return
}
