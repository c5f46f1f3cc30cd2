"""The bad-input catalogue's cases for autograd through in-place ops on leaves and
views (tests/test_autograd_views.py: PyTorch's refusals, saved tensors modified in
place, the private write kernels' guard).  tests/bad_input_cases.py (where Case is)
adds them to CASES; tests/test_bad_input.py runs them."""
from bad_input_cases import C

_X = "x = pdt.arange(6.).reshape(2, 3)\n"  # the *_copy cases' input

VIEWS_CASES = [
    C("inplace-leaf", "w = pdt.ones(3, requires_grad=True)\nw.add_(1)", "RuntimeError",
      r"a leaf Variable that requires grad is being used in an in-place operation"),
    C("inplace-view-of-leaf", "w = pdt.ones(3, requires_grad=True)\nw[0].add_(1)",
      "RuntimeError",
      r"a view of a leaf Variable that requires grad is being used in an in-place operation"),
    C("inplace-view-of-leaf-copy", "w = pdt.ones(3, requires_grad=True)\n"
      "w.narrow(0, 1, 2).copy_(pdt.zeros(2))", "RuntimeError", r"a view of a leaf Variable"),
    C("inplace-no-grad-view", "w = pdt.ones(2, requires_grad=True)\na = pdt.zeros(4)\n"
      "with pdt.no_grad():\n    v = a[1:3]\nv.add_(w)", "RuntimeError",
      r"A view was created in no_grad mode and is being modified inplace with grad mode "
      r"enabled"),
    C("inplace-split-view", "a = pdt.zeros(4, requires_grad=True) * 1\na.split(2)[0].mul_(2)",
      "RuntimeError", r"Output 0 of Split is a view and is being modified inplace\. This view "
      r"is the output of a function that returns multiple views"),
    C("inplace-unbind-view-no-grad-base", "w = pdt.ones(2, requires_grad=True)\n"
      "a = pdt.zeros(2, 2)\na.unbind(0)[1].add_(w)", "RuntimeError",
      r"This view is the output of a function that returns multiple views"),
    C("unbind-view-after-base-changed", "a = pdt.zeros(2, 2, requires_grad=True) * 1\n"
      "r = a.unbind(0)[0]\na.mul_(2)\nr * 2", "RuntimeError",
      r"Output 0 of Unbind is a view and its base or another view of its base has been "
      r"modified inplace"),
    C("saved-output-modified", "x = pdt.ones(3, requires_grad=True)\ny = x.exp()\n"
      "y.add_(1)\ny.sum().backward()", "RuntimeError",
      r"one of the variables needed for gradient computation has been modified by an inplace "
      r"operation: \[pydevtensor.FloatTensor \[3\]\] is at version 1; expected version 0 "
      r"instead.*ExpBackward0"),
    C("saved-view-base-modified", "x = pdt.ones(4, requires_grad=True) * 1\nv = x[1:]\n"
      "y = v * v\nx.add_(1)\ny.sum().backward()", "RuntimeError",
      r"modified by an inplace operation: \[pydevtensor.FloatTensor \[3\]\] is at version 1; "
      r"expected version 0 instead.*MulBackward0"),
    C("private-index-add-grad-value", "w = pdt.ones(2, requires_grad=True)\n"
      "pdt._C._index_add(pdt.zeros(3), 0, pdt.tensor([0, 2]), w * 2)", "RuntimeError",
      r"_index_add\(\): a private kernel that writes in place without recording the gradient, "
      r"called with grad mode on and a value that requires grad \(the destination is float32 "
      r"\(3,\) on cpu\)"),
    # split_with_sizes, unsafe_split/chunk and the *_copy views (_ops_view_copy.py)
    C("split-with-sizes-int", _X + "pdt.split_with_sizes(x, 2)", "TypeError",
      r"split_with_sizes\(\): argument 'split_sizes' must be a sequence of ints, not int"),
    C("split-with-sizes-sum", _X + "pdt.split_with_sizes(x, [1, 2])", "RuntimeError",
      r"split_with_sizes expects split_sizes to sum exactly to 2"),
    C("unsafe-split-list", _X + "pdt.unsafe_split(x, [1, 1])", "TypeError",
      r"unsafe_split\(\): argument 'split_size' must be int, got list"),
    C("unsafe-chunk-zero", _X + "pdt.unsafe_chunk(x, 0)", "RuntimeError",
      r"chunk expects `chunks` to be greater than 0, got: 0"),
    C("view-copy-size", _X + "pdt.view_copy(x, (4,))", "RuntimeError",
      r"cannot reshape a tensor of shape \(2, 3\)"),
    C("view-copy-nothing", _X + "pdt.view_copy(x)", "TypeError",
      r"view_copy\(\): expected one of size and dtype"),
    C("expand-copy-shape", _X + "pdt.expand_copy(x, (3, 3))", "RuntimeError",
      r"cannot be broadcast to shape \(3, 3\)"),
    C("permute-copy-repeat", _X + "pdt.permute_copy(x, (0, 0))", "RuntimeError",
      r"dim 0 appears more than once"),
    C("transpose-copy-dim", _X + "pdt.transpose_copy(x, 0, 2)", "IndexError",
      r"dimension out of range: got dim 2"),
    C("t-copy-3d", _X + "pdt.t_copy(x.reshape(1, 2, 3))", "RuntimeError",
      r"t\(\) expects a tensor with <= 2 dimensions"),
    C("t-copy-out-dtype", _X + "pdt.t_copy(x, out=pdt.empty(3, 2, dtype=pdt.int64))",
      "RuntimeError",
      r"t_copy\(\): Expected out tensor to have dtype pydevtensor.float32"),
    C("select-copy-index", _X + "pdt.select_copy(x, 0, 5)", "IndexError",
      r"index 5 out of range"),
    C("slice-copy-step", _X + "pdt.slice_copy(x, 1, 0, 3, 0)", "RuntimeError",
      r"slice_copy\(\): slice step must be positive, got 0"),
    C("slice-copy-0d", "pdt.slice_copy(pdt.tensor(1.0))", "IndexError",
      r"slice_copy\(\): slice\(\) cannot be applied to a 0-dim tensor"),
    C("squeeze-copy-dim", _X + "pdt.squeeze_copy(x, 2)", "IndexError",
      r"squeeze\(\): dimension out of range"),
    C("unsqueeze-copy-dim", _X + "pdt.unsqueeze_copy(x, 3)", "IndexError",
      r"unsqueeze\(\): dimension out of range"),
    C("diagonal-copy-same-dims", _X + "pdt.diagonal_copy(x, 0, 0, 0)", "RuntimeError",
      r"diagonal dimensions cannot be identical 0, 0"),
    C("unfold-copy-size", _X + "pdt.unfold_copy(x, 1, 4, 1)", "RuntimeError",
      r"maximum size for tensor at dimension 1 is 3 but size is 4"),
    C("unbind-copy-dim", _X + "pdt.unbind_copy(x, 2)", "IndexError",
      r"Dimension out of range"),
    C("unbind-copy-out-count", _X + "pdt.unbind_copy(x, out=[pdt.empty(3)])", "RuntimeError",
      r"unbind_copy\(\): out must be a sequence of 2 tensors \(one per piece\), got list of 1"),
    C("split-copy-list", _X + "pdt.split_copy(x, [1, 1])", "TypeError",
      r"split_copy\(\): argument 'split_size' must be int, got list"),
    C("split-with-sizes-copy-sum", _X + "pdt.split_with_sizes_copy(x, [1, 2])", "RuntimeError",
      r"split_with_sizes expects split_sizes to sum exactly to 2"),
    C("alias-copy-list", _X + "pdt.alias_copy([1])", "TypeError",
      r"alias_copy\(\): argument 'input' must be a Tensor, not list"),
    C("detach-copy-none", _X + "pdt.detach_copy(None)", "TypeError",
      r"detach_copy\(\): argument 'input' must be a Tensor, not NoneType"),
    C("as-strided-copy-bounds", _X + "pdt.as_strided_copy(x, (7,), (1,))", "ValueError",
      r"out of bounds for a storage of 6 elements"),
    C("narrow-copy-length", _X + "pdt.narrow_copy(x, 1, 1, 5)", "RuntimeError",
      r"start \(1\) \+ length \(5\) exceeds dimension size \(3\)"),
]
