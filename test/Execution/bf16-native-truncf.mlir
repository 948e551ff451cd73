// With AVX512-BF16, mpt-run lowers with expand-bf16=0: LLVM turns an
// f32 -> bf16 truncf into vcvtneps2bf16 instead of arith-expand's integer
// rounding. Both round to nearest even; the values below (ties to even
// both ways, the largest values that round to the largest bf16 and to
// infinity, infinities, a NaN, signed zeros, a normal near the bottom of
// the range) must give the same bf16 bits, vector and scalar. f32
// denormals are where they differ (the instruction flushes them to zero):
// that case is printed apart.
// REQUIRES: avx512bf16
// RUN: mpt-opt %s --mpt-lower-to-cpu="expand-bf16=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs > %t.native
// RUN: mpt-opt %s --mpt-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs > %t.expanded
// RUN: head -n 17 %t.native > %t.native.normal
// RUN: head -n 17 %t.expanded > %t.expanded.normal
// RUN: diff %t.native.normal %t.expanded.normal
// RUN: FileCheck %s --check-prefix=NATIVE < %t.native
// RUN: FileCheck %s --check-prefix=EXPANDED < %t.expanded
// NATIVE: 16256
// NATIVE-NEXT: 16258
// NATIVE-NEXT: 16256
// NATIVE-NEXT: -16446
// NATIVE-NEXT: 32639
// NATIVE-NEXT: 32640
// NATIVE-NEXT: 32640
// NATIVE-NEXT: -128
// NATIVE-NEXT: 32640
// NATIVE-NEXT: 128
// NATIVE-NEXT: 0
// NATIVE-NEXT: -32768
// NATIVE-NEXT: 32704
// NATIVE-NEXT: 32640
// NATIVE-NEXT: 16256
// NATIVE-NEXT: 16384
// NATIVE-NEXT: 16258
// NATIVE-NEXT: 0
// The same bits, but the denormal:
// EXPANDED-COUNT-17: {{-?[0-9]+}}
// EXPANDED-NEXT: 1

// Opaque to LLVM (public, not inlined): the conversions below must run,
// not be folded at compile time.
func.func @opaque(%x: vector<16xf32>) -> vector<16xf32> attributes {passthrough = ["noinline"]} {
  return %x : vector<16xf32>
}

func.func @main() {
  // 1 + 2^-8 (tie: even is 1), 1 + 3 * 2^-8 (tie: even is 1 + 2^-6),
  // 1 + 2^-9, -(1.5 + 2^-7 + 2^-8) (tie: even is -(1.5 + 2^-6), 0xBFC2), 0x7F7F7FFF (below the halfway point:
  // the largest bf16), 0x7F7FFFFF (rounds up to infinity), +inf, -inf,
  // 3.4e38 (0x7F7FC99E: infinity), 2^-126 (smallest normal), 0, -0, NaN,
  // 0x7F7F8000 (tie above the largest: infinity), 1, 2.
  %v = arith.constant dense<[0x3F808000, 0x3F818000, 0x3F804000, 0xBFC18000,
                             0x7F7F7FFF, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
                             0x7F7FC99E, 0x00800000, 0x00000000, 0x80000000,
                             0x7FC00000, 0x7F7F8000, 0x3F800000, 0x40000000]> : vector<16xf32>
  %vo = func.call @opaque(%v) : (vector<16xf32>) -> vector<16xf32>
  %t = arith.truncf %vo : vector<16xf32> to vector<16xbf16>
  %b = arith.bitcast %t : vector<16xbf16> to vector<16xi16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = vector.extract %b[%i] : i16 from vector<16xi16>
    vector.print %x : i16
  }
  // Scalar.
  %sv = arith.constant dense<0x3F818000> : vector<16xf32>
  %so = func.call @opaque(%sv) : (vector<16xf32>) -> vector<16xf32>
  %s = vector.extract %so[0] : f32 from vector<16xf32>
  %ts = arith.truncf %s : f32 to bf16
  %bs = arith.bitcast %ts : bf16 to i16
  vector.print %bs : i16
  // A denormal f32 (2^-133, the smallest bf16 denormal): the expansion
  // keeps it (bits 1), the instruction flushes it to zero.
  %d = arith.constant 0x00010000 : f32
  %dv = vector.broadcast %d : f32 to vector<16xf32>
  %do = func.call @opaque(%dv) : (vector<16xf32>) -> vector<16xf32>
  %td = arith.truncf %do : vector<16xf32> to vector<16xbf16>
  %bd = arith.bitcast %td : vector<16xbf16> to vector<16xi16>
  %e = vector.extract %bd[0] : i16 from vector<16xi16>
  vector.print %e : i16
  return
}
