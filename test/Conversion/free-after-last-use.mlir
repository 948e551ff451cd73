// RUN: mpt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mpt-free-after-last-use))' | FileCheck %s
// Upstream's optimize-allocation-liveness, which this pass replaces (it is
// quadratic in the block), moves the same frees to the same places:
// RUN: mpt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(optimize-allocation-liveness))' | FileCheck %s

// Each free moves right after the last op of its block that uses the buffer
// or a view of it (here a use nested in an scf.if).

// CHECK-LABEL: func.func @after_last_use(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         call @use(%[[A]])
// CHECK:         %[[V:.*]] = memref.subview %[[B]]
// CHECK:         scf.if
// CHECK-NEXT:      func.call @use_view(%[[V]])
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    call @use(%[[A]])
// CHECK-NEXT:    call @use(%[[A]])
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    return
func.func private @use(memref<4xf32>)
func.func private @use_view(memref<2xf32, strided<[1], offset: 1>>)
func.func @after_last_use(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  func.call @use(%a) : (memref<4xf32>) -> ()
  %v = memref.subview %b[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  scf.if %c {
    func.call @use_view(%v) : (memref<2xf32, strided<[1], offset: 1>>) -> ()
  }
  func.call @use(%a) : (memref<4xf32>) -> ()
  func.call @use(%a) : (memref<4xf32>) -> ()
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A buffer freed on two paths, or in another block than its allocation,
// keeps its frees where they are.

// CHECK-LABEL: func.func @freed_in_branches(
// CHECK:         call @use
// CHECK-NEXT:    call @use
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      memref.dealloc
// CHECK-NEXT:    } else {
// CHECK-NEXT:      memref.dealloc
func.func private @use(memref<4xf32>)
func.func @freed_in_branches(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  func.call @use(%a) : (memref<4xf32>) -> ()
  func.call @use(%a) : (memref<4xf32>) -> ()
  scf.if %c {
    memref.dealloc %a : memref<4xf32>
  } else {
    memref.dealloc %a : memref<4xf32>
  }
  return
}

// CHECK-LABEL: func.func @free_in_other_block(
// CHECK:         call @use
// CHECK-NEXT:    call @use
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      memref.dealloc
func.func @free_in_other_block(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  func.call @use(%a) : (memref<4xf32>) -> ()
  func.call @use(%a) : (memref<4xf32>) -> ()
  scf.if %c {
    memref.dealloc %a : memref<4xf32>
  }
  return
}
