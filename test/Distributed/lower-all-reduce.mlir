// --mpt-lower-all-reduce: mpi.allreduce on buffers between
// bufferization.to_buffer / to_tensor; mean sends one more element (1 on
// every rank) and divides by its sum, the number of ranks; a wire type
// is a ring of 16-bit sends and receives (below). The module is marked MPICH for MPIToLLVM,
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

// A wire type: a ring of mpi.send / mpi.recv of the 16-bit bits (i16),
// after a 4-byte MPI_SUM of 1 that counts the ranks: mean divides each
// contribution by the rank count first (f32), the reduce-scatter rounds
// what it sends and adds what it receives in f32, the all-gather passes the
// rounded sums on.
// CHECK-LABEL: func.func @bf16_wire(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<8xf32> to memref<8xf32>
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<1xi32>, memref<1xi32>
// CHECK: %[[RANKS:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK: scf.for
// CHECK: arith.divf %{{.*}}, %[[RANKS]] : f32
// CHECK: scf.for
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: scf.if
// CHECK-NEXT: mpi.send(%{{.*}}) : memref<?xi16>, i32, i32
// CHECK-NEXT: mpi.recv(%{{.*}}) : memref<?xi16>, i32, i32
// CHECK-NEXT: } else {
// CHECK-NEXT: mpi.recv
// CHECK-NEXT: mpi.send
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: arith.addf
// CHECK: scf.for
// CHECK: mpi.send(%{{.*}}) : memref<?xi16, strided<[1], offset: ?>>, i32, i32
// CHECK-NOT: arith.divf
// CHECK: %[[R:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<8xf32> to tensor<8xf32>
// CHECK-NEXT: return %[[R]]
// The messages are MPI_INT16_T (MPICH: 0x4c000238 = 1275068984).
// LLVM-LABEL: llvm.func @bf16_wire(
// LLVM: %[[I16:.*]] = llvm.mlir.constant(1275068984 : i32) : i32
// LLVM: llvm.call @MPI_Allreduce
// LLVM: llvm.call @MPI_Comm_rank
// LLVM: llvm.call @MPI_Send(%{{.*}}, %{{.*}}, %[[I16]],
// LLVM: llvm.call @MPI_Recv(%{{.*}}, %{{.*}}, %[[I16]],
func.func @bf16_wire(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = mpt.all_reduce mean %x {wire = bf16} : tensor<8xf32>
  return %r : tensor<8xf32>
}
