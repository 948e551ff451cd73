// RUN: mpt-opt %s --pass-pipeline='builtin.module(func.func(mpt-split-entry-block))' | FileCheck %s

// The body moves to a second block; the entry block keeps the arguments and
// a branch. Declarations are left alone.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:.*]]: i32)
// CHECK-NEXT:    cf.br ^[[BODY:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[A]], %[[A]] : i32
// CHECK-NEXT:    return %[[S]] : i32
func.func @f(%a: i32) -> i32 {
  %s = arith.addi %a, %a : i32
  return %s : i32
}

// CHECK: func.func private @g()
func.func private @g()
