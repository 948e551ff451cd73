// --mpt-vectorize-cpu-loops with parallel=1 on the ops that the earlier
// parallel tiling left on one thread:
// - a reduction whose parallel loop is not outermost (BatchNorm's per-channel
//   sum over [N, C, H, W]): the channel loop is moved outside the reductions
//   and becomes the scf.parallel; each channel adds its terms in the same
//   order as before;
// - a column sum (reductions outside the innermost, parallel loop: a bias
//   gradient): its columns in blocks of 16 become the scf.parallel, each
//   block summing all rows in order;
// - ops that stay scalar loops: one with i1 operands (a max-pool backward's
//   mask), a max pooling window: their outer parallel loops become an
//   scf.parallel around the rest of the op.
// Every element is computed by the same scalar operations in the same order,
// so two threads must print the bit patterns of the scalar loops on one
// (`diff`, no tolerance). The inputs are sines (inexact: a change of
// summation order would show in the last bits). The CHECK lines pin three
// values computed by hand so that the test fails if both runs went wrong
// alike.
// REQUIRES: openmp
// RUN: mpt-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops{parallel=1 parallel-min=1}))" \
// RUN:   | mpt-opt --mpt-lower-to-cpu="parallel=1 deallocate=0" \
// RUN:   | env OMP_NUM_THREADS=2 mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_libs,%omp_runtime \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.par
// RUN: mpt-opt %s --mpt-lower-to-cpu="deallocate=0" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | sed -e 's/base@ = [0-9a-fx]*//' > %t.loops
// RUN: diff %t.par %t.loops
// RUN: FileCheck %s < %t.par
// RUN: mpt-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops{parallel=1 parallel-min=1}))" \
// RUN:   | FileCheck %s --check-prefix=IR
// Without parallel=1 nothing changes: the channel loop stays inside.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-vectorize-cpu-loops))" \
// RUN:   | FileCheck %s --check-prefix=SERIAL

// Pinned: the mask's first row of batch 1 (x[1, 0, 0, :5] = sin(4441..4445):
// -, -, +, +, +) and the first pooled value, max(sin) over x[0, 0, :3, :3] =
// sin(77) (bits 1065345166).
// CHECK: channel sums
// CHECK: column sums
// CHECK: mask
// CHECK: {{\[\[\[0, +0, +1, +1, +1,}}
// CHECK: pooled
// CHECK-NEXT: Unranked Memref
// CHECK-NEXT: [1065345166,

#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (c)>

func.func private @printMemrefI32(memref<*xi32>)

// IR-LABEL: func.func @channel_sums
// The channel loop (24) is the scf.parallel, the reductions run inside it in
// their order (n, h, then w by vectors).
// IR: scf.parallel (%{{.*}}) = (%c0) to (%c24) step (%c1) {
// IR-NEXT: scf.for %{{.*}} = %c0 to %c3 step %c1
// IR: vector.reduction <add>
// SERIAL-LABEL: func.func @channel_sums
// SERIAL-NOT: scf.parallel
// SERIAL: scf.for %{{.*}} = %c0 to %c3 step %c1
// SERIAL-NEXT: scf.for %{{.*}} = %c0 to %c24 step %c1
func.func @channel_sums(%x: memref<3x24x5x37xf32>, %sum: memref<24xf32>) {
  linalg.generic {indexing_maps = [#nchw, #chan],
                  iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : memref<3x24x5x37xf32>) outs(%sum : memref<24xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// IR-LABEL: func.func @column_sums
// IR: scf.parallel (%{{.*}}) = (%c0) to (%c48) step (%c16) {
// IR-NEXT: memref.subview
// IR: scf.for %{{.*}} = %c0 to %c3 step %c1
// IR-NEXT: scf.for %{{.*}} = %c0 to %c5 step %c1
// IR: arith.addf {{.*}} : vector<16xf32>
// SERIAL-LABEL: func.func @column_sums
// SERIAL-NOT: scf.parallel
// SERIAL-LABEL: func.func @mask
func.func @column_sums(%x: memref<3x5x48xf32>, %sum: memref<48xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (d)>],
                  iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%x : memref<3x5x48xf32>) outs(%sum : memref<48xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// IR-LABEL: func.func @mask
// The i1 op stays scalar: its n, c and h loops (360 chunks) run in parallel.
// IR: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0{{.*}}, %c0{{.*}}, %c0{{.*}}) to (%c3, %c24, %c5)
// IR: linalg.generic
// IR-SAME: memref<1x1x1x37xi1
func.func @mask(%x: memref<3x24x5x37xf32>, %first: memref<3x24x5x37xi1>,
                %mask: memref<3x24x5x37xi1>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#nchw, #nchw, #nchw],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %first : memref<3x24x5x37xf32>, memref<3x24x5x37xi1>)
      outs(%mask : memref<3x24x5x37xi1>) {
  ^bb0(%a: f32, %f: i1, %o: i1):
    %p = arith.cmpf ogt, %a, %zero : f32
    %m = arith.ori %p, %f : i1
    linalg.yield %m : i1
  }
  return
}

// IR-LABEL: func.func @pool
// The chunks are (n, c): the output rows read windows (oh + kh), which would
// tile to dynamic slices.
// IR: scf.parallel (%{{.*}}, %{{.*}}) = (%c0{{.*}}, %c0{{.*}}) to (%c3, %c24)
// IR-NOT: affine.min
// IR: linalg.pooling_nchw_max
// IR-SAME: memref<1x1x5x37xf32
func.func @pool(%x: memref<3x24x5x37xf32>, %out: memref<3x24x3x35xf32>) {
  %window = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %window : memref<3x24x5x37xf32>, memref<3x3xf32>)
      outs(%out : memref<3x24x3x35xf32>)
  memref.dealloc %window : memref<3x3xf32>
  return
}

func.func @printBits(%m: memref<*xf32>) {
  %r = memref.cast %m : memref<*xf32> to memref<?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %r, %c0 : memref<?xf32>
  %bits = memref.alloc(%n) : memref<?xi32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
    ins(%r : memref<?xf32>) outs(%bits : memref<?xi32>) {
  ^bb0(%a: f32, %o: i32):
    %b = arith.bitcast %a : f32 to i32
    linalg.yield %b : i32
  }
  %u = memref.cast %bits : memref<?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  memref.dealloc %bits : memref<?xi32>
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c24 = arith.constant 24 : index
  %c37 = arith.constant 37 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %x = memref.alloc() : memref<3x24x5x37xf32>
  %first = memref.alloc() : memref<3x24x5x37xi1>
  // x[n, c, h, w] = sin(linear index + 1); first = (n == 0).
  scf.for %n = %c0 to %c3 step %c1 {
    scf.for %c = %c0 to %c24 step %c1 {
      scf.for %h = %c0 to %c5 step %c1 {
        scf.for %w = %c0 to %c37 step %c1 {
          %k0 = arith.muli %n, %c24 : index
          %k1 = arith.addi %k0, %c : index
          %k2 = arith.muli %k1, %c5 : index
          %k3 = arith.addi %k2, %h : index
          %k4 = arith.muli %k3, %c37 : index
          %k5 = arith.addi %k4, %w : index
          %k6 = arith.addi %k5, %c1 : index
          %ki = arith.index_cast %k6 : index to i64
          %kf = arith.sitofp %ki : i64 to f32
          %s = math.sin %kf : f32
          memref.store %s, %x[%n, %c, %h, %w] : memref<3x24x5x37xf32>
          %isFirst = arith.cmpi eq, %n, %c0 : index
          memref.store %isFirst, %first[%n, %c, %h, %w] : memref<3x24x5x37xi1>
        }
      }
    }
  }
  %sum = memref.alloc() : memref<24xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<24xf32>)
  call @channel_sums(%x, %sum) : (memref<3x24x5x37xf32>, memref<24xf32>) -> ()
  // The first 720 elements of x as [3, 5, 48].
  %xFlat = memref.collapse_shape %x [[0, 1, 2, 3]] : memref<3x24x5x37xf32> into memref<13320xf32>
  %xHead = memref.subview %xFlat[0] [720] [1] : memref<13320xf32> to memref<720xf32, strided<[1]>>
  %x3 = memref.expand_shape %xHead [[0, 1, 2]] output_shape [3, 5, 48] : memref<720xf32, strided<[1]>> into memref<3x5x48xf32>
  %x3c = memref.alloc() : memref<3x5x48xf32>
  memref.copy %x3, %x3c : memref<3x5x48xf32> to memref<3x5x48xf32>
  %colSum = memref.alloc() : memref<48xf32>
  linalg.fill ins(%zero : f32) outs(%colSum : memref<48xf32>)
  call @column_sums(%x3c, %colSum) : (memref<3x5x48xf32>, memref<48xf32>) -> ()
  %mask = memref.alloc() : memref<3x24x5x37xi1>
  call @mask(%x, %first, %mask)
      : (memref<3x24x5x37xf32>, memref<3x24x5x37xi1>, memref<3x24x5x37xi1>) -> ()
  %pooled = memref.alloc() : memref<3x24x3x35xf32>
  linalg.fill ins(%ninf : f32) outs(%pooled : memref<3x24x3x35xf32>)
  call @pool(%x, %pooled) : (memref<3x24x5x37xf32>, memref<3x24x3x35xf32>) -> ()

  %u0 = memref.cast %sum : memref<24xf32> to memref<*xf32>
  vector.print str "channel sums\n"
  call @printBits(%u0) : (memref<*xf32>) -> ()
  %u4 = memref.cast %colSum : memref<48xf32> to memref<*xf32>
  vector.print str "column sums\n"
  call @printBits(%u4) : (memref<*xf32>) -> ()
  // The mask as 0/1 integers.
  %maskInt = memref.alloc() : memref<3x24x5x37xi32>
  linalg.generic {indexing_maps = [#nchw, #nchw],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%mask : memref<3x24x5x37xi1>) outs(%maskInt : memref<3x24x5x37xi32>) {
  ^bb0(%m: i1, %o: i32):
    %v = arith.extui %m : i1 to i32
    linalg.yield %v : i32
  }
  %u1 = memref.cast %maskInt : memref<3x24x5x37xi32> to memref<*xi32>
  vector.print str "mask\n"
  call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
  vector.print str "pooled\n"
  %flat = memref.collapse_shape %pooled [[0, 1, 2, 3]] : memref<3x24x3x35xf32> into memref<7560xf32>
  %u3 = memref.cast %flat : memref<7560xf32> to memref<*xf32>
  call @printBits(%u3) : (memref<*xf32>) -> ()
  return
}
