// Out-of-range options of --mpt-insert-loss-scaling: each one diagnostic
// (options have no source location) and a failing exit, before any
// function is touched.
// RUN: split-file %s %t
// A mode is one of the enum's spellings; llvm::cl rejects any other value
// while parsing the pass options.
// RUN: not mpt-opt %t/mode.mlir --mpt-insert-loss-scaling=mode=always 2>&1 | FileCheck %s --check-prefix=MODE --implicit-check-not=Cannot
// MODE: for the --mode option: Cannot find option named 'always'!
// RUN: mpt-opt %t/init-zero.mlir --verify-diagnostics --mpt-insert-loss-scaling=init-scale=0
// RUN: mpt-opt %t/init-negative.mlir --verify-diagnostics --mpt-insert-loss-scaling=init-scale=-8
// RUN: mpt-opt %t/init-inf.mlir --verify-diagnostics --mpt-insert-loss-scaling=init-scale=inf
// RUN: mpt-opt %t/init-nan.mlir --verify-diagnostics --mpt-insert-loss-scaling=init-scale=nan
// RUN: mpt-opt %t/init-above-fp32.mlir --verify-diagnostics --mpt-insert-loss-scaling=init-scale=1e39
// RUN: mpt-opt %t/growth-one.mlir --verify-diagnostics --mpt-insert-loss-scaling=growth-factor=1
// RUN: mpt-opt %t/growth-below-one.mlir --verify-diagnostics --mpt-insert-loss-scaling=growth-factor=0.5
// RUN: mpt-opt %t/backoff-zero.mlir --verify-diagnostics --mpt-insert-loss-scaling=backoff-factor=0
// RUN: mpt-opt %t/backoff-one.mlir --verify-diagnostics --mpt-insert-loss-scaling=backoff-factor=1
// RUN: mpt-opt %t/growth-rounds-to-one.mlir --verify-diagnostics --mpt-insert-loss-scaling=growth-factor=1.00000001
// RUN: mpt-opt %t/backoff-rounds-to-zero.mlir --verify-diagnostics --mpt-insert-loss-scaling=backoff-factor=1e-50
// RUN: mpt-opt %t/interval-zero.mlir --verify-diagnostics --mpt-insert-loss-scaling=growth-interval=0
// RUN: mpt-opt %t/interval-above-i32.mlir --verify-diagnostics --mpt-insert-loss-scaling=growth-interval=2147483648
// RUN: mpt-opt %t/min-negative.mlir --verify-diagnostics --mpt-insert-loss-scaling=min-scale=-1
// RUN: mpt-opt %t/min-above-init.mlir --verify-diagnostics --mpt-insert-loss-scaling="init-scale=4 min-scale=8"
// RUN: not mpt-opt %t/mode.mlir --mpt-insert-loss-scaling=growth-factor=1 -o /dev/null
// RUN: not mpt-opt %t/mode.mlir --mpt-insert-loss-scaling="mode=none growth-factor=1" -o /dev/null

//--- mode.mlir
func.func @f() { return }
//--- init-zero.mlir
// expected-error@unknown {{mpt-insert-loss-scaling: init-scale must be finite, > 0 and at most the FP32 maximum, got 0}}
func.func @f() { return }
//--- init-negative.mlir
// expected-error@unknown {{init-scale must be finite, > 0 and at most the FP32 maximum, got -8}}
func.func @f() { return }
//--- init-inf.mlir
// expected-error@unknown {{init-scale must be finite, > 0 and at most the FP32 maximum, got inf}}
func.func @f() { return }
//--- init-nan.mlir
// expected-error@unknown {{init-scale must be finite, > 0 and at most the FP32 maximum, got nan}}
func.func @f() { return }
//--- init-above-fp32.mlir
// expected-error@unknown {{init-scale must be finite, > 0 and at most the FP32 maximum, got 1e+39}}
func.func @f() { return }
//--- growth-one.mlir
// expected-error@unknown {{growth-factor must be finite and > 1 in FP32, got 1}}
func.func @f() { return }
//--- growth-below-one.mlir
// expected-error@unknown {{growth-factor must be finite and > 1 in FP32, got 0.5}}
func.func @f() { return }
//--- backoff-zero.mlir
// expected-error@unknown {{backoff-factor must be in (0, 1) in FP32, got 0}}
func.func @f() { return }
//--- backoff-one.mlir
// expected-error@unknown {{backoff-factor must be in (0, 1) in FP32, got 1}}
func.func @f() { return }
//--- growth-rounds-to-one.mlir
// expected-error@unknown {{growth-factor must be finite and > 1 in FP32, got 1}}
func.func @f() { return }
//--- backoff-rounds-to-zero.mlir
// expected-error@unknown {{backoff-factor must be in (0, 1) in FP32, got 1e-50}}
func.func @f() { return }
//--- interval-zero.mlir
// expected-error@unknown {{growth-interval must be in [1, 2^31-1] (the tracker is an i32), got 0}}
func.func @f() { return }
//--- interval-above-i32.mlir
// expected-error@unknown {{growth-interval must be in [1, 2^31-1] (the tracker is an i32), got 2147483648}}
func.func @f() { return }
//--- min-negative.mlir
// expected-error@unknown {{min-scale must be finite and >= 0, got -1}}
func.func @f() { return }
//--- min-above-init.mlir
// expected-error@unknown {{min-scale (8) must not exceed init-scale (4)}}
func.func @f() { return }
