// RUN: mpt-opt %s --verify-diagnostics --mpt-report-failed-asserts

// Without a handler: one error, at the first assert.
func.func @unhandled(%ok: i1) {
  // expected-error @below {{mpt-report-failed-asserts needs handler=NAME (the host function that reports a failed cf.assert)}}
  cf.assert %ok, "checked"
  cf.assert %ok, "checked again"
  return
}
