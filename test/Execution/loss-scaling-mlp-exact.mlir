// Loss scaling does not change an FP32 step that does not overflow: with a
// power-of-two scale every scaled intermediate of the backward pass is the
// unscaled one times 2^16 exactly (no FP32 overflow or subnormals here), and
// unscaling by 2^-16 is exact too. So the canonical MLP step returns the
// same bits scaled by 65536 as unscaled: `diff` compares the two runs.
//
// The driver below is appended to examples/mlp/mlp_step.mlir (neither file
// has a module op, so the two are one module).
// RUN: cat %mpt_src/examples/mlp/mlp_step.mlir %s > %t.mlir
// RUN: mpt-opt %t.mlir --mpt-insert-loss-scaling=mode=none --mpt-strip-training-markers \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine \
// RUN:   --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_libs \
// RUN: | grep -v "^Unranked" > %t.unscaled
// RUN: mpt-opt %t.mlir --mpt-insert-loss-scaling="mode=static init-scale=65536" --mpt-lower-loss-scaling --mpt-strip-training-markers \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine \
// RUN:   --convert-math-to-llvm --convert-math-to-libm --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-index-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_libs \
// RUN: | grep -v "^Unranked" > %t.scaled
// RUN: FileCheck %s < %t.scaled
// RUN: diff %t.unscaled %t.scaled

// What is compared: the loss, then the raw bits of the four updated
// parameters (all 676 values).
// CHECK: loss
// CHECK-NEXT: {{[0-9]+\.[0-9]+}}
// CHECK-NEXT: w1
// CHECK-NEXT: [{{-?[0-9]+}}, {{.*}}]
// CHECK: b2
// CHECK-NEXT: [{{-?[0-9]+}}, {{.*}}]

func.func private @printMemrefI32(memref<*xi32>)

// A deterministic, sign-mixed fill: t[i] = 0.5 * sin(0.37 * i + phase), i
// the row-major index.
func.func @pattern_2d(%e: tensor<?x?xf32>, %phase: f32) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c0 = arith.constant 0 : index
    %n = tensor.dim %e, %c0 : tensor<?x?xf32>
    %c1 = arith.constant 1 : index
    %m = tensor.dim %e, %c1 : tensor<?x?xf32>
    %row = arith.muli %i, %m : index
    %k = arith.addi %row, %j : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %a = arith.constant 0.37 : f32
    %h = arith.constant 0.5 : f32
    %x = arith.mulf %kf, %a : f32
    %y = arith.addf %x, %phase : f32
    %s = math.sin %y : f32
    %v = arith.mulf %s, %h : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @make(%rows: index, %cols: index, %phase: f32) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = call @pattern_2d(%e, %phase) : (tensor<?x?xf32>, f32) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @print_bits_2d(%t: tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %t, %c0 : tensor<?x?xf32>
  %m = tensor.dim %t, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xi32>
  %bits = linalg.map ins(%t : tensor<?x?xf32>) outs(%e : tensor<?x?xi32>)
    (%f: f32, %o: i32) {
      %b = arith.bitcast %f : f32 to i32
      linalg.yield %b : i32
    }
  %buf = bufferization.to_buffer %bits : tensor<?x?xi32> to memref<?x?xi32>
  %u = memref.cast %buf : memref<?x?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0.0 : f32
  %p1 = arith.constant 1.0 : f32
  %p2 = arith.constant 2.0 : f32
  %p3 = arith.constant 3.0 : f32
  %p4 = arith.constant 4.0 : f32
  %w1d = call @make(%c16, %c32, %p0) : (index, index, f32) -> tensor<?x?xf32>
  %b1d = call @make(%c1, %c32, %p1) : (index, index, f32) -> tensor<?x?xf32>
  %w2d = call @make(%c32, %c4, %p2) : (index, index, f32) -> tensor<?x?xf32>
  %b2d = call @make(%c1, %c4, %p3) : (index, index, f32) -> tensor<?x?xf32>
  %xd = call @make(%c8, %c16, %p4) : (index, index, f32) -> tensor<?x?xf32>
  %w1 = tensor.cast %w1d : tensor<?x?xf32> to tensor<16x32xf32>
  %b1r = tensor.cast %b1d : tensor<?x?xf32> to tensor<1x32xf32>
  %b1 = tensor.collapse_shape %b1r [[0, 1]] : tensor<1x32xf32> into tensor<32xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<32x4xf32>
  %b2r = tensor.cast %b2d : tensor<?x?xf32> to tensor<1x4xf32>
  %b2 = tensor.collapse_shape %b2r [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<8x16xf32>
  // One-hot labels: sample i is of class i mod 4.
  %y = arith.constant dense<[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0],
                             [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]> : tensor<8x4xf32>
  %lr = arith.constant dense<0.1> : tensor<f32>
  %loss, %nw1, %nb1, %nw2, %nb2 = call @mlp_step(%w1, %b1, %w2, %b2, %x, %y, %lr)
      : (tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<f32>)
        -> (tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>)
  vector.print str "loss\n"
  %lv = tensor.extract %loss[] : tensor<f32>
  vector.print %lv : f32
  vector.print str "w1\n"
  %nw1d = tensor.cast %nw1 : tensor<16x32xf32> to tensor<?x?xf32>
  call @print_bits_2d(%nw1d) : (tensor<?x?xf32>) -> ()
  vector.print str "b1\n"
  %nb1r = tensor.expand_shape %nb1 [[0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
  %nb1d = tensor.cast %nb1r : tensor<1x32xf32> to tensor<?x?xf32>
  call @print_bits_2d(%nb1d) : (tensor<?x?xf32>) -> ()
  vector.print str "w2\n"
  %nw2d = tensor.cast %nw2 : tensor<32x4xf32> to tensor<?x?xf32>
  call @print_bits_2d(%nw2d) : (tensor<?x?xf32>) -> ()
  vector.print str "b2\n"
  %nb2r = tensor.expand_shape %nb2 [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  %nb2d = tensor.cast %nb2r : tensor<1x4xf32> to tensor<?x?xf32>
  call @print_bits_2d(%nb2d) : (tensor<?x?xf32>) -> ()
  return
}
