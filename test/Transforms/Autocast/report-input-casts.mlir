// The precision report names every op of the input, including casts that
// autocast's cleanup merges or removes. They used to be erased before the
// report printed them (a use after free: garbage locations or "IO failure
// on output stream: Bad address" in release builds, an error under
// -DMPT_SANITIZE=address).
// RUN: mpt-opt %s --mpt-precision-report -o /dev/null 2>&1 | FileCheck %s
// RUN: mpt-opt %mpt_src/test/Pipelines/lower-to-cpu.mlir --mpt-precision-report="format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// CHECK-LABEL: mpt precision report: @casts
// CHECK: report-input-casts.mlir:19:9 arith.extf
// CHECK: report-input-casts.mlir:20:9 arith.extf
// CHECK: report-input-casts.mlir:21:8 arith.truncf
// CHECK: report-input-casts.mlir:22:8 linalg.matmul
// CHECK: report-input-casts.mlir:24:8 arith.extf
// JSON: "function": "step"
func.func @casts(%a: tensor<4x4xf16>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %z = arith.constant dense<0.0> : tensor<4x4xf32>
  // Two extensions of one value (merged) and a round trip (removed).
  %e1 = arith.extf %a : tensor<4x4xf16> to tensor<4x4xf32>
  %e2 = arith.extf %a : tensor<4x4xf16> to tensor<4x4xf32>
  %t = arith.truncf %e1 : tensor<4x4xf32> to tensor<4x4xf16>
  %c = linalg.matmul ins(%e2, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = arith.addf %c, %e1 : tensor<4x4xf32>
  %u = arith.extf %t : tensor<4x4xf16> to tensor<4x4xf32>
  %r = arith.addf %s, %u : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
