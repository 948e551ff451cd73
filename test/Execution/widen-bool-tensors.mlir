// --mpt-widen-bool-tensors in --mpt-lower-to-cpu (vectorize=1): a mask that
// one op computes and two read (as a max pool's backward does) is kept as
// bytes, so all three ops are vectorized instead of staying scalar loops.
// The values must be the generic path's, bit for bit (`diff`): the mask is
// the same 0/1 either way. Inputs are sines over a ragged length (37: vectors
// of 16 and shorter remainders); the CHECK pins the first row's pattern so
// that the test fails if both paths went wrong alike.
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.vec
// Results do not depend on the vector length: 8 lanes (AVX2's f32 width) too.
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 vector-lanes=8 deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.vec8
// RUN: mpt-opt %s --mpt-lower-to-cpu="deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.vec %t.loops
// RUN: diff %t.vec8 %t.loops
// RUN: FileCheck %s < %t.vec
// The mask's ops are vectorized: bytes in, bytes out. The lowering outlines
// ops into functions and the dumps after a function pass come in the order
// the threads finish them, so the dump runs on one thread (module order).
// RUN: mpt-opt %s --mpt-lower-to-cpu="vectorize=1 deallocate=0" \
// RUN:   --mlir-disable-threading \
// RUN:   --mlir-print-ir-after=mpt-vectorize-cpu-loops -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=IR

// sin(1..5) > 0, sin(4..6) < 0: the first row of the mask is 1 1 1 0 0 0 1.
// CHECK: mask
// CHECK-NEXT: Unranked Memref
// CHECK-NEXT: [{{\[}}1,  1,  1,  0,  0,  0,  1,
// IR: arith.extui {{.*}} : vector<16xi1> to vector<16xi8>
// IR: vector.transfer_write {{.*}} : vector<16xi8>, memref<16xi8
// IR: vector.transfer_read {{.*}} : memref<16xi8{{.*}}>, vector<16xi8>
// IR: arith.trunci {{.*}} : vector<16xi8> to vector<16xi1>

#id = affine_map<(i, j) -> (i, j)>

func.func private @printMemrefI32(memref<*xi32>)

func.func @masks(%xm: memref<4x37xf32>, %relum: memref<4x37xf32>,
                 %countm: memref<4x37xi32>) {
  %x = bufferization.to_tensor %xm restrict : memref<4x37xf32> to tensor<4x37xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x37xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x37xf32>) outs(%e1 : tensor<4x37xi1>) {
  ^bb0(%a: f32, %o: i1):
    %p = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %p : i1
  } -> tensor<4x37xi1>
  %e2 = tensor.empty() : tensor<4x37xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %x : tensor<4x37xi1>, tensor<4x37xf32>) outs(%e2 : tensor<4x37xf32>) {
  ^bb0(%m: i1, %a: f32, %o: f32):
    %s = arith.select %m, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x37xf32>
  %e3 = tensor.empty() : tensor<4x37xi32>
  %count = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask : tensor<4x37xi1>) outs(%e3 : tensor<4x37xi32>) {
  ^bb0(%m: i1, %o: i32):
    %f = arith.extui %m : i1 to i32
    linalg.yield %f : i32
  } -> tensor<4x37xi32>
  bufferization.materialize_in_destination %relu in restrict writable %relum
      : (tensor<4x37xf32>, memref<4x37xf32>) -> ()
  bufferization.materialize_in_destination %count in restrict writable %countm
      : (tensor<4x37xi32>, memref<4x37xi32>) -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c37 = arith.constant 37 : index
  %x = memref.alloc() : memref<4x37xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c37 step %c1 {
      %k0 = arith.muli %i, %c37 : index
      %k1 = arith.addi %k0, %j : index
      %k2 = arith.addi %k1, %c1 : index
      %ki = arith.index_cast %k2 : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      %s = math.sin %kf : f32
      memref.store %s, %x[%i, %j] : memref<4x37xf32>
    }
  }
  %relu = memref.alloc() : memref<4x37xf32>
  %count = memref.alloc() : memref<4x37xi32>
  call @masks(%x, %relu, %count) : (memref<4x37xf32>, memref<4x37xf32>, memref<4x37xi32>) -> ()
  vector.print str "mask\n"
  %u0 = memref.cast %count : memref<4x37xi32> to memref<*xi32>
  call @printMemrefI32(%u0) : (memref<*xi32>) -> ()
  vector.print str "relu bits\n"
  %bits = memref.alloc() : memref<4x37xi32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c37 step %c1 {
      %v = memref.load %relu[%i, %j] : memref<4x37xf32>
      %b = arith.bitcast %v : f32 to i32
      memref.store %b, %bits[%i, %j] : memref<4x37xi32>
    }
  }
  %u1 = memref.cast %bits : memref<4x37xi32> to memref<*xi32>
  call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
  return
}
