// RUN: blk-opt --split-input-file --verify-diagnostics %s | filecheck %s

// Every form of annotation, each matched: exit status 0, nothing unexpected, and the
// output of the chunks that succeed is still printed.

// CHECK-LABEL: func.func @valid_before
func.func @valid_before() {
  func.return
}

// -----

func.func @next_line(%a: i32, %b: i64) -> i32 {
  // expected-error @+1 {{'arith.addi' op operand 'rhs' at position 1 does not verify}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}

// -----

func.func @same_line(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32 // expected-error {{but got i64}}
  func.return %0 : i32
}

// -----

func.func @previous_line(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  // expected-error @-1 {{expected from variable 'T'}}
  func.return %0 : i32
}

// -----

func.func @above(%a: i32, %b: i64) -> i32 {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  // expected-error @above {{'arith.addi' op}}
  func.return %0 : i32
}

// -----

func.func @below(%a: i32, %b: i64) -> i32 {
  // expected-error @below {{'arith.addi' op}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}

// -----

// Parse errors are diagnostics too.
func.func @parse_error() {
  // expected-error @+1 {{use of undefined value '%x'}}
  %0 = arith.addi %x, %x : i32
  func.return
}

// -----

// The regex form: literal text with {{regex}} parts.
func.func @regex(%a: i32, %b: i64) -> i32 {
  // expected-error-re @+1 {{operand 'rhs' at position {{[0-9]+}} does not verify}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %0 : i32
}

// -----

// CHECK: // -----
// CHECK-LABEL: func.func @valid_after
func.func @valid_after() {
  func.return
}
