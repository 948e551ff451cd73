// The generic path (scalar loops, bf16 casts expanded into integer ops by
// --mpt-expand-bf16-casts) keeps IEEE 754-2019 maximum/minimum: max(-0, +0)
// is +0 and min(+0, -0) is -0, whatever the operand order, and a NaN
// operand gives NaN; as on the vectorized paths (llvm.maximum / minimum).
// Upstream's --arith-expand, which the generic path ran before, turned
// maximumf into a compare and a select and gave -0 for max(-0, +0). The
// bits are printed (0 = +0, -2147483648 = -0), so the sign is checked.
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// The bf16 casts are still expanded, and nothing else is:
// RUN: mpt-opt %s --mpt-lower-to-cpu --mlir-print-ir-after=mpt-expand-bf16-casts \
// RUN:   --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @extremes
// IR: arith.maximumf
// IR: arith.minimumf
// IR-NOT: arith.truncf {{.*}} to bf16
// IR-LABEL: func.func @main

// CHECK: 0
// CHECK-NEXT: 0
// CHECK-NEXT: -2147483648
// CHECK-NEXT: -2147483648
// CHECK-NEXT: nan
// The bf16 round trip of -0 keeps its sign (bits of the f32 result).
// CHECK-NEXT: -2147483648

func.func @extremes(%a: f32, %b: f32) -> (f32, f32, f32, f32, f32, bf16) {
  %max1 = arith.maximumf %a, %b : f32
  %max2 = arith.maximumf %b, %a : f32
  %min1 = arith.minimumf %a, %b : f32
  %min2 = arith.minimumf %b, %a : f32
  %nan = arith.constant 0x7FC00000 : f32
  %maxnan = arith.maximumf %nan, %a : f32
  %h = arith.truncf %a : f32 to bf16
  return %max1, %max2, %min1, %min2, %maxnan, %h : f32, f32, f32, f32, f32, bf16
}

func.func @main() {
  %nz = arith.constant -0.0 : f32
  %pz = arith.constant 0.0 : f32
  %r:6 = func.call @extremes(%nz, %pz) : (f32, f32) -> (f32, f32, f32, f32, f32, bf16)
  %b0 = arith.bitcast %r#0 : f32 to i32
  %b1 = arith.bitcast %r#1 : f32 to i32
  %b2 = arith.bitcast %r#2 : f32 to i32
  %b3 = arith.bitcast %r#3 : f32 to i32
  vector.print %b0 : i32
  vector.print %b1 : i32
  vector.print %b2 : i32
  vector.print %b3 : i32
  vector.print %r#4 : f32
  %e = arith.extf %r#5 : bf16 to f32
  %be = arith.bitcast %e : f32 to i32
  vector.print %be : i32
  return
}
