// --mpt-lower-all-reduce: mpi.allreduce on buffers between
// bufferization.to_buffer / to_tensor; mean sends one more element (1 on
// every rank) and divides by its sum, the number of ranks; a wire type
// rounds the contribution first. The module is marked MPICH for MPIToLLVM,
// and the step lowers to the LLVM dialect with calls into the MPI library.
// RUN: mpt-opt %s --mpt-lower-all-reduce | FileCheck %s
// RUN: mpt-opt %s --mpt-lower-to-cpu | FileCheck %s --check-prefix=LLVM

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// CHECK-LABEL: func.func @mean(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT: %[[EXT:.*]] = tensor.concat dim(0) %[[X]], %[[ONE]] : (tensor<8xf32>, tensor<1xf32>) -> tensor<9xf32>
// CHECK-NEXT: %[[IN:.*]] = bufferization.to_buffer %[[EXT]] read_only : tensor<9xf32> to memref<9xf32>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<9xf32>
// CHECK-NEXT: %[[COMM:.*]] = mpi.comm_world : !mpi.comm
// CHECK-NEXT: mpi.allreduce(%[[IN]], %[[OUT]], MPI_SUM, %[[COMM]]) : memref<9xf32>, memref<9xf32>
// CHECK-NEXT: %[[SUM:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<9xf32> to tensor<9xf32>
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[N:.*]] = tensor.extract %[[SUM]][%[[LAST]]] : tensor<9xf32>
// CHECK-NEXT: %[[VALUES:.*]] = tensor.extract_slice %[[SUM]][0] [8] [1] : tensor<9xf32> to tensor<8xf32>
// CHECK-NEXT: %[[SPLAT:.*]] = tensor.splat %[[N]] : tensor<8xf32>
// CHECK-NEXT: %[[MEAN:.*]] = arith.divf %[[VALUES]], %[[SPLAT]] : tensor<8xf32>
// CHECK-NEXT: return %[[MEAN]]
// LLVM-LABEL: llvm.func @mean(
// LLVM: llvm.call @MPI_Allreduce
func.func @mean(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = mpt.all_reduce mean %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

// CHECK-LABEL: func.func @max_flag(
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_MAX, %{{.*}}) : memref<1xi32>, memref<1xi32>
// CHECK-NOT: tensor.concat
// CHECK: return
func.func @max_flag(%x: tensor<1xi32>) -> tensor<1xi32> {
  %r = mpt.all_reduce max %x : tensor<1xi32>
  return %r : tensor<1xi32>
}

// CHECK-LABEL: func.func @bf16_wire(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>
// CHECK-NEXT: %[[NARROW:.*]] = arith.truncf %[[X]] : tensor<8xf32> to tensor<8xbf16>
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[NARROW]] : tensor<8xbf16> to tensor<8xf32>
// CHECK-NEXT: bufferization.to_buffer %[[WIDE]] read_only
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM,
func.func @bf16_wire(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = mpt.all_reduce sum %x {wire = bf16} : tensor<8xf32>
  return %r : tensor<8xf32>
}
