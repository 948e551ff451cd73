// --mpt-cast-cleanup: round trips, duplicates and dead casts; nothing else.
// RUN: mpt-opt %s --mpt-cast-cleanup | FileCheck %s
// RUN: mpt-opt %s --mpt-cast-cleanup -o %t.once.mlir
// RUN: mpt-opt %t.once.mlir --mpt-cast-cleanup -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// truncf(extf(x)) is x; extf(truncf(y)) rounds, so it stays.
// CHECK-LABEL: func.func @round_trips
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[Y]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[T]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: return %[[X]], %[[E]] : tensor<4xf16>, tensor<4xf32>
func.func @round_trips(%x: tensor<4xf16>, %y: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf32>) {
  %e = arith.extf %x : tensor<4xf16> to tensor<4xf32>
  %t = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
  %t2 = arith.truncf %y : tensor<4xf32> to tensor<4xf16>
  %e2 = arith.extf %t2 : tensor<4xf16> to tensor<4xf32>
  return %t, %e2 : tensor<4xf16>, tensor<4xf32>
}

// Two casts of one value to one type become one, right after the producer;
// unused casts go; the unused addf (not a cast) stays.
// CHECK-LABEL: func.func @duplicates
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[A]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[T]] : tensor<4xf16>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[T]], %[[N]] : tensor<4xf16>
// CHECK-NEXT: return %[[M]] : tensor<4xf16>
func.func @duplicates(%x: tensor<4xf32>) -> tensor<4xf16> {
  %a = arith.addf %x, %x : tensor<4xf32>
  %dead = arith.addf %x, %x : tensor<4xf32>
  %t1 = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %n = arith.negf %t1 : tensor<4xf16>
  %t2 = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
  %unused = arith.extf %n : tensor<4xf16> to tensor<4xf32>
  %m = arith.mulf %t2, %n : tensor<4xf16>
  return %m : tensor<4xf16>
}
