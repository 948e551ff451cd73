// Sizes that do not fit in 64 bits are reported as "too large", never as a
// wrapped number (2^62 f32 elements used to print 0 B, and JSON -4).
// RUN: mpt-opt %s --mpt-training-graph-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: mpt-opt %s --mpt-training-graph-report="format=json output=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json

// TEXT: params {{ *}}too large B  (f32: too large, i8: 9223372036854775807)
// TEXT: total {{ *}}too large B
// JSON: "params": {
// JSON-NEXT: "bytes_by_type": {
// JSON-NEXT: "f32": "too large"
// JSON: "total_bytes": "too large"

func.func @huge(%w: tensor<4611686018427387904xf32> {mpt.role = "param"},
                %v: tensor<9223372036854775807xi8> {mpt.role = "param"})
    -> (tensor<f32> {mpt.role = "loss"}) {
  %l = arith.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
