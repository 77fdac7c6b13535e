// RUN: blk-opt --split-input-file --verify-diagnostics %s
// Every verifier branch of the blk dialect, and the parse errors of its custom syntax.

// expected-error @+1 {{!blk.ptr points to 'index'}}
func.func @ptr_to_index(%p: !blk.ptr<index>) {
  func.return
}

// -----

// expected-error @+1 {{unknown weak kind 'complex'}}
func.func @weak_complex(%w: !blk.weak<complex>) {
  func.return
}

// -----

func.func @dynamic_block(%x: tensor<?xf32>) {
  // expected-error @+1 {{blk blocks have static shapes}}
  %y = blk.neg %x : tensor<?xf32>
  func.return
}

// -----

func.func @not_a_value(%x: index) {
  // expected-error @+1 {{operand 'operand' has type index, which is not a blk value}}
  %y = blk.neg %x : index
  func.return
}

// -----

func.func @complex_is_not_a_kernel_value(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{which is not a blk value}}
  %y = blk.neg %x : tensor<4xcomplex<f32>>
  func.return
}

// -----

func.func @block_of_weak(%x: tensor<4x!blk.weak<int>>) {
  // expected-error @+1 {{which is not a blk value}}
  %y = blk.neg %x : tensor<4x!blk.weak<int>>
  func.return
}

// -----

func.func @bitwise_on_floats(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand 'lhs' has type tensor<16xf32>; expected a bool or an integer}}
  %y = blk.and %x, %x : tensor<16xf32>
  func.return
}

// -----

func.func @shift_on_bools(%x: tensor<16xi1>) {
  // expected-error @+1 {{operand 'lhs' has type tensor<16xi1>; expected an integer}}
  %y = blk.shl %x, %x : tensor<16xi1>
  func.return
}

// -----

func.func @arith_on_pointers(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{operand 'lhs' has type !blk.ptr<f32>; expected a number (bool, integer or float)}}
  %y = blk.add %p, %p : !blk.ptr<f32>
  func.return
}

// -----

func.func @incompatible_shapes(%x: tensor<16xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'lhs' (tensor<16xf32>) and 'rhs' (tensor<8xf32>) cannot broadcast: dimension 0 has sizes 16 and 8 (sizes must be equal, or one of them 1)}}
  %z = blk.add %x, %y : tensor<16xf32>, tensor<8xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @incompatible_shapes_rank_extended(%x: tensor<4x16xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'lhs' (tensor<4x16xf32>) and 'rhs' (tensor<8xf32>) cannot broadcast: dimension 1 has sizes 16 and 8}}
  %z = blk.mul %x, %y : tensor<4x16xf32>, tensor<8xf32> -> tensor<4x16xf32>
  func.return
}

// -----

func.func @weak_result(%x: !blk.weak<int>) {
  // expected-error @+1 {{result has type !blk.weak<int>, which is not a blk value type}}
  %y = blk.neg %x : !blk.weak<int>
  func.return
}

// -----

func.func @wrong_result_shape(%x: tensor<16x1xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{result has type tensor<16xf32> but its operands broadcast to shape 16x8}}
  %z = blk.add %x, %y : tensor<16x1xf32>, tensor<8xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @compare_gives_bool(%x: tensor<16xf32>) {
  // expected-error @+1 {{result has type tensor<16xf32>; a comparison gives bool (i1)}}
  %y = blk.cmp lt, %x, %x : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @truediv_gives_float(%x: tensor<16xi32>) {
  // expected-error @+1 {{result has type tensor<16xi32>; blk.truediv gives a float}}
  %y = blk.truediv %x, %x : tensor<16xi32>
  func.return
}

// -----

func.func @math_keeps_float_dtype(%x: tensor<16xf32>) {
  // expected-error @+1 {{result has type tensor<16xf16> but the operands are f32: with operands of one float dtype, blk.exp gives that dtype}}
  %y = blk.exp %x : tensor<16xf32> -> tensor<16xf16>
  func.return
}

// -----

func.func @bitwise_result_kind(%x: tensor<16xi32>) {
  // expected-error @+1 {{result has type tensor<16xf32>; expected a bool or an integer}}
  %y = blk.xor %x, %x : tensor<16xi32>, tensor<16xi32> -> tensor<16xf32>
  func.return
}

// -----

func.func @strict_result_dtype(%x: tensor<16xf32>) {
  // expected-error @+1 {{result has type tensor<16xf16> but its operands are all f32: with operands of one dtype, blk.add gives that dtype}}
  %y = blk.add %x, %x : tensor<16xf32>, tensor<16xf32> -> tensor<16xf16>
  func.return
}

// -----

func.func @where_condition(%c: tensor<16xi32>, %x: tensor<16xf32>) {
  // expected-error @+1 {{operand 'cond' has type tensor<16xi32>; expected a bool (i1)}}
  %y = blk.where %c, %x, %x : tensor<16xi32>, tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @addptr_offset(%p: !blk.ptr<f32>, %o: tensor<16xf32>) {
  // expected-error @+1 {{operand 'offset' has type tensor<16xf32>; expected an integer}}
  %q = blk.addptr %p, %o : !blk.ptr<f32>, tensor<16xf32> -> tensor<16x!blk.ptr<f32>>
  func.return
}

// -----

func.func @addptr_pointee(%p: !blk.ptr<f32>, %o: tensor<16xi32>) {
  // expected-error @+1 {{result has type tensor<16x!blk.ptr<f16>> but operand 'ptr' has type !blk.ptr<f32>}}
  %q = blk.addptr %p, %o : !blk.ptr<f32>, tensor<16xi32> -> tensor<16x!blk.ptr<f16>>
  func.return
}

// -----

func.func @addptr_has_no_short_form(%p: !blk.ptr<f32>, %o: !blk.ptr<f32>) {
  %q = blk.addptr %p, %o : !blk.ptr<f32>
  // expected-error @+1 {{Expected ','}}
  func.return
}

// -----

func.func @load_short_form_names_the_pointers(%x: tensor<16xf32>) {
  // expected-error @+1 {{blk.load has no short form}}
  %y = blk.load %x : tensor<16xf32>
  func.return
}

// -----

func.func @signature_count(%x: tensor<16xf32>) {
  // expected-error @+1 {{blk.add has 2 operands but its signature lists 3 types}}
  %y = blk.add %x, %x : tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @bad_predicate(%x: tensor<16xf32>) {
  // expected-error @+1 {{'lessthan' is not a valid predicate; expected one of: eq, ne, lt, le, gt, ge}}
  %y = blk.cmp lessthan, %x, %x : tensor<16xf32>
  func.return
}

// -----

func.func @bad_nan(%x: tensor<16xf32>) {
  // expected-error @+1 {{'ignore' is not a valid nan; expected one of: num, propagate}}
  %y = blk.maximum %x, %x nan = ignore : tensor<16xf32>
  func.return
}

// -----

func.func @bad_fill(%x: tensor<16xi32>) {
  // expected-error @+1 {{'ones' is not a valid fill; expected one of: sign, zero}}
  %y = blk.shr %x, %x fill = ones : tensor<16xi32>
  func.return
}

// -----

func.func @program_id_axis() {
  // expected-error @+1 {{axis 3 is out of range: the launch grid has axes 0, 1 and 2}}
  %p = blk.program_id 3 : i32
  func.return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{axis -1 is out of range}}
  %p = blk.num_programs -1 : i32
  func.return
}

// -----

func.func @empty_range() {
  // expected-error @+1 {{needs end > start, got start = 8 and end = 8}}
  %r = blk.arange 8, 8 : tensor<0xi32>
  func.return
}

// -----

func.func @range_type() {
  // expected-error @+1 {{result has type tensor<16xi32>; the range 0..8 gives tensor<8xi32>}}
  %r = blk.arange 0, 8 : tensor<16xi32>
  func.return
}

// -----

func.func @untyped_constant() {
  // expected-error @+1 {{expected a typed constant such as '1.0 : f32'}}
  %c = blk.constant "one"
  func.return
}

// -----

func.func @index_constant() {
  // expected-error @+1 {{value has type tensor<4xindex>, which is not a blk value}}
  %c = blk.constant dense<1> : tensor<4xindex>
  func.return
}

// -----

func.func @constant_result_type() {
  // expected-error @+1 {{result has type f16 but the value has type f32}}
  %c = "blk.constant"() <{value = 1.0 : f32}> : () -> f16
  func.return
}

// -----

func.func @literal_kind() {
  // expected-error @+1 {{literal 3 has type !blk.weak<int>}}
  %c = blk.literal 3 : !blk.weak<float>
  func.return
}

// -----

func.func @negated_bool_literal() {
  // expected-error @+1 {{a bool literal cannot be negated}}
  %c = blk.literal -true : !blk.weak<bool>
  func.return
}

// -----

func.func @literal_float_storage() {
  // expected-error @+1 {{float literal 1.000000e+00 : f32 must be stored as f64}}
  %c = "blk.literal"() <{value = 1.0 : f32}> : () -> !blk.weak<float>
  func.return
}

// -----

func.func @literal_bool_value() {
  // expected-error @+1 {{value #builtin.int<2> does not fit type !blk.weak<bool>}}
  %c = "blk.literal"() <{value = #builtin.int<2>}> : () -> !blk.weak<bool>
  func.return
}

// -----

func.func @splat_a_block(%x: tensor<16xf32>) {
  // expected-error @+1 {{splats a scalar into a block, got tensor<16xf32> -> tensor<16xf32>}}
  %y = blk.splat %x : tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @splat_element(%x: f32) {
  // expected-error @+1 {{changes the element type from f32 to tensor<16xf16>; use blk.cast to convert}}
  %y = blk.splat %x : f32 -> tensor<16xf16>
  func.return
}

// -----

func.func @expand_axis(%x: tensor<16xf32>) {
  // expected-error @+1 {{axis 2 is out of range for tensor<16xf32>}}
  %y = blk.expand_dims %x axis = 2 : tensor<16xf32> -> tensor<16x1xf32>
  func.return
}

// -----

func.func @expand_result(%x: tensor<16xf32>) {
  // expected-error @+1 {{inserting axis 0 into tensor<16xf32> gives tensor<1x16xf32>}}
  %y = blk.expand_dims %x axis = 0 : tensor<16xf32> -> tensor<16x1xf32>
  func.return
}

// -----

func.func @broadcast_rank(%x: tensor<16xf32>) {
  // expected-error @+1 {{keeps the rank: tensor<16xf32> has rank 1 but the result tensor<4x16xf32> has rank 2}}
  %y = blk.broadcast %x : tensor<16xf32> -> tensor<4x16xf32>
  func.return
}

// -----

func.func @broadcast_size(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{dimension 0 has size 2, which is neither 1 nor 4}}
  %y = blk.broadcast %x : tensor<2x16xf32> -> tensor<4x16xf32>
  func.return
}

// -----

func.func @reshape_count(%x: tensor<16xf32>) {
  // expected-error @+1 {{cannot reshape tensor<16xf32> (16 elements) to tensor<4x8xf32> (32 elements)}}
  %y = blk.reshape %x : tensor<16xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @permute_order(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order [0, 0] is not a permutation of the 2 dimensions of tensor<4x8xf32>}}
  %y = blk.permute %x order = [0, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @permute_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{permuting tensor<4x8xf32> by [1, 0] gives tensor<8x4xf32>}}
  %y = blk.permute %x order = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @cast_shape(%x: tensor<16xi32>) {
  // expected-error @+1 {{keeps the shape: cannot cast tensor<16xi32> to tensor<8xf32>}}
  %y = blk.cast %x : tensor<16xi32> -> tensor<8xf32>
  func.return
}

// -----

func.func @cast_pointer_to_number(%p: !blk.ptr<f32>) {
  // expected-error @+1 {{cannot cast between pointers and numbers: !blk.ptr<f32> to i64}}
  %y = blk.cast %p : !blk.ptr<f32> -> i64
  func.return
}

// -----

func.func @cast_to_weak(%x: i32) {
  // expected-error @+1 {{result has type !blk.weak<int>: weak literals are not allowed here}}
  %y = blk.cast %x : i32 -> !blk.weak<int>
  func.return
}

// -----

func.func @bitcast_width(%x: tensor<16xf32>) {
  // expected-error @+1 {{needs equal bit widths: f32 has 32 bits and f16 has 16}}
  %y = blk.bitcast %x : tensor<16xf32> -> tensor<16xf16>
  func.return
}

// -----

func.func @bitcast_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{keeps the shape: tensor<16xf32> to tensor<8xi32>}}
  %y = blk.bitcast %x : tensor<16xf32> -> tensor<8xi32>
  func.return
}

// -----

func.func @load_from_number(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand 'ptr' has type tensor<16xf32>; expected a pointer}}
  %y = blk.load %x : tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @load_other_without_mask(%p: tensor<16x!blk.ptr<f32>>, %o: tensor<16xf32>) {
  // expected-error @+1 {{has 'other' without 'mask'}}
  %y = blk.load %p other %o : tensor<16x!blk.ptr<f32>>, tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @load_mask_type(%p: tensor<16x!blk.ptr<f32>>, %m: tensor<16xi32>) {
  // expected-error @+1 {{operand 'mask' has type tensor<16xi32>; expected a bool (i1)}}
  %y = blk.load %p mask %m : tensor<16x!blk.ptr<f32>>, tensor<16xi32> -> tensor<16xf32>
  func.return
}

// -----

func.func @load_result(%p: tensor<16x!blk.ptr<f32>>) {
  // expected-error @+1 {{result has type tensor<16xf16>; loading through tensor<16x!blk.ptr<f32>> gives tensor<16xf32>}}
  %y = blk.load %p : tensor<16x!blk.ptr<f32>> -> tensor<16xf16>
  func.return
}

// -----

func.func @load_mask_shape(%p: tensor<16x!blk.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'ptr' (tensor<16x!blk.ptr<f32>>) and 'mask' (tensor<8xi1>) cannot broadcast: dimension 0 has sizes 16 and 8}}
  %y = blk.load %p mask %m : tensor<16x!blk.ptr<f32>>, tensor<8xi1> -> tensor<16xf32>
  func.return
}

// -----

func.func @store_value_shape(%p: tensor<16x!blk.ptr<f32>>, %v: tensor<4x16xf32>) {
  // expected-error @+1 {{operand 'value' of type tensor<4x16xf32> does not broadcast to the shape 16 of operand 'ptr'}}
  blk.store %p, %v : tensor<16x!blk.ptr<f32>>, tensor<4x16xf32>
  func.return
}

// -----

func.func @store_has_no_result(%p: tensor<16x!blk.ptr<f32>>, %v: tensor<16xf32>) {
  // expected-error @+1 {{blk.store has no result}}
  blk.store %p, %v : tensor<16x!blk.ptr<f32>>, tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @atomic_bitwise_on_floats(%p: !blk.ptr<f32>, %v: f32) {
  // expected-error @+1 {{atomic xor needs integer memory and value}}
  %o = blk.atomic_rmw xor, %p, %v : !blk.ptr<f32>
  func.return
}

// -----

func.func @atomic_result(%p: !blk.ptr<f32>, %v: f32) {
  // expected-error @+1 {{result has type f16; expected f32}}
  %o = blk.atomic_rmw add, %p, %v : !blk.ptr<f32>, f32 -> f16
  func.return
}

// -----

func.func @cas_result(%p: !blk.ptr<i32>, %v: i32) {
  // expected-error @+1 {{result has type i64; expected i32}}
  %o = blk.atomic_cas %p, %v, %v : !blk.ptr<i32>, i32, i32 -> i64
  func.return
}

// -----

func.func @reduce_bitwise_floats(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand 'src' has type tensor<16xf32>; expected a bool or an integer}}
  %r = blk.reduce and, %x : tensor<16xf32> -> f32
  func.return
}

// -----

func.func @reduce_scalar(%x: f32) {
  // expected-error @+1 {{reduces a block, got the scalar type f32}}
  %r = blk.reduce sum, %x : f32 -> f32
  func.return
}

// -----

func.func @reduce_axis(%x: tensor<16xf32>) {
  // expected-error @+1 {{axis 1 is out of range for tensor<16xf32>}}
  %r = blk.reduce sum, %x axis = 1 : tensor<16xf32> -> f32
  func.return
}

// -----

func.func @reduce_result(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{result has type tensor<8xf32>; max over axis 1 of tensor<16x8xf32> gives tensor<16xf32>}}
  %r = blk.reduce max, %x axis = 1 : tensor<16x8xf32> -> tensor<8xf32>
  func.return
}

// -----

func.func @argmax_gives_i32(%x: tensor<16xf32>) {
  // expected-error @+1 {{result has type i64; argmax over all axes of tensor<16xf32> gives i32}}
  %r = blk.reduce argmax, %x : tensor<16xf32> -> i64
  func.return
}

// -----

func.func @reduce_acc_dtype(%x: tensor<16xf32>) {
  // expected-error @+1 {{acc_dtype index is not a blk dtype}}
  %r = blk.reduce sum, %x acc_dtype = index : tensor<16xf32> -> f32
  func.return
}

// -----

func.func @scan_kind(%x: tensor<16xf32>) {
  // expected-error @+1 {{scan kind must be sum, prod, max or min, got argmax}}
  %r = blk.scan argmax, %x axis = 0 : tensor<16xf32>
  func.return
}

// -----

func.func @scan_scalar(%x: f32) {
  // expected-error @+1 {{scans a block, got the scalar type f32}}
  %r = blk.scan sum, %x axis = 0 : f32
  func.return
}

// -----

func.func @scan_axis(%x: tensor<16xf32>) {
  // expected-error @+1 {{axis 1 is out of range for tensor<16xf32>}}
  %r = blk.scan sum, %x axis = 1 : tensor<16xf32>
  func.return
}

// -----

func.func @scan_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{result has type tensor<8xf32>; a scan keeps the shape of tensor<16xf32>}}
  %r = blk.scan sum, %x axis = 0 : tensor<16xf32> -> tensor<8xf32>
  func.return
}

// -----

func.func @dot_rank(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand 'lhs' has type tensor<16xf32>; dot takes 2-D or 3-D blocks}}
  %r = blk.dot %x, %x : tensor<16xf32>, tensor<16xf32> -> f32
  func.return
}

// -----

func.func @dot_ranks_differ(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{operands have ranks 3 and 2; they must be equal}}
  %r = blk.dot %a, %b : tensor<2x4x8xf32>, tensor<8x4xf32> -> tensor<2x4x4xf32>
  func.return
}

// -----

func.func @dot_inner(%a: tensor<16x8xf16>, %b: tensor<16x8xf16>) {
  // expected-error @+1 {{inner dimensions differ: 'lhs' tensor<16x8xf16> has K = 8 but 'rhs' tensor<16x8xf16> has K = 16}}
  %r = blk.dot %a, %b : tensor<16x8xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  func.return
}

// -----

func.func @dot_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{batch dimensions differ: 2 and 3}}
  %r = blk.dot %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32>
  func.return
}

// -----

func.func @dot_result(%a: tensor<16x8xf16>, %b: tensor<8x32xf16>) {
  // expected-error @+1 {{result has type tensor<16x16xf32>; tensor<16x8xf16> times tensor<8x32xf16> has shape 16x32}}
  %r = blk.dot %a, %b : tensor<16x8xf16>, tensor<8x32xf16> -> tensor<16x16xf32>
  func.return
}

// -----

func.func @dot_acc(%a: tensor<16x8xf16>, %b: tensor<8x32xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{operand 'acc' has type tensor<32x16xf32>; it must have the result shape 16x32}}
  %r = blk.dot %a, %b acc %c : tensor<16x8xf16>, tensor<8x32xf16>, tensor<32x16xf32> -> tensor<16x32xf32>
  func.return
}

// -----

func.func @print_weak(%w: !blk.weak<int>) {
  // expected-error @+1 {{argument 0 has type !blk.weak<int>: weak literals are not allowed here}}
  blk.print "w = " %w : !blk.weak<int>
  func.return
}

// -----

func.func @print_element_operands(%i: i64, %x: f32) {
  // expected-error @+1 {{an element print takes 2 indices and the element, got 2 operands}}
  blk.print " x: " %i, %x : i64, f32 {index_widths = array<i64: 1, 1>}
  func.return
}

// -----

func.func @print_element_block(%i: i64, %x: tensor<4xf32>) {
  // expected-error @+1 {{an element print takes scalars, operand 1 is not}}
  blk.print " x: " %i, %x : i64, tensor<4xf32> {index_widths = array<i64: 1>}
  func.return
}

// -----

func.func @print_element_index(%i: f32, %x: f32) {
  // expected-error @+1 {{index 0 of an element print is not an integer}}
  blk.print " x: " %i, %x : f32, f32 {index_widths = array<i64: 1>}
  func.return
}

// -----

func.func @print_operand_label(%x: f32) {
  // expected-error @+1 {{'operand' labels an element print (with 'index_widths')}}
  blk.print " x: " %x : f32 {operand = 1 : i64}
  func.return
}

// -----

func.func @assert_condition(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand 'cond' has type tensor<16xf32>; expected a bool (i1)}}
  blk.assert %x, "nope" : tensor<16xf32>
  func.return
}

// -----

func.func @reduce_region_shapes(%x: tensor<16xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{operand 1 has type tensor<8xi32>; the operands must be blocks of one shape, as operand 0 (tensor<16xf32>)}}
  %m, %j = blk.reduce_region %x, %i axis = 0 : tensor<16xf32>, tensor<8xi32> -> f32, i32 {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    blk.yield %a, %ai : f32, i32
  }
  func.return
}

// -----

func.func @reduce_region_arguments(%x: tensor<16xf32>) {
  // expected-error @+1 {{the combiner takes (f32); the operands' dtypes, accumulated then next, are (f32, f32)}}
  %s = blk.reduce_region %x axis = 0 : tensor<16xf32> -> f32 {
  ^bb0(%a: f32):
    blk.yield %a : f32
  }
  func.return
}

// -----

func.func @reduce_region_yield(%x: tensor<16xf32>) {
  // expected-error @+1 {{the combiner must end in blk.yield of f32}}
  %s = blk.reduce_region %x axis = 0 : tensor<16xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = blk.cast %a : f32 -> f64
    blk.yield %c : f64
  }
  func.return
}

// -----

func.func @reduce_region_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 0 has type tensor<8xf32>; expected tensor<4xf32>}}
  %s = blk.reduce_region %x axis = 1 : tensor<4x8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    blk.yield %a : f32
  }
  func.return
}

// -----

func.func @scan_region_axis(%x: tensor<16xi32>) {
  // expected-error @+1 {{axis 1 is out of range for tensor<16xi32>}}
  %s = blk.scan_region %x axis = 1 : tensor<16xi32> -> tensor<16xi32> {
  ^bb0(%a: i32, %b: i32):
    blk.yield %a : i32
  }
  func.return
}

// -----

func.func @yield_outside(%x: i32) {
  // expected-error @+1 {{blk.yield ends the combiner of a reduce_region or scan_region}}
  blk.yield %x : i32
}

// -----

func.func @dot_tile_pairs_of_f16(%a: memref<8x4xf16>, %b: memref<2x32x2xf16>, %c: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{operands hold f16 and f16; dot_tile with pairs multiplies two buffers of one of bfloat16, int8, uint8}}
  blk.dot_tile %a, %b, %c[%i, %i] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64, pairs} : memref<8x4xf16>, memref<2x32x2xf16>, memref<8x32xf32>
  func.return
}

// -----

func.func @dot_tile_of_bf16(%a: memref<8x4xbf16>, %b: memref<4x32xbf16>, %c: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{operands hold bf16 and bf16; dot_tile multiplies two buffers of one of float32, float64}}
  blk.dot_tile %a, %b, %c[%i, %i] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64} : memref<8x4xbf16>, memref<4x32xbf16>, memref<8x32xf32>
  func.return
}

// -----

func.func @dot_tile_accumulator(%a: memref<8x4xi8>, %b: memref<2x32x2xi8>, %c: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{int8 products accumulate in int32, not memref<8x32xf32>}}
  blk.dot_tile %a, %b, %c[%i, %i] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64, pairs} : memref<8x4xi8>, memref<2x32x2xi8>, memref<8x32xf32>
  func.return
}

// -----

func.func @dot_tile_unpacked(%a: memref<8x4xbf16>, %b: memref<4x32xbf16>, %c: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{memref<8x4xbf16> times the pairs memref<4x32xbf16> does not give memref<8x32xf32>}}
  blk.dot_tile %a, %b, %c[%i, %i] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64, pairs} : memref<8x4xbf16>, memref<4x32xbf16>, memref<8x32xf32>
  func.return
}

// -----

func.func @dot_tile_inner_dimensions(%a: memref<8x4xf32>, %b: memref<5x32xf32>, %c: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{memref<8x4xf32> times memref<5x32xf32> does not give memref<8x32xf32>}}
  blk.dot_tile %a, %b, %c[%i, %i] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64} : memref<8x4xf32>, memref<5x32xf32>, memref<8x32xf32>
  func.return
}

// -----

func.func @dot_tile_too_wide(%a: memref<8x4xbf16>, %b: memref<2x32x2xbf16>, %c: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{a tile of 4 x 24 in vectors of 16 does not fit memref<8x32xf32>}}
  blk.dot_tile %a, %b, %c[%i, %i] {rows = 4 : i64, cols = 24 : i64, lanes = 16 : i64, pairs} : memref<8x4xbf16>, memref<2x32x2xbf16>, memref<8x32xf32>
  func.return
}

// -----

func.func @dot_tile_indices(%a: memref<8x4xf32>, %b: memref<4x32xf32>, %c: memref<8x32xf32>, %i: index) {
  // expected-error @+1 {{dot_tile takes 2 indices into memref<8x32xf32>}}
  blk.dot_tile %a, %b, %c[%i] {rows = 4 : i64, cols = 32 : i64, lanes = 16 : i64} : memref<8x4xf32>, memref<4x32xf32>, memref<8x32xf32>
  func.return
}

// -----

func.func @prefetch_not_a_pointer(%x: f32) {
  // expected-error @+1 {{f32 should be of base attribute blk.ptr}}
  blk.prefetch %x : f32
  func.return
}
