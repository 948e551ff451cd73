// The FP8 casts as mpt-run executes them: x rounded to f8E4M3FN and
// f8E5M2, from f32 and from bf16, and extended back to f32. Not a training
// step: a function to the contract that mpt-run can run once and --save.
func.func @fp8_casts(
    %x: tensor<4096xf32> {mpt.role = "data"},
    %e4: tensor<4096xf32> {mpt.role = "buffer", mpt.initial_value = 0.0 : f32},
    %e5: tensor<4096xf32> {mpt.role = "buffer", mpt.initial_value = 0.0 : f32},
    %b4: tensor<4096xf32> {mpt.role = "buffer", mpt.initial_value = 0.0 : f32},
    %b5: tensor<4096xf32> {mpt.role = "buffer", mpt.initial_value = 0.0 : f32})
    -> (tensor<f32> {mpt.role = "loss"},
        tensor<4096xf32> {mpt.updates = 1 : i64},
        tensor<4096xf32> {mpt.updates = 2 : i64},
        tensor<4096xf32> {mpt.updates = 3 : i64},
        tensor<4096xf32> {mpt.updates = 4 : i64}) {
  %q4 = arith.truncf %x : tensor<4096xf32> to tensor<4096xf8E4M3FN>
  %r4 = arith.extf %q4 : tensor<4096xf8E4M3FN> to tensor<4096xf32>
  %q5 = arith.truncf %x : tensor<4096xf32> to tensor<4096xf8E5M2>
  %r5 = arith.extf %q5 : tensor<4096xf8E5M2> to tensor<4096xf32>
  %xb = arith.truncf %x : tensor<4096xf32> to tensor<4096xbf16>
  %qb4 = arith.truncf %xb : tensor<4096xbf16> to tensor<4096xf8E4M3FN>
  %rb4 = arith.extf %qb4 : tensor<4096xf8E4M3FN> to tensor<4096xf32>
  %qb5 = arith.truncf %xb : tensor<4096xbf16> to tensor<4096xf8E5M2>
  %rb5 = arith.extf %qb5 : tensor<4096xf8E5M2> to tensor<4096xf32>
  %loss = arith.constant dense<0.0> : tensor<f32>
  return %loss, %r4, %r5, %rb4, %rb5 : tensor<f32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}
