// MX quantization as mpt-run executes it: y = x @ eye, autocast with
// dtype=mxfp8 or mxfp4 (the --passes of mx-quant.test). x is cut into MX
// blocks along its 48 columns (a block of 32 and a short block of 16);
// every block of the identity quantizes to itself, so y holds x's
// dequantized MX values (read in bf16, accumulated in f32). Not a training
// step: a function to the contract that mpt-run can run once and --save.
func.func @mx_quant(
    %x: tensor<64x48xf32> {mpt.role = "data"},
    %eye: tensor<48x48xf32> {mpt.role = "data"},
    %y: tensor<64x48xf32> {mpt.role = "buffer", mpt.initial_value = 0.0 : f32})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<64x48xf32> {mpt.updates = 2 : i64}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%x, %eye : tensor<64x48xf32>, tensor<48x48xf32>)
                     outs(%z : tensor<64x48xf32>) -> tensor<64x48xf32>
  %loss = arith.constant dense<0.0> : tensor<f32>
  return %loss, %r : tensor<f32>, tensor<64x48xf32>
}
