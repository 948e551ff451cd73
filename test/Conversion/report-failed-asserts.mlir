// RUN: mpt-opt %s --split-input-file --mpt-report-failed-asserts=handler=on_failed_check | FileCheck %s

// Each cf.assert becomes a call of the handler under the negated condition,
// with the message and its location in a private constant global
// ("index must be smaller than dim size (step.py:3:5)", NUL-terminated); an
// assert in a loop is rewritten where it is. The asserts carry explicit
// locations so the message does not depend on where the test file lies (a
// longer path makes the printer switch to hex beyond 100 bytes).

// CHECK: func.func private @on_failed_check(memref<?xi8>)
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[ID:.*]]: index, %[[N:.*]]: index)
// CHECK:       %[[OK:.*]] = arith.cmpi ult, %[[ID]], %[[N]]
// CHECK:       %[[FAILED:.*]] = arith.xori %[[OK]], %true
// CHECK:       scf.if %[[FAILED]] {
// CHECK-NEXT:    %[[TEXT:.*]] = memref.get_global @__mpt_assert_message : memref<[[LEN:[0-9]+]]xi8>
// CHECK-NEXT:    %[[DYN:.*]] = memref.cast %[[TEXT]] : memref<[[LEN]]xi8> to memref<?xi8>
// CHECK-NEXT:    func.call @on_failed_check(%[[DYN]]) : (memref<?xi8>) -> ()
// CHECK-NEXT:  }
// CHECK-NOT:   cf.assert
// CHECK-LABEL: func.func @in_loop
// CHECK:       scf.for
// CHECK:         scf.if
// CHECK:           memref.get_global @__mpt_assert_message_0
// CHECK:           func.call @on_failed_check
// CHECK-NOT:   cf.assert
// CHECK: memref.global "private" constant @__mpt_assert_message : memref<50xi8> = dense<[105, 110, 100, 101, 120, 32, 109, 117, 115, 116, 32, 98, 101, 32, 115, 109, 97, 108, 108, 101, 114, 32, 116, 104, 97, 110, 32, 100, 105, 109, 32, 115, 105, 122, 101, 32, 40, 115, 116, 101, 112, 46, 112, 121, 58, 51, 58, 53, 41, 0]>
// CHECK: memref.global "private" constant @__mpt_assert_message_0
func.func @gather(%id: index, %n: index) {
  %ok = arith.cmpi ult, %id, %n : index
  cf.assert %ok, "index must be smaller than dim size" loc("step.py":3:5)
  return
}
func.func @in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %ok = arith.cmpi ult, %i, %n : index
    cf.assert %ok, "in range" loc("step.py":9:7)
  }
  return
}

// -----

// A module without asserts is left alone (and needs no handler).
// CHECK-LABEL: func.func @no_checks
// CHECK-NOT: func.func private
// CHECK-NOT: memref.global
func.func @no_checks() {
  return
}
