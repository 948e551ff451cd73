// mpt-opt verifies the result of a pipeline once, after its last pass
// (--mpt-verify), instead of after every pass that changed the IR as mlir-opt
// does; --verify-each verifies after every pass. Either way invalid IR ends
// the run with an error, never as output.

// Invalid IR that parsing does not verify (--mlir-very-unsafe-...), under a
// pass that changes nothing, with --verify-each=0: one error at its location,
// a non-zero exit and no output file.
// RUN: rm -f %t.out
// RUN: not mpt-opt %S/Inputs/use-before-definition.mlir --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=0 --mpt-strip-contract-attributes -o %t.out 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not test -e %t.out
// INVALID: use-before-definition.mlir:3:{{[0-9]+}}: error: operand #0 does not dominate this use
// INVALID-NOT: func.func

// One verification, timed as its own line; none after the passes.
// RUN: mpt-opt %s --mpt-strip-contract-attributes --cse --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONCE
// ONCE: StripContractAttributes
// ONCE: CSE
// ONCE: Verify
// ONCE: Output

// --verify-each: a verification after each pass, no final one.
// RUN: mpt-opt %s --mpt-strip-contract-attributes --cse --verify-each --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=EACH
// EACH-NOT: Verify

// No pass: the parser verified what is printed.
// RUN: mpt-opt %s --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE-NOT: Verify

// The output: the step as the passes leave it.
// RUN: mpt-opt %s --mpt-strip-contract-attributes | FileCheck %s
// CHECK-LABEL: func.func @step(
// CHECK: arith.mulf
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
