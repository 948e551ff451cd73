// Policy files: errors name the file, line and key; a valid file moves ops
// between lists ("infer") and off the default lists ("remove").
// RUN: not mpt-opt %s --mpt-autocast="policy=%S/Inputs/malformed.json" 2>&1 | FileCheck %s --check-prefix=MALFORMED --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="policy=%S/Inputs/unknown-key.json" 2>&1 | FileCheck %s --check-prefix=KEY --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="policy=%S/Inputs/unknown-op.json" 2>&1 | FileCheck %s --check-prefix=OP --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="policy=%S/Inputs/not-array.json" 2>&1 | FileCheck %s --check-prefix=ARRAY --implicit-check-not=error:
// RUN: not mpt-opt %s --mpt-autocast="policy=%S/Inputs/two-lists.json" 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not=error:
// The command line overrides the file: math.exp back on the deny list.
// RUN: mpt-opt %s --mpt-autocast="policy=%S/Inputs/exp-infer.json deny=math.exp" 2>&1 | FileCheck %s --check-prefix=FILEOPT --implicit-check-not=error:
// RUN: mpt-opt %s --mpt-precision-report="policy=%S/Inputs/exp-infer.json deny=math.exp" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILEOPTREPORT
// RUN: not mpt-opt %s --mpt-autocast="policy=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not=error:
// RUN: mpt-opt %s --mpt-autocast="policy=%S/Inputs/exp-infer.json" | FileCheck %s
// A device or a huge file is refused before it is read (/dev/zero used to be
// read until memory ran out).
// RUN: not mpt-opt %s --mpt-autocast="policy=/dev/zero" 2>&1 | FileCheck %s --check-prefix=DEVICE --implicit-check-not=error:
// RUN: %python -c "open(r'%t.big.json', 'w').write('{' + ' ' * (1 << 20) + '}')"
// RUN: not mpt-opt %s --mpt-autocast="policy=%t.big.json" 2>&1 | FileCheck %s --check-prefix=BIG --implicit-check-not=error:
// DEVICE: error: autocast policy file '/dev/zero' is not a regular file
// BIG: error: autocast policy file '{{.*}}big.json' is larger than 1 MiB

// MALFORMED: malformed.json:3:9: error: malformed autocast policy JSON: Expected , or ] after array element
// MALFORMED-NOT: func.func
// KEY: unknown-key.json:3:3: error: unknown key "always" in autocast policy; expected "allow", "deny", "infer", "clear" or "remove"
// OP: unknown-op.json:5:5: error: unknown op 'math.expp': dialect 'math' defines no such op (key "deny" of the autocast policy)
// ARRAY: not-array.json:2:3: error: key "infer" of the autocast policy must be an array of op names
// TWO: two-lists.json:3:12: error: op 'math.exp' is on two autocast lists: infer (policy file {{.*}}two-lists.json) and deny (policy file {{.*}}two-lists.json)
// FILEOPT-LABEL: func.func @policy_moves_ops
// FILEOPT: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf32>)
// FILEOPT-NEXT: ^bb0
// FILEOPT-NEXT: math.exp
// FILEOPTREPORT: linalg.generic [forward] f32: deny (body uses math.exp (deny list, option 'deny'))
// MISSING: error: cannot read autocast policy file '{{.*}}missing.json'

#id = affine_map<(i, j) -> (i, j)>

// With math.exp on the infer list the exp generic between the matmuls is
// painted f16; with math.tanh removed from the lists, the tanh generic is
// unlisted and stays f32.
// CHECK-LABEL: func.func @policy_moves_ops
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf16>)
// CHECK: math.exp
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: math.tanh
func.func @policy_moves_ops(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %mm2 = linalg.matmul ins(%exp, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %tanh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %mm3 = linalg.matmul ins(%tanh, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm3 : tensor<4x8xf32>
}
