// RUN: mpt-opt %s --verify-diagnostics --mpt-outline-chunks=max-ops=0

// A chunk of at most zero ops cannot hold anything.
// expected-error@+1 {{mpt-outline-chunks: max-ops must be positive}}
module {
  func.func @f() {
    return
  }
}
