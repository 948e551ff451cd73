// An option error seen by --verify-diagnostics: options have no source
// location, hence @unknown. (options-errors.mlir covers every option error.)
// RUN: mpt-opt %s --mpt-autocast="allow=linalg.matmulx" --verify-diagnostics -o /dev/null

// expected-error@unknown {{unknown op 'linalg.matmulx': dialect 'linalg' defines no such op (option 'allow')}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
