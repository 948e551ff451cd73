// A gather guarded as torch-mlir guards an embedding lookup: the loss is
// w[id] * 1, and the step checks id < 4 first (cf.assert). SGD on w.
func.func @step(%w: tensor<4xf32> {mpt.role = "param"},
                %id: tensor<i64> {mpt.role = "data"})
    -> (tensor<f32> {mpt.role = "loss"}, tensor<4xf32> {mpt.updates = 0 : i64}) {
  %c4 = arith.constant 4 : i64
  %i = tensor.extract %id[] : tensor<i64>
  %ok = arith.cmpi ult, %i, %c4 : i64
  cf.assert %ok, "index must be smaller than dim size"
  %index = arith.index_cast %i : i64 to index
  %v = tensor.extract %w[%index] : tensor<4xf32>
  %loss = tensor.from_elements %v : tensor<f32>
  %one = arith.constant 1.0 : f32
  %lr = arith.constant 0.5 : f32
  %g = arith.mulf %one, %lr : f32
  %new = arith.subf %v, %g : f32
  %w2 = tensor.insert %new into %w[%index] : tensor<4xf32>
  return %loss, %w2 : tensor<f32>, tensor<4xf32>
}
