// What --mpt-data-parallel inserts: bucketed all-reduces of the gradients
// before the markers (each marker moves to its reduced gradient, so that it
// still flows to its own parameter's update only), the loss all-reduced for logging,
// loss scaling's found-inf flag all-reduced with max before the guards.
// RUN: mpt-opt %s --split-input-file --mpt-data-parallel | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-data-parallel="bucket-bytes=16 average=false reduce-dtype=bf16" | FileCheck %s --check-prefix=SMALL
// RUN: mpt-opt %s --split-input-file --mpt-insert-loss-scaling --mpt-data-parallel | FileCheck %s --check-prefix=SCALED

// Three gradients (48 + 16 + 4 bytes): one bucket by default, packed in
// marker order and unpacked for the update; the loss is averaged too.
// CHECK-LABEL: func.func @three_params(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mpt.role = "param"}, %[[B:[a-z0-9]+]]: tensor<4xf32> {mpt.role = "param"}, %[[C:[a-z0-9]+]]: tensor<f32> {mpt.role = "param"}
// CHECK-SAME: attributes {mpt.data_parallel = "f32"}
// CHECK-NOT: mpt.gradient
// CHECK: %[[FW:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x3xf32> into tensor<12xf32>
// CHECK-NEXT: %[[FC:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK-NEXT: %[[PACK:.*]] = tensor.concat dim(0) %[[FW]], %{{.*}}, %[[FC]] : (tensor<12xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<17xf32>
// CHECK-NEXT: %[[SUM:.*]] = mpt.all_reduce mean %[[PACK]] : tensor<17xf32>
// CHECK-NEXT: %[[SW:.*]] = tensor.extract_slice %[[SUM]][0] [12] [1]
// CHECK-NEXT: %[[EW:.*]] = tensor.expand_shape %[[SW]] {{\[\[}}0, 1]] output_shape [4, 3]
// CHECK-NEXT: %[[RW:.*]] = mpt.gradient %[[EW]] : tensor<4x3xf32>
// CHECK-NEXT: %[[SB:.*]] = tensor.extract_slice %[[SUM]][12] [4] [1]
// CHECK-NEXT: %[[RB:.*]] = mpt.gradient %[[SB]] : tensor<4xf32>
// CHECK-NEXT: %[[SC:.*]] = tensor.extract_slice %[[SUM]][16] [1] [1]
// CHECK-NEXT: %[[CC:.*]] = tensor.collapse_shape %[[SC]] [] : tensor<1xf32> into tensor<f32>
// CHECK-NEXT: %[[RC:.*]] = mpt.gradient %[[CC]] : tensor<f32>
// CHECK-NEXT: arith.subf %[[W]], %[[RW]]
// CHECK-NEXT: arith.subf %[[B]], %[[RB]]
// CHECK-NEXT: arith.subf %[[C]], %[[RC]]
// CHECK-NEXT: %[[LOSS:.*]] = mpt.all_reduce mean %{{.*}} : tensor<4xf32>
// CHECK-NEXT: return %[[LOSS]],

// bucket-bytes=16: w (48 bytes) alone, then b (16 bytes), then c; sums,
// each sent as bf16 (wire = bf16).
// SMALL-LABEL: func.func @three_params(
// SMALL-SAME: attributes {mpt.data_parallel = "bf16"}
// SMALL: mpt.all_reduce sum %{{.*}} {wire = bf16} : tensor<12xf32>
// SMALL: mpt.all_reduce sum %{{.*}} {wire = bf16} : tensor<4xf32>
// SMALL: mpt.all_reduce sum %{{.*}} {wire = bf16} : tensor<1xf32>
// SMALL: mpt.all_reduce mean %{{.*}} : tensor<4xf32>
// SMALL-NOT: mpt.all_reduce
// SMALL: return
func.func @three_params(
    %w: tensor<4x3xf32> {mpt.role = "param"},
    %b: tensor<4xf32> {mpt.role = "param"},
    %c: tensor<f32> {mpt.role = "param"},
    %x: tensor<4x3xf32> {mpt.role = "data"})
    -> (tensor<4xf32> {mpt.role = "loss"},
        tensor<4x3xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64},
        tensor<f32> {mpt.updates = 2 : i64}) {
  %wx = arith.mulf %w, %x : tensor<4x3xf32>
  %e = tensor.empty() : tensor<4xf32>
  %loss = linalg.reduce ins(%wx : tensor<4x3xf32>) outs(%b : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %sb = linalg.broadcast ins(%seed : tensor<4xf32>) outs(%x : tensor<4x3xf32>) dimensions = [1]
  %dw = arith.mulf %sb, %x : tensor<4x3xf32>
  %gw = mpt.gradient %dw : tensor<4x3xf32>
  %gb = mpt.gradient %seed : tensor<4xf32>
  %z = tensor.empty() : tensor<f32>
  %dc = linalg.reduce ins(%seed : tensor<4xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %gc = mpt.gradient %dc : tensor<f32>
  %nw = arith.subf %w, %gw : tensor<4x3xf32>
  %nb = arith.subf %b, %gb : tensor<4xf32>
  %nc = arith.subf %c, %gc : tensor<f32>
  return %loss, %nw, %nb, %nc : tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// The update of w reads its gradient before b's marker: w's bucket is
// reduced before that read, b's after its own marker. With loss scaling the
// found-inf flag of the one check is all-reduced (max) and every guard and
// the scale update read the reduced flag.
// CHECK-LABEL: func.func @interleaved_update(
// CHECK: mpt.grad_seed
// CHECK-NEXT: %[[DW:.*]] = arith.mulf
// CHECK-NEXT: %[[RW:.*]] = mpt.all_reduce mean %[[DW]] : tensor<4xf32>
// CHECK-NEXT: %[[GW:.*]] = mpt.gradient %[[RW]]
// CHECK-NEXT: arith.subf %{{.*}}, %[[GW]]
// CHECK: %[[DB:.*]] = arith.mulf
// CHECK-NEXT: %[[RB:.*]] = mpt.all_reduce mean %[[DB]] : tensor<4xf32>
// CHECK-NEXT: %[[GB:.*]] = mpt.gradient %[[RB]]
// CHECK-NEXT: arith.subf %{{.*}}, %[[GB]]

// SCALED-LABEL: func.func @interleaved_update(
// SCALED: %[[PACK:.*]] = tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>)
// SCALED-NEXT: %[[SUM:.*]] = mpt.all_reduce mean %[[PACK]] : tensor<8xf32>
// SCALED-NEXT: %[[SW:.*]] = tensor.extract_slice %[[SUM]][0] [4] [1]
// SCALED-NEXT: %[[GW:.*]] = mpt.gradient %[[SW]]
// SCALED-NEXT: %[[SB:.*]] = tensor.extract_slice %[[SUM]][4] [4] [1]
// SCALED-NEXT: %[[GB:.*]] = mpt.gradient %[[SB]]
// SCALED-NEXT: %[[U:.*]]:2, %[[FOUND:.*]] = mpt.unscale_and_check %[[GW]], %[[GB]]
// SCALED-NEXT: %[[I32:.*]] = arith.extui %[[FOUND]] : tensor<i1> to tensor<i32>
// SCALED-NEXT: %[[FLAT:.*]] = tensor.expand_shape %[[I32]] [] output_shape [1]
// SCALED-NEXT: %[[MAX:.*]] = mpt.all_reduce max %[[FLAT]] : tensor<1xi32>
// SCALED-NEXT: %[[BACK:.*]] = tensor.collapse_shape %[[MAX]] []
// SCALED-NEXT: %[[ANY:.*]] = arith.trunci %[[BACK]] : tensor<i32> to tensor<i1>
// SCALED-NOT: %[[FOUND]]
// SCALED: mpt.guard_update %{{.*}} if %[[ANY]]
// SCALED: mpt.guard_update %{{.*}} if %[[ANY]]
// SCALED: mpt.update_scale %{{.*}}, %{{.*}}, %[[ANY]]
func.func @interleaved_update(
    %w: tensor<4xf32> {mpt.role = "param"},
    %b: tensor<4xf32> {mpt.role = "param"},
    %x: tensor<4xf32> {mpt.role = "data"})
    -> (tensor<4xf32> {mpt.role = "loss"},
        tensor<4xf32> {mpt.updates = 0 : i64},
        tensor<4xf32> {mpt.updates = 1 : i64}) {
  %loss = arith.mulf %w, %x : tensor<4xf32>
  %seed = mpt.grad_seed %loss : tensor<4xf32>
  %dw = arith.mulf %seed, %x : tensor<4xf32>
  %gw = mpt.gradient %dw : tensor<4xf32>
  %nw = arith.subf %w, %gw : tensor<4xf32>
  %db = arith.mulf %seed, %seed : tensor<4xf32>
  %gb = mpt.gradient %db : tensor<4xf32>
  %nb = arith.subf %b, %gb : tensor<4xf32>
  return %loss, %nw, %nb : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// f16 gradients travel as f32 and come back as f16; a function that is no
// step is left alone.
// CHECK-LABEL: func.func @half_gradient(
// CHECK: mpt.grad_seed
// CHECK-NEXT: %[[D:.*]] = arith.mulf %{{.*}} : tensor<4xf16>
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[D]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = mpt.all_reduce mean %[[WIDE]] : tensor<4xf32>
// CHECK-NEXT: %[[NARROW:.*]] = arith.truncf %[[SUM]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[G:.*]] = mpt.gradient %[[NARROW]] : tensor<4xf16>
// CHECK-NEXT: arith.subf %{{.*}}, %[[G]]
// CHECK: %[[LOSS:.*]] = arith.extf %{{.*}} : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[MEAN:.*]] = mpt.all_reduce mean %[[LOSS]] : tensor<4xf32>
// CHECK-NEXT: %[[BACK:.*]] = arith.truncf %[[MEAN]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: return %[[BACK]],
func.func @half_gradient(%w: tensor<4xf16> {mpt.role = "param"})
    -> (tensor<4xf16> {mpt.role = "loss"}, tensor<4xf16> {mpt.updates = 0 : i64}) {
  %loss = arith.mulf %w, %w : tensor<4xf16>
  %seed = mpt.grad_seed %loss : tensor<4xf16>
  %dw = arith.mulf %seed, %w : tensor<4xf16>
  %g = mpt.gradient %dw : tensor<4xf16>
  %nw = arith.subf %w, %g : tensor<4xf16>
  return %loss, %nw : tensor<4xf16>, tensor<4xf16>
}
// CHECK-LABEL: func.func @helper(
// CHECK-NOT: mpt.all_reduce
// CHECK: return
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
