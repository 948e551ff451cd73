// --mpt-vectorize-cpu-loops approximate-math=1 (what mpt-run sets on the
// AMX and AVX-512 paths): exp, erf and tanh on vectors are upstream's
// polynomial approximations (math-polynomial-approximation) instead of one
// libm call per lane, so they are not bit-identical to libm. This test
// measures, against libm (the same functions in scalar loops, which keep
// libm), the largest error over 20480 points, and checks the bounds
// below: relative error for exp, absolute error for erf and tanh (whose
// values lie in [-1, 1]; near 0 they follow x, where the relative error
// is what the bound on |x| small gives). The bounds are a few units of f32
// rounding (2^-24 = 6.0e-8): the approximations are accurate to a few ulp,
// far below bf16's rounding (2^-9) that a bf16 step adds anyway.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops{approximate-math=1}))" \
// RUN:   | mpt-opt --mpt-lower-to-cpu="deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops{approximate-math=1}))" \
// RUN:   | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @vector_math
// IR-NOT: math.exp
// IR-NOT: math.erf
// IR-NOT: math.tanh
// IR-LABEL: func.func @scalar_math

#id = affine_map<(i) -> (i)>
!v = memref<20480xf32>

func.func @vector_math(%x: !v, %e: !v, %f: !v, %t: !v) {
  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
    ins(%x : !v) outs(%e, %f, %t : !v, !v, !v) {
  ^bb0(%a: f32, %o0: f32, %o1: f32, %o2: f32):
    %0 = math.exp %a : f32
    %1 = math.erf %a : f32
    %2 = math.tanh %a : f32
    linalg.yield %0, %1, %2 : f32, f32, f32
  }
  return
}

// libm, in scalar loops the pass does not touch.
func.func @scalar_math(%x: !v, %e: !v, %f: !v, %t: !v) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 20480 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : !v
    %0 = math.exp %a : f32
    %1 = math.erf %a : f32
    %2 = math.tanh %a : f32
    memref.store %0, %e[%i] : !v
    memref.store %1, %f[%i] : !v
    memref.store %2, %t[%i] : !v
  }
  return
}

// max over i of |a - b| / (|b| if relative, else 1)
func.func @maxerr(%a: !v, %b: !v, %relative: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 20480 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : !v
    %y = memref.load %b[%i] : !v
    %d = arith.subf %x, %y : f32
    %ad = math.absf %d : f32
    %ay = math.absf %y : f32
    %s = arith.select %relative, %ay, %one : f32
    %r = arith.divf %ad, %s : f32
    %nm = arith.maximumf %acc, %r : f32
    scf.yield %nm : f32
  }
  return %m : f32
}

// x from -80 to 80 in steps of 1/128 (exp up to e^80, below f32's max).
// Measured here: exp 1.2e-7 relative, erf 1.8e-7 and tanh 2.4e-7 absolute.
// Bounds: exp 4 u = 2.4e-7 relative, erf 6 u = 3.6e-7 and tanh 8 u = 4.8e-7
// absolute (u = 2^-24); each case prints 1 if within its bound.
// CHECK: 1
// CHECK-NEXT: 1
// CHECK-NEXT: 1
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 20480 : index
  %x = memref.alloc() : !v
  %step = arith.constant 7.8125e-3 : f32
  %start = arith.constant -80.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %s = arith.mulf %fi, %step : f32
    %v = arith.addf %start, %s : f32
    memref.store %v, %x[%i] : !v
  }
  %e0 = memref.alloc() : !v
  %f0 = memref.alloc() : !v
  %t0 = memref.alloc() : !v
  %e1 = memref.alloc() : !v
  %f1 = memref.alloc() : !v
  %t1 = memref.alloc() : !v
  call @vector_math(%x, %e0, %f0, %t0) : (!v, !v, !v, !v) -> ()
  call @scalar_math(%x, %e1, %f1, %t1) : (!v, !v, !v, !v) -> ()
  %true = arith.constant true
  %false = arith.constant false
  %re = call @maxerr(%e0, %e1, %true) : (!v, !v, i1) -> f32
  %af = call @maxerr(%f0, %f1, %false) : (!v, !v, i1) -> f32
  %at = call @maxerr(%t0, %t1, %false) : (!v, !v, i1) -> f32
  %be = arith.constant 2.4e-7 : f32
  %bf = arith.constant 3.6e-7 : f32
  %bt = arith.constant 4.8e-7 : f32
  %oke = arith.cmpf ole, %re, %be : f32
  %okf = arith.cmpf ole, %af, %bf : f32
  %okt = arith.cmpf ole, %at, %bt : f32
  vector.print %oke : i1
  vector.print %okf : i1
  vector.print %okt : i1
  return
}
