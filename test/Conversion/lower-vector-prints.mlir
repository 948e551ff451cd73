// RUN: mpt-opt %s --split-input-file --mpt-lower-vector-prints | FileCheck %s
// RUN: mpt-opt %s --split-input-file --mpt-lower-vector-prints | grep -c "llvm.func @printF32" | FileCheck %s --check-prefix=ONCE
// ONCE: {{^}}1{{$}}

// Every vector.print (scalars and punctuation: convert-vector-to-scf has
// taken vectors apart) becomes calls of its runtime functions, declared once
// in the module; the other vector ops are left to convert-vector-to-llvm
// (--mpt-lower-to-cpu runs that on the functions in parallel, which raced
// on these declarations).

// CHECK-DAG: llvm.func @printF32(f32)
// CHECK-DAG: llvm.func @printNewline()
// CHECK-LABEL: func.func @first
// CHECK-NOT: vector.print
// CHECK: llvm.call @printOpen()
// CHECK: llvm.call @printF32(
// CHECK: llvm.call @printClose()
// CHECK: llvm.call @printNewline()
// CHECK: vector.extract
func.func @first(%v: vector<2xf32>) -> f32 {
  %x = vector.extract %v[1] : f32 from vector<2xf32>
  vector.print punctuation <open>
  vector.print %x : f32 punctuation <no_punctuation>
  vector.print punctuation <close>
  vector.print punctuation <newline>
  %e = vector.extract %v[0] : f32 from vector<2xf32>
  return %e : f32
}

// CHECK-LABEL: func.func @second
// CHECK-NOT: vector.print
// CHECK: llvm.call @printF32(
// CHECK: llvm.call @printString(
func.func @second(%x: f32) {
  vector.print %x : f32
  vector.print str "done\n"
  return
}

// CHECK-LABEL: func.func @unprinted
// CHECK-NEXT: vector.broadcast
func.func @unprinted(%x: f32) -> vector<4xf32> {
  %b = vector.broadcast %x : f32 to vector<4xf32>
  return %b : vector<4xf32>
}

// -----

// A module without prints is left as it is.
// CHECK-LABEL: func.func @no_prints
// CHECK-NEXT: vector.broadcast
// CHECK-NOT: llvm.func
func.func @no_prints(%x: f32) -> vector<4xf32> {
  %b = vector.broadcast %x : f32 to vector<4xf32>
  return %b : vector<4xf32>
}
