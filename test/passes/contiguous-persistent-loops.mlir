// RUN: blk-opt %s -p contiguous-persistent-loops | filecheck %s
// RUN: blk-opt %s -p 'contiguous-persistent-loops{disjoint_args=true}' | filecheck %s --check-prefix=DISJOINT

// A persistent loop (start program_id, step num_programs) gives program p the p-th of
// num_programs runs of ceil(count / num_programs) consecutive iterations.

// CHECK-LABEL: func.func @rows
// CHECK:         %pid = blk.program_id 0 : i32
// CHECK-NEXT:    %n = blk.num_programs 0 : i32
// CHECK-NEXT:    %[[UB:.*]] = arith.extsi %rows : i32 to i64
// CHECK-NEXT:    %[[N:.*]] = arith.extsi %n : i32 to i64
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[COUNT:.*]] = arith.maxsi %[[UB]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[COUNT]], %[[N]] : i64
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[LESS:.*]] = arith.subi %[[SUM]], %[[ONE]] : i64
// CHECK-NEXT:    %[[SHARE:.*]] = arith.divsi %[[LESS]], %[[N]] : i64
// CHECK-NEXT:    %[[P:.*]] = arith.extsi %pid : i32 to i64
// CHECK-NEXT:    %[[AT:.*]] = arith.muli %[[P]], %[[SHARE]] : i64
// CHECK-NEXT:    %[[FIRST:.*]] = arith.minsi %[[AT]], %[[UB]] : i64
// CHECK-NEXT:    %[[END:.*]] = arith.addi %[[FIRST]], %[[SHARE]] : i64
// CHECK-NEXT:    %[[LAST:.*]] = arith.minsi %[[END]], %[[UB]] : i64
// CHECK-NEXT:    %[[LB32:.*]] = arith.trunci %[[FIRST]] : i64 to i32
// CHECK-NEXT:    %[[UB32:.*]] = arith.trunci %[[LAST]] : i64 to i32
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    scf.for %row = %[[LB32]] to %[[UB32]] step %[[STEP]] : i32 {
// CHECK-NEXT:      %at = blk.addptr %out, %row
// CHECK-NEXT:      blk.store %at, %row
func.func @rows(%out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    %at = blk.addptr %out, %row : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    blk.store %at, %row : !blk.ptr<i32>
  }
  func.return
}

// A start offset from the program id, and a step that is num_programs only at run time:
// a select keeps the loop as written where the step is another value, or where some
// program's start (offset + pid) would wrap around.

// CHECK-LABEL: func.func @offset_and_step
// CHECK:         %[[NP:.*]] = blk.num_programs 0 : i32
// CHECK:         %[[OFF:.*]] = arith.extsi %offset : i32 to i64
// CHECK-NEXT:    %[[COUNT:.*]] = arith.subi %{{.*}}, %[[OFF]] : i64
// CHECK:         %[[STRIDED:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK:         %[[HIGH:.*]] = arith.addi %[[OFF]], %{{.*}} : i64
// CHECK-NEXT:    %[[MAX:.*]] = arith.constant 2147483647 : i64
// CHECK-NEXT:    %[[WRAPS:.*]] = arith.cmpi sgt, %[[HIGH]], %[[MAX]] : i64
// CHECK-NEXT:    %[[KEEP:.*]] = arith.ori %[[STRIDED]], %[[WRAPS]] : i1
// CHECK-NEXT:    %[[LB:.*]] = arith.select %[[KEEP]], %start, %{{.*}} : i32
// CHECK-NEXT:    %[[UB:.*]] = arith.select %[[KEEP]], %rows, %{{.*}} : i32
// CHECK-NEXT:    %[[ST:.*]] = arith.select %[[KEEP]], %step, %{{.*}} : i32
// CHECK-NEXT:    scf.for %row = %[[LB]] to %[[UB]] step %[[ST]] : i32 {
func.func @offset_and_step(%out: !blk.ptr<i32>, %rows: i32, %offset: i32, %step: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %start = blk.add %offset, %pid : i32, i32 -> i32
  scf.for %row = %start to %rows step %step : i32 {
    %at = blk.addptr %out, %row : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    blk.store %at, %row : !blk.ptr<i32>
  }
  func.return
}

// The program id used again (here in the body): which program runs a row may matter, so
// the loop stays as written. So does a loop that carries values, and a loop that is not
// in the kernel's entry block.

// CHECK-LABEL: func.func @pid_used_again
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
func.func @pid_used_again(%out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    blk.store %out, %pid : !blk.ptr<i32>
  }
  func.return
}

// CHECK-LABEL: func.func @second_program_id
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
func.func @second_program_id(%out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %again = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    blk.store %out, %again : !blk.ptr<i32>
  }
  func.return
}

// CHECK-LABEL: func.func @carried
// CHECK:         scf.for %row = %pid to %rows step %n iter_args
func.func @carried(%out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  %zero = blk.constant 0 : i32
  %total = scf.for %row = %pid to %rows step %n iter_args(%acc = %zero) -> (i32) : i32 {
    %next = blk.add %acc, %row : i32, i32 -> i32
    scf.yield %next : i32
  }
  blk.store %out, %total : !blk.ptr<i32>
  func.return
}

// CHECK-LABEL: func.func @nested
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
func.func @nested(%out: !blk.ptr<i32>, %rows: i32, %go: i1) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.if %go {
    scf.for %row = %pid to %rows step %n : i32 {
      blk.store %out, %row : !blk.ptr<i32>
    }
  }
  func.return
}

// Iterations that may depend on each other through memory keep their order (one
// program's iterations run in order; a rewrite would put rows n apart in different
// programs): a load through an argument the kernel writes (Out[row] = Out[row - n] + 1),
// an atomic, a store to the same address in every iteration. With disjoint arguments a
// load through another argument is no such dependency.

// CHECK-LABEL: func.func @reads_what_it_writes
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
// DISJOINT-LABEL: func.func @reads_what_it_writes
// DISJOINT:         scf.for %row = %pid to %rows step %n : i32 {
func.func @reads_what_it_writes(%out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    %before = blk.sub %row, %n : i32, i32 -> i32
    %from = blk.addptr %out, %before : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    %prev = blk.load %from : !blk.ptr<i32>
    %at = blk.addptr %out, %row : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    blk.store %at, %prev : !blk.ptr<i32>
  }
  func.return
}

// CHECK-LABEL: func.func @atomic
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
func.func @atomic(%out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    %at = blk.addptr %out, %row : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    %old = blk.atomic_rmw add, %at, %row : !blk.ptr<i32>, i32 -> i32
  }
  func.return
}

// CHECK-LABEL: func.func @same_address
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
func.func @same_address(%out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    blk.store %out, %row : !blk.ptr<i32>
  }
  func.return
}

// CHECK-LABEL: func.func @reads_another_argument
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
// DISJOINT-LABEL: func.func @reads_another_argument
// DISJOINT-SAME:    attributes {blk.kernel, blk.disjoint_args}
// DISJOINT-NOT:     scf.for %row = %pid
// DISJOINT:         scf.for %row = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
func.func @reads_another_argument(%x: !blk.ptr<i32>, %out: !blk.ptr<i32>, %rows: i32) attributes {blk.kernel} {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    %from = blk.addptr %x, %row : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    %v = blk.load %from : !blk.ptr<i32>
    %at = blk.addptr %out, %row : !blk.ptr<i32>, i32 -> !blk.ptr<i32>
    blk.store %at, %v : !blk.ptr<i32>
  }
  func.return
}

// A function that is not a kernel is left alone.

// CHECK-LABEL: func.func @helper
// CHECK:         scf.for %row = %pid to %rows step %n : i32 {
func.func @helper(%out: !blk.ptr<i32>, %rows: i32) {
  %pid = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %n : i32 {
    blk.store %out, %row : !blk.ptr<i32>
  }
  func.return
}
