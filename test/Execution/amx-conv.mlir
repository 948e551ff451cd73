// bf16 convolutions on the CPU kernels: --mpt-lower-to-cpu="amx=1" rewrites
// them into im2col + a contraction (--mpt-conv-to-im2col, upstream's
// one matmul with the batch folded into its columns), and the matmul runs on
// the AMX kernel. Checked against the f32 convolution of the same
// values on the generic loops: inputs are small integers (|x| <= 3), every
// partial sum (at most 27 * 9 or 64 * 9 terms of 9) is exact, so the
// largest difference printed must be 0. Cases: 3x3 stride 2 on a ragged
// image, 1x1 stride 1, and a 2x3 filter with dilation (2, 1), stride (1, 2)
// accumulating into an init that is not a fill (it is transposed into the
// matmul's layout and back), and an input gradient's filter as torch-mlir
// writes it (a generic reading the f32 filter flipped and channel-swapped
// through tensor.extract, truncated to bf16), which the rewrite reads
// unflipped with the taps gathered in reverse order.
// REQUIRES: amx
// RUN: mpt-opt %s --mpt-lower-to-cpu="amx=1 kernel-report=%t.report" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mpt_amx_runtime,%mlir_runner_libs | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// REPORT: CPU kernels (amx, no avx512): 4 of 8 contractions lowered
// REPORT: linalg.matmul 40x50x27 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16
// REPORT: linalg.matmul 33x108x64 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16
// REPORT: linalg.matmul 17x112x30 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16
// REPORT: linalg.matmul 6x98x36 bf16 x bf16 -> f32: @__mpt_amx_matmul_bf16
// REPORT: linalg.conv_2d_nchw_fchw {{.*}} f32 x f32 -> f32: left as is: convolution

// ((a*i + b*j + c*k + d*l) mod 7) - 3
func.func @values(%i: index, %j: index, %k: index, %l: index) -> f32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %a = arith.muli %i, %c5 : index
  %b = arith.muli %j, %c3 : index
  %c = arith.muli %k, %c2 : index
  %s1 = arith.addi %a, %b : index
  %s2 = arith.addi %s1, %c : index
  %s3 = arith.addi %s2, %l : index
  %r = arith.remui %s3, %c7 : index
  %v = arith.subi %r, %c3 : index
  %x = arith.index_cast %v : index to i32
  %f = arith.sitofp %x : i32 to f32
  return %f : f32
}

func.func @maxdiff(%x: tensor<?x?x?x?xf32>, %y: tensor<?x?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?x?xf32>
  %d3 = tensor.dim %x, %c3 : tensor<?x?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %m = scf.for %i = %c0 to %d0 step %c1 iter_args(%a0 = %zero) -> f32 {
    %m1 = scf.for %j = %c0 to %d1 step %c1 iter_args(%a1 = %a0) -> f32 {
      %m2 = scf.for %k = %c0 to %d2 step %c1 iter_args(%a2 = %a1) -> f32 {
        %m3 = scf.for %l = %c0 to %d3 step %c1 iter_args(%a3 = %a2) -> f32 {
          %u = tensor.extract %x[%i, %j, %k, %l] : tensor<?x?x?x?xf32>
          %v = tensor.extract %y[%i, %j, %k, %l] : tensor<?x?x?x?xf32>
          %e = arith.subf %u, %v : f32
          %ae = math.absf %e : f32
          %mx = arith.maximumf %ae, %a3 : f32
          scf.yield %mx : f32
        }
        scf.yield %m3 : f32
      }
      scf.yield %m2 : f32
    }
    scf.yield %m1 : f32
  }
  vector.print %m : f32
  return
}

func.func @main() {
  %x32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%i, %j, %k, %l) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x3x11x11xf32>
  %w32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %k, %i, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<40x3x3x3xf32>
  %x16 = arith.truncf %x32 : tensor<2x3x11x11xf32> to tensor<2x3x11x11xbf16>
  %w16 = arith.truncf %w32 : tensor<40x3x3x3xf32> to tensor<40x3x3x3xbf16>
  %one = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<2x40x5x5xf32>
  %acc = linalg.fill ins(%one : f32) outs(%init : tensor<2x40x5x5xf32>) -> tensor<2x40x5x5xf32>
  %r16 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x16, %w16 : tensor<2x3x11x11xbf16>, tensor<40x3x3x3xbf16>) outs(%acc : tensor<2x40x5x5xf32>) -> tensor<2x40x5x5xf32>
  %r32 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x32, %w32 : tensor<2x3x11x11xf32>, tensor<40x3x3x3xf32>) outs(%acc : tensor<2x40x5x5xf32>) -> tensor<2x40x5x5xf32>
  %a = tensor.cast %r16 : tensor<2x40x5x5xf32> to tensor<?x?x?x?xf32>
  %b = tensor.cast %r32 : tensor<2x40x5x5xf32> to tensor<?x?x?x?xf32>
  // CHECK: 0
  func.call @maxdiff(%a, %b) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> ()

  %y32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%j, %i, %l, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<3x64x6x6xf32>
  %v32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%i, %j, %j, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<33x64x1x1xf32>
  %y16 = arith.truncf %y32 : tensor<3x64x6x6xf32> to tensor<3x64x6x6xbf16>
  %v16 = arith.truncf %v32 : tensor<33x64x1x1xf32> to tensor<33x64x1x1xbf16>
  %init2 = tensor.empty() : tensor<3x33x6x6xf32>
  %acc2 = linalg.fill ins(%one : f32) outs(%init2 : tensor<3x33x6x6xf32>) -> tensor<3x33x6x6xf32>
  %s16 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%y16, %v16 : tensor<3x64x6x6xbf16>, tensor<33x64x1x1xbf16>) outs(%acc2 : tensor<3x33x6x6xf32>) -> tensor<3x33x6x6xf32>
  %s32 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%y32, %v32 : tensor<3x64x6x6xf32>, tensor<33x64x1x1xf32>) outs(%acc2 : tensor<3x33x6x6xf32>) -> tensor<3x33x6x6xf32>
  %c = tensor.cast %s16 : tensor<3x33x6x6xf32> to tensor<?x?x?x?xf32>
  %d = tensor.cast %s32 : tensor<3x33x6x6xf32> to tensor<?x?x?x?xf32>
  // CHECK-NEXT: 0
  func.call @maxdiff(%c, %d) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> ()

  %z32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%k, %l, %j, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<4x5x9x10xf32>
  %u32 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%j, %l, %i, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<17x5x2x3xf32>
  %acc3 = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %i, %k, %j) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<4x17x7x4xf32>
  %z16 = arith.truncf %z32 : tensor<4x5x9x10xf32> to tensor<4x5x9x10xbf16>
  %u16 = arith.truncf %u32 : tensor<17x5x2x3xf32> to tensor<17x5x2x3xbf16>
  %t16 = linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
      ins(%z16, %u16 : tensor<4x5x9x10xbf16>, tensor<17x5x2x3xbf16>) outs(%acc3 : tensor<4x17x7x4xf32>) -> tensor<4x17x7x4xf32>
  %t32 = linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
      ins(%z32, %u32 : tensor<4x5x9x10xf32>, tensor<17x5x2x3xf32>) outs(%acc3 : tensor<4x17x7x4xf32>) -> tensor<4x17x7x4xf32>
  %e = tensor.cast %t16 : tensor<4x17x7x4xf32> to tensor<?x?x?x?xf32>
  %f = tensor.cast %t32 : tensor<4x17x7x4xf32> to tensor<?x?x?x?xf32>
  // CHECK-NEXT: 0
  func.call @maxdiff(%e, %f) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> ()

  // w[f, c, kh, kw]: 4 filters of 6 channels; the input gradient convolves
  // the padded output gradient (2 x 4 x 9 x 9) with w flipped, channels
  // swapped: [6, 4, 3, 3].
  %go = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%l, %i, %j, %k) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<2x4x9x9xf32>
  %wf = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = func.call @values(%k, %j, %l, %i) : (index, index, index, index) -> f32
    tensor.yield %v : f32
  } : tensor<4x6x3x3xf32>
  %c2 = arith.constant 2 : index
  %ef16 = tensor.empty() : tensor<6x4x3x3xbf16>
  %flip16 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ef16 : tensor<6x4x3x3xbf16>) {
  ^bb0(%out: bf16):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r2 = arith.subi %c2, %i2 : index
    %r3 = arith.subi %c2, %i3 : index
    %x = tensor.extract %wf[%i1, %i0, %r2, %r3] : tensor<4x6x3x3xf32>
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<6x4x3x3xbf16>
  %ef32 = tensor.empty() : tensor<6x4x3x3xf32>
  %flip32 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ef32 : tensor<6x4x3x3xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %r2 = arith.subi %c2, %i2 : index
    %r3 = arith.subi %c2, %i3 : index
    %x = tensor.extract %wf[%i1, %i0, %r2, %r3] : tensor<4x6x3x3xf32>
    linalg.yield %x : f32
  } -> tensor<6x4x3x3xf32>
  %go16 = arith.truncf %go : tensor<2x4x9x9xf32> to tensor<2x4x9x9xbf16>
  %zero = arith.constant 0.0 : f32
  %gi0 = tensor.empty() : tensor<2x6x7x7xf32>
  %gi = linalg.fill ins(%zero : f32) outs(%gi0 : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %gi16 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%go16, %flip16 : tensor<2x4x9x9xbf16>, tensor<6x4x3x3xbf16>) outs(%gi : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %gi32 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%go, %flip32 : tensor<2x4x9x9xf32>, tensor<6x4x3x3xf32>) outs(%gi : tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %g = tensor.cast %gi16 : tensor<2x6x7x7xf32> to tensor<?x?x?x?xf32>
  %h = tensor.cast %gi32 : tensor<2x6x7x7xf32> to tensor<?x?x?x?xf32>
  // CHECK-NEXT: 0
  func.call @maxdiff(%g, %h) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> ()
  return
}
