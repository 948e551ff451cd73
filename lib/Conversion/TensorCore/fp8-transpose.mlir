// FP8 on sm_90a: copies `in` (ROWS x COLS, one byte per element) to `out`
// (COLS x ROWS), so that an MN-major operand becomes the K-major one wgmma
// reads: 32x32 tiles per block of 32x8 threads (GRID_X = COLS/32, GRID_Y =
// ROWS/32), 4 elements a thread, moved as ui8. Correct rather than fast
// (uncoalesced stores). MatmulToWgmma.cpp renames @xpose to
// <entry>_transpose_a|b. Parameters: ROWS, COLS, T, GRID_X, GRID_Y.

func.func private @xpose(%in: memref<${ROWS}x${COLS}x${T}>, %out: memref<${COLS}x${ROWS}x${T}>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %gx = arith.constant ${GRID_X} : index
  %gy = arith.constant ${GRID_Y} : index
  %in8 = builtin.unrealized_conversion_cast %in : memref<${ROWS}x${COLS}x${T}> to memref<${ROWS}x${COLS}xui8>
  %out8 = builtin.unrealized_conversion_cast %out : memref<${COLS}x${ROWS}x${T}> to memref<${COLS}x${ROWS}xui8>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %gx, %y = %gy, %z = %c1)
             threads(%tx, %ty, %tz) in (%ntx = %c32, %nty = %c8, %ntz = %c1) {
    %q0 = arith.constant 0 : index
    %q1 = arith.constant 1 : index
    %q4 = arith.constant 4 : index
    %q8 = arith.constant 8 : index
    %q32 = arith.constant 32 : index
    %colBase = arith.muli %bx, %q32 : index
    %col = arith.addi %colBase, %tx : index
    %rowBase = arith.muli %by, %q32 : index
    %row0 = arith.addi %rowBase, %ty : index
    scf.for %i = %q0 to %q4 step %q1 {
      %off = arith.muli %i, %q8 : index
      %row = arith.addi %row0, %off : index
      %v = memref.load %in8[%row, %col] : memref<${ROWS}x${COLS}xui8>
      memref.store %v, %out8[%col, %row] : memref<${COLS}x${ROWS}xui8>
    }
    gpu.terminator
  }
  return
}
