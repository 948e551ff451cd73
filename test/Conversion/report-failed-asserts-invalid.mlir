// RUN: mpt-opt %s --split-input-file --verify-diagnostics --mpt-report-failed-asserts=handler=taken_name

// The handler's name belongs to a function of another type.
// expected-error @+1 {{'taken_name' is the failed-assert handler's name; it must be a function of type '(memref<?xi8>) -> ()'}}
func.func private @taken_name(i32)
func.func @check(%ok: i1) {
  cf.assert %ok, "checked"
  return
}
