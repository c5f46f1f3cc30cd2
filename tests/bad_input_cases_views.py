"""The bad-input catalogue's cases for autograd through in-place ops on leaves and
views (tests/test_autograd_views.py: PyTorch's refusals, saved tensors modified in
place, the private write kernels' guard).  tests/bad_input_cases.py (where Case is)
adds them to CASES; tests/test_bad_input.py runs them."""
from bad_input_cases import C

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
]
