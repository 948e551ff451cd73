// --mpt-lower-to-cpu's excess-precision (the default; mpt-run's
// --excess-precision): once --mpt-fuse-elementwise has put autocast's ops
// in one loop body, the value between them is not rounded to bf16 or f16.
// Computed on the CPU both ways, vectorized and as scalar loops; the values
// are exact in f32, so the checks demand equality:
// - bf16: a = b = 1 + 2^-7 and z = 1 + 2^-6. a * b = 1 + 2^-6 + 2^-14 rounds
//   to 1 + 2^-6 in bf16, so the op-by-op difference (a * b) - z is 0; with
//   excess precision it is 2^-14 (6.10352e-05), as in FP32. The product
//   itself is also returned, i.e. stored: rounded to bf16 either way.
// - f16: u * u = 264.5^2 = 69960.25 overflows f16 (65504) op by op, and
//   the half of it is inf; kept in f32 it is 34980.125, stored as the f16
//   34976 (f16's spacing is 32 there).
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 avx512=1" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s --check-prefix=EXCESS
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s --check-prefix=EXCESS
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 avx512=1 excess-precision=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s --check-prefix=ROUNDED
// RUN: mpt-opt %s --mpt-lower-to-cpu="excess-precision=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s --check-prefix=ROUNDED
// Without fusion nothing is in one body: every rounding stays.
// RUN: mpt-opt %s --mpt-lower-to-cpu="fuse-elementwise=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s --check-prefix=ROUNDED

// EXCESS: 6.10352e-05
// EXCESS-NEXT: 6.10352e-05
// EXCESS-NEXT: 1.01562
// EXCESS-NEXT: 34976
// ROUNDED: 0
// ROUNDED-NEXT: 0
// ROUNDED-NEXT: 1.01562
// ROUNDED-NEXT: inf

#id = affine_map<(i) -> (i)>

func.func @step(%a: tensor<37xbf16>, %b: tensor<37xbf16>, %z: tensor<37xbf16>,
                %u: tensor<37xf16>) -> (tensor<37xf32>, tensor<37xbf16>, tensor<37xf16>) {
  %eb = tensor.empty() : tensor<37xbf16>
  %ef = tensor.empty() : tensor<37xf32>
  %eh = tensor.empty() : tensor<37xf16>
  // Autocast's bf16 multiply: widened inputs, the product rounded.
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<37xbf16>, tensor<37xbf16>) outs(%eb : tensor<37xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.truncf %2 : f32 to bf16
    linalg.yield %3 : bf16
  } -> tensor<37xbf16>
  // An f32 reader of it (a sum's input).
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %z : tensor<37xbf16>, tensor<37xbf16>) outs(%ef : tensor<37xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.subf %0, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<37xf32>
  // f16: a square, then its half.
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%u : tensor<37xf16>) outs(%eh : tensor<37xf16>) {
  ^bb0(%x: f16, %o: f16):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.truncf %1 : f32 to f16
    linalg.yield %2 : f16
  } -> tensor<37xf16>
  %half = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%sq : tensor<37xf16>) outs(%eh : tensor<37xf16>) {
  ^bb0(%x: f16, %o: f16):
    %c = arith.constant 0.5 : f32
    %0 = arith.extf %x : f16 to f32
    %1 = arith.mulf %0, %c : f32
    %2 = arith.truncf %1 : f32 to f16
    linalg.yield %2 : f16
  } -> tensor<37xf16>
  return %d, %p, %half : tensor<37xf32>, tensor<37xbf16>, tensor<37xf16>
}

func.func @main() {
  %a = arith.constant dense<1.0078125> : tensor<37xbf16>
  %z = arith.constant dense<1.015625> : tensor<37xbf16>
  %u = arith.constant dense<264.5> : tensor<37xf16>
  %r:3 = func.call @step(%a, %a, %z, %u)
      : (tensor<37xbf16>, tensor<37xbf16>, tensor<37xbf16>, tensor<37xf16>)
      -> (tensor<37xf32>, tensor<37xbf16>, tensor<37xf16>)
  %c0 = arith.constant 0 : index
  %c36 = arith.constant 36 : index
  // The first element (a whole vector) and the last (the ragged tail).
  %d0 = tensor.extract %r#0[%c0] : tensor<37xf32>
  %d36 = tensor.extract %r#0[%c36] : tensor<37xf32>
  vector.print %d0 : f32
  vector.print %d36 : f32
  %p0 = tensor.extract %r#1[%c0] : tensor<37xbf16>
  %pf = arith.extf %p0 : bf16 to f32
  vector.print %pf : f32
  %h0 = tensor.extract %r#2[%c36] : tensor<37xf16>
  %hf = arith.extf %h0 : f16 to f32
  vector.print %hf : f32
  return
}
