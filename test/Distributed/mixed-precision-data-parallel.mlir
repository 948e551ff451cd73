// --mpt-mixed-precision="data-parallel=true" places --mpt-data-parallel
// after loss scaling and before its lowering: the gradients are all-reduced
// (one bucket, 676 values and the rank count), then loss scaling's
// found-inf flag with MPI_MAX, and only then do the selects that skip the
// update read it; the loss is all-reduced last. Without the option the
// pipeline inserts no collective.
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="data-parallel=true" | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="data-parallel=true reduce-dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision | FileCheck %s --check-prefix=PLAIN

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// CHECK-LABEL: func.func @mlp_step(
// CHECK-SAME: attributes {mpt.data_parallel = "f32", mpt.loss_scaling = "dynamic"}
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<677xf32>, memref<677xf32>
// CHECK-NOT: arith.select {{.*}} : tensor<16x32xf32>
// CHECK: mpi.allreduce(%{{.*}}, %[[FLAG:.*]], MPI_MAX, %{{.*}}) : memref<1xi32>, memref<1xi32>
// CHECK-NOT: mpi.allreduce
// CHECK: %[[W:.*]] = arith.select %[[SKIP:.*]], %arg0, %{{.*}} : tensor<16x32xf32>
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<2xf32>, memref<2xf32>
// CHECK-NOT: mpi.allreduce
// CHECK: return %{{.*}}, %[[W]],

// reduce-dtype=bf16: the bucket travels as bf16 bits in a ring of sends and
// receives of i16 (after a 4-byte all-reduce that counts the ranks); the
// found-inf flag and the loss still take MPI_Allreduce.
// BF16-LABEL: func.func @mlp_step(
// BF16-SAME: mpt.data_parallel = "bf16"
// BF16: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<1xi32>, memref<1xi32>
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: mpi.send(%{{.*}}) : memref<?xi16>, i32, i32
// BF16: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_MAX, %{{.*}}) : memref<1xi32>, memref<1xi32>
// BF16: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<2xf32>, memref<2xf32>
// BF16-NOT: memref<677xf32>

// PLAIN-NOT: dlti.map
// PLAIN-LABEL: func.func @mlp_step(
// PLAIN-NOT: mpt.data_parallel
// PLAIN-NOT: mpi.
