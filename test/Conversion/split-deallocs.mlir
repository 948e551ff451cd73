// RUN: mpt-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mpt-split-deallocs))' | FileCheck %s

// Buffers that come only from allocations and share none with another
// operand get their own dealloc without a retain list; the retained buffer
// stays in the original dealloc, whose result is unchanged.

// CHECK-LABEL: func.func @independent(
// CHECK-SAME:      %{{.*}}: memref<4xf32>, %[[C:.*]]: i1)
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[V:.*]] = memref.subview
// CHECK:         %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[TRUE]]){{$}}
// CHECK-NEXT:    bufferization.dealloc (%[[V]] : {{.*}}) if (%[[C]]){{$}}
// CHECK-NEXT:    %[[D:.*]] = bufferization.dealloc (%[[R]] : memref<4xf32>) if (%[[TRUE]]) retain (%[[R]] : memref<4xf32>)
// CHECK-NEXT:    return %[[R]], %[[D]]
func.func @independent(%arg: memref<4xf32>, %c: i1) -> (memref<4xf32>, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %v = memref.subview %b[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %r = memref.alloc() : memref<4xf32>
  %true = arith.constant true
  %0 = bufferization.dealloc (%a, %v, %r : memref<4xf32>, memref<4xf32, strided<[1], offset: 2>>, memref<4xf32>) if (%true, %c, %true) retain (%r : memref<4xf32>)
  return %r, %0 : memref<4xf32>, i1
}

// -----

// Two operands of one allocation (the buffer and a view of it) stay together.

// CHECK-LABEL: func.func @same_allocation(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[V:.*]] = memref.subview %[[A]]
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    bufferization.dealloc (%[[B]] : memref<4xf32>)
// CHECK-NEXT:    bufferization.dealloc (%[[A]], %[[V]] :
func.func @same_allocation(%c: i1) {
  %a = memref.alloc() : memref<8xf32>
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %b = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %v, %b : memref<8xf32>, memref<4xf32, strided<[1], offset: 2>>, memref<4xf32>) if (%c, %c, %c)
  return
}

// -----

// A function argument is distinct from every allocation of the function but
// may be any other argument: the allocation is split off, the argument stays.

// CHECK-LABEL: func.func @argument(
// CHECK-SAME:      %[[ARG:.*]]: memref<4xf32>, %[[C:.*]]: i1)
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    bufferization.dealloc (%[[B]] : memref<4xf32>) if (%[[C]]){{$}}
// CHECK-NEXT:    bufferization.dealloc (%[[ARG]] : memref<4xf32>) if (%[[C]]){{$}}
func.func @argument(%arg: memref<4xf32>, %c: i1) {
  %b = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%arg, %b : memref<4xf32>, memref<4xf32>) if (%c, %c)
  return
}

// -----

// A buffer of unknown origin (a call's result) may be any allocation:
// nothing is split.

// CHECK-LABEL: func.func @unknown_origin(
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>)
func.func private @make() -> memref<4xf32>
func.func @unknown_origin(%c: i1) {
  %m = func.call @make() : () -> memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%m, %b : memref<4xf32>, memref<4xf32>) if (%c, %c)
  return
}

// -----

// A buffer that may be the retained one stays with it.

// CHECK-LABEL: func.func @retained_alias(
// CHECK-NOT:     bufferization.dealloc (%{{[^,]*}} : memref<4xf32>)
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if ({{.*}}) retain (
func.func @retained_alias(%c: i1) -> (memref<4xf32>, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %s = arith.select %c, %a, %b : memref<4xf32>
  %0 = bufferization.dealloc (%a, %b : memref<4xf32>, memref<4xf32>) if (%c, %c) retain (%s : memref<4xf32>)
  return %s, %0 : memref<4xf32>, i1
}
