// --mpt-merge-accumulated-matmuls in the CPU pipeline: a sum of three K = 4
// products plus another term (an RNN's recurrent weight gradient and the
// gradient of one more use), in f32 and in autocast's bf16 form, runs as one
// K = 12 matmul on the AVX-512 kernel (REPORT) and on the generic path's
// loops. Inputs are small integers (|x| <= 3) and every partial sum is an
// integer below 256, exact in f32 and bf16, so the merged step must print
// exactly what the unmerged one (merge-accumulated-matmuls=0) does: the
// changed summation order cannot show, a misplaced operand block does.
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 vectorize=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.merged
// RUN: mpt-opt %s --mpt-lower-to-cpu="avx512=1 vectorize=1 merge-accumulated-matmuls=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.unmerged
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.merged %t.unmerged
// RUN: diff %t.merged %t.loops
// RUN: FileCheck %s < %t.merged
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// REPORT: linalg.matmul 40x24x12 f32 x f32 -> f32: @__mpt_avx512_matmul_f32
// REPORT: linalg.matmul 40x24x12 bf16 x bf16 -> f32: @__mpt_avx512_matmul_bf16
// REPORT-NOT: 40x24x4
// CHECK: sizes = [40, 24]
// CHECK-NEXT: {{^\[\[14, +-20, +-12,}}
// CHECK: sizes = [40, 24]
// CHECK-NEXT: {{^\[\[14, +-20, +-12,}}

#id = affine_map<(i, j) -> (i, j)>

func.func private @printMemrefF32(tensor<*xf32>)

// ((5 i + 3 j + s) mod 7) - 3
func.func @values(%i: index, %j: index, %s: index) -> f32 {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %a = arith.muli %i, %c5 : index
  %b = arith.muli %j, %c3 : index
  %s1 = arith.addi %a, %b : index
  %s2 = arith.addi %s1, %s : index
  %r = arith.remui %s2, %c7 : index
  %v = arith.subi %r, %c3 : index
  %x = arith.index_cast %v : index to i32
  %f = arith.sitofp %x : i32 to f32
  return %f : f32
}

func.func @operand(%s: index) -> tensor<40x4xf32> {
  %t = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = func.call @values(%i, %j, %s) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<40x4xf32>
  return %t : tensor<40x4xf32>
}

func.func @operandB(%s: index) -> tensor<4x24xf32> {
  %t = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = func.call @values(%j, %i, %s) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<4x24xf32>
  return %t : tensor<4x24xf32>
}

func.func @add(%x: tensor<40x24xf32>, %y: tensor<40x24xf32>) -> tensor<40x24xf32> {
  %e = tensor.empty() : tensor<40x24xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<40x24xf32>, tensor<40x24xf32>) outs(%e : tensor<40x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<40x24xf32>
  return %r : tensor<40x24xf32>
}

func.func @sum_f32(%a0: tensor<40x4xf32>, %b0: tensor<4x24xf32>, %a1: tensor<40x4xf32>, %b1: tensor<4x24xf32>,
                   %a2: tensor<40x4xf32>, %b2: tensor<4x24xf32>, %g: tensor<40x24xf32>) -> tensor<40x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x24xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<40x24xf32>) -> tensor<40x24xf32>
  %p0 = linalg.matmul ins(%a0, %b0 : tensor<40x4xf32>, tensor<4x24xf32>) outs(%fill : tensor<40x24xf32>) -> tensor<40x24xf32>
  %p1 = linalg.matmul ins(%a1, %b1 : tensor<40x4xf32>, tensor<4x24xf32>) outs(%fill : tensor<40x24xf32>) -> tensor<40x24xf32>
  %p2 = linalg.matmul ins(%a2, %b2 : tensor<40x4xf32>, tensor<4x24xf32>) outs(%fill : tensor<40x24xf32>) -> tensor<40x24xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p0, %g : tensor<40x24xf32>, tensor<40x24xf32>) outs(%e : tensor<40x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<40x24xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s0, %p1 : tensor<40x24xf32>, tensor<40x24xf32>) outs(%e : tensor<40x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<40x24xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p2, %s1 : tensor<40x24xf32>, tensor<40x24xf32>) outs(%e : tensor<40x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<40x24xf32>
  return %s2 : tensor<40x24xf32>
}

func.func @sum_bf16(%a0: tensor<40x4xbf16>, %b0: tensor<4x24xbf16>, %a1: tensor<40x4xbf16>, %b1: tensor<4x24xbf16>,
                    %a2: tensor<40x4xbf16>, %b2: tensor<4x24xbf16>, %g: tensor<40x24xbf16>) -> tensor<40x24xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x24xf32>
  %eb = tensor.empty() : tensor<40x24xbf16>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<40x24xf32>) -> tensor<40x24xf32>
  %p0 = linalg.matmul ins(%a0, %b0 : tensor<40x4xbf16>, tensor<4x24xbf16>) outs(%fill : tensor<40x24xf32>) -> tensor<40x24xf32>
  %t0 = arith.truncf %p0 : tensor<40x24xf32> to tensor<40x24xbf16>
  %p1 = linalg.matmul ins(%a1, %b1 : tensor<40x4xbf16>, tensor<4x24xbf16>) outs(%fill : tensor<40x24xf32>) -> tensor<40x24xf32>
  %t1 = arith.truncf %p1 : tensor<40x24xf32> to tensor<40x24xbf16>
  %p2 = linalg.matmul ins(%a2, %b2 : tensor<40x4xbf16>, tensor<4x24xbf16>) outs(%fill : tensor<40x24xf32>) -> tensor<40x24xf32>
  %t2 = arith.truncf %p2 : tensor<40x24xf32> to tensor<40x24xbf16>
  %s0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t0, %t1 : tensor<40x24xbf16>, tensor<40x24xbf16>) outs(%eb : tensor<40x24xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %r = arith.addf %xf, %yf : f32
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> tensor<40x24xbf16>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %s0 : tensor<40x24xbf16>, tensor<40x24xbf16>) outs(%eb : tensor<40x24xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %r = arith.addf %xf, %yf : f32
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> tensor<40x24xbf16>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s1, %t2 : tensor<40x24xbf16>, tensor<40x24xbf16>) outs(%eb : tensor<40x24xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %r = arith.addf %xf, %yf : f32
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> tensor<40x24xbf16>
  return %s2 : tensor<40x24xbf16>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a0 = func.call @operand(%c0) : (index) -> tensor<40x4xf32>
  %a1 = func.call @operand(%c1) : (index) -> tensor<40x4xf32>
  %a2 = func.call @operand(%c2) : (index) -> tensor<40x4xf32>
  %b0 = func.call @operandB(%c3) : (index) -> tensor<4x24xf32>
  %b1 = func.call @operandB(%c2) : (index) -> tensor<4x24xf32>
  %b2 = func.call @operandB(%c1) : (index) -> tensor<4x24xf32>
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = func.call @values(%j, %i, %c2) : (index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<40x24xf32>
  %s = func.call @sum_f32(%a0, %b0, %a1, %b1, %a2, %b2, %g)
      : (tensor<40x4xf32>, tensor<4x24xf32>, tensor<40x4xf32>, tensor<4x24xf32>, tensor<40x4xf32>, tensor<4x24xf32>, tensor<40x24xf32>) -> tensor<40x24xf32>
  %p = tensor.cast %s : tensor<40x24xf32> to tensor<*xf32>
  func.call @printMemrefF32(%p) : (tensor<*xf32>) -> ()

  %a0h = arith.truncf %a0 : tensor<40x4xf32> to tensor<40x4xbf16>
  %a1h = arith.truncf %a1 : tensor<40x4xf32> to tensor<40x4xbf16>
  %a2h = arith.truncf %a2 : tensor<40x4xf32> to tensor<40x4xbf16>
  %b0h = arith.truncf %b0 : tensor<4x24xf32> to tensor<4x24xbf16>
  %b1h = arith.truncf %b1 : tensor<4x24xf32> to tensor<4x24xbf16>
  %b2h = arith.truncf %b2 : tensor<4x24xf32> to tensor<4x24xbf16>
  %gh = arith.truncf %g : tensor<40x24xf32> to tensor<40x24xbf16>
  %sh = func.call @sum_bf16(%a0h, %b0h, %a1h, %b1h, %a2h, %b2h, %gh)
      : (tensor<40x4xbf16>, tensor<4x24xbf16>, tensor<40x4xbf16>, tensor<4x24xbf16>, tensor<40x4xbf16>, tensor<4x24xbf16>, tensor<40x24xbf16>) -> tensor<40x24xbf16>
  %sf = arith.extf %sh : tensor<40x24xbf16> to tensor<40x24xf32>
  %q = tensor.cast %sf : tensor<40x24xf32> to tensor<*xf32>
  func.call @printMemrefF32(%q) : (tensor<*xf32>) -> ()
  return
}
