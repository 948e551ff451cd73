// With FP8 delayed scaling (docs/FP8.md), --mpt-data-parallel maxes this
// step's amaxes over the ranks right after they are gathered, before the
// step records them in its amax history and computes the next scales from
// them: every rank keeps the same history and scales (test/Distributed/
// mpi-fp8.test runs it). The amax vector of the MLP's 6 FP8 tensors is one
// 24-byte MPI_Allreduce with MPI_MAX.
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast="dtype=fp8" --mpt-data-parallel | FileCheck %s
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast="dtype=fp8 amax-compute=most_recent amax-history-len=1" --mpt-data-parallel | FileCheck %s --check-prefix=RECENT
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-mixed-precision="dtype=fp8 data-parallel=true" | FileCheck %s --check-prefix=MPI
// Without data parallelism nothing is reduced.
// RUN: mpt-opt %mpt_src/examples/mlp/mlp_step.mlir --mpt-autocast="dtype=fp8" | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: func.func @mlp_step(
// CHECK-SAME: %[[H:[^:]*]]: tensor<1024x6xf32> {mpt.initial_value = 0.000000e+00 : f32, mpt.role = "fp8_amax_history"}
// CHECK: %[[A:.*]] = tensor.from_elements {{.*}} : tensor<6xf32>
// CHECK-NEXT: %[[R:.*]] = mpt.all_reduce max %[[A]] : tensor<6xf32>
// CHECK-NEXT: tensor.insert_slice %[[R]] into %[[H]][0, 0] [1, 6] [1, 1]
// CHECK-NOT: %[[A]]
// CHECK: tensor.insert_slice %[[R]] into %{{.*}}[1023, 0] [1, 6] [1, 1]

// RECENT-LABEL: func.func @mlp_step(
// RECENT: %[[A:.*]] = tensor.from_elements {{.*}} : tensor<6xf32>
// RECENT-NEXT: %[[R:.*]] = mpt.all_reduce max %[[A]] : tensor<6xf32>
// RECENT-NOT: %[[A]]
// RECENT: linalg.generic {{.*}} ins(%[[R]], %{{.*}}, %{{.*}} : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)

// MPI-LABEL: func.func @mlp_step(
// MPI: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_MAX, %{{.*}}) : memref<6xf32>, memref<6xf32>

// PLAIN-NOT: mpt.all_reduce
