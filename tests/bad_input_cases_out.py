"""The bad-input catalogue's cases for out= of the ops written in Python
(pydevtensor/_out.py: masked_select, take, sort, topk, the scans, ...).
tests/bad_input_cases.py (where Case is) adds them to CASES; tests/test_bad_input.py
runs them."""
from bad_input_cases import C

OUT_CASES = [
    # t is (2, 3) float32, ti (6,) int32 holding 0..5, tb (2,) bool
    C("masked_select-out-dtype", "pdt.masked_select(t, t > 0, out=pdt.empty(0, dtype=pdt.int64))",
      "RuntimeError", r"masked_select\(\): Expected out tensor to have dtype "
      r"pydevtensor.float32, but got pydevtensor.int64 instead"),
    C("take-out-shape", "pdt.take(t, pdt.tensor([0, 1]), out=pdt.empty(3))", "RuntimeError",
      r"take\(\): out has shape \(3,\), the result \(2,\) \(on cpu\); pydevtensor does not "
      r"resize out"),
    C("sort-out-tensor", "pdt.sort(t, out=pdt.empty(0))", "TypeError",
      r"sort\(\): out must be a tuple of 2 Tensors \(values, indices\), got Tensor"),
    C("topk-out-indices-dtype", "pdt.topk(t, 1, out=(pdt.empty(0), pdt.empty(0)))",
      "RuntimeError", r"topk\(\): Expected out tensor to have dtype pydevtensor.int64, but "
      r"got pydevtensor.float32 instead"),
    C("cummax-out-grad", "pdt.cummax(t.requires_grad_(), 0, "
      "out=(pdt.empty(0), pdt.empty(0, dtype=pdt.int64)))", "RuntimeError",
      r"cummax\(\): functions with out=... arguments don't support automatic "
      r"differentiation, but one of the arguments requires grad"),
    C("cumsum-out-dtype-disagrees", "pdt.cumsum(t, 0, dtype=pdt.float32, "
      "out=pdt.empty(0, dtype=pdt.float64))", "RuntimeError",
      r"cumsum\(\): Expected out tensor to have dtype pydevtensor.float32"),
    C("nonzero-out-as_tuple", "pdt.nonzero(t, as_tuple=True, out=pdt.empty(0, dtype=pdt.int64))",
      "RuntimeError", r"nonzero\(\): out= is not supported with as_tuple=True \(input \(2, 3\), "
      r"on cpu\)"),
    # the reductions written in C hand out= to _out._reduction_out
    C("sum-out-dtype-disagrees", "pdt.sum(t, 0, dtype=pdt.float64, out=pdt.empty(3))",
      "RuntimeError", r"sum\(\): Expected out tensor to have dtype pydevtensor.float64"),
    C("max-out-not-a-pair", "pdt.max(t, 0, out=pdt.empty(0))", "TypeError",
      r"max\(\): out must be a tuple of 2 Tensors \(values, indices\), got Tensor"),
    # the elementwise ops written in Python: out of any dtype the result casts to, or
    # of the result's own dtype, per op as PyTorch's
    C("fmax-out-cannot-cast", "pdt.fmax(t, t, out=pdt.empty(0, dtype=pdt.int64))",
      "pydevtensor.DTypeError", r"fmax\(\): result type pydevtensor.float32 can't be cast to "
      r"the desired output type pydevtensor.int64 \(out \(0,\), on cpu\)"),
    C("sgn-out-dtype", "pdt.sgn(t, out=pdt.empty(0, dtype=pdt.float64))", "RuntimeError",
      r"sgn\(\): Expected out tensor to have dtype pydevtensor.float32, but got "
      r"pydevtensor.float64 instead"),
    C("square-out-grad", "pdt.square(t.requires_grad_(), out=pdt.empty(0))", "RuntimeError",
      r"square\(\): functions with out=... arguments don't support automatic "
      r"differentiation"),
    C("lerp-out-cannot-cast", "pdt.lerp(t, t, 0.5, out=pdt.empty(0, dtype=pdt.int64))",
      "pydevtensor.DTypeError", r"lerp\(\): result type pydevtensor.float32 can't be cast to "
      r"the desired output type pydevtensor.int64 \(out \(0,\), on cpu\)"),
    C("dot-out-dtype", "pdt.dot(t[0], t[1], out=pdt.empty((), dtype=pdt.float64))",
      "RuntimeError", r"dot\(\): Expected out tensor to have dtype pydevtensor.float32, but "
      r"got pydevtensor.float64 instead"),
    # the ops given out= by _out.takes_out: the linear algebra, diag, outer, logsumexp, bmm
    # and where
    C("linalg.inv-out-dtype", "pdt.linalg.inv(pdt.eye(2), out=pdt.empty(0, dtype=pdt.float64))",
      "RuntimeError", r"linalg\.inv\(\): Expected out tensor to have dtype "
      r"pydevtensor.float32, but got pydevtensor.float64 instead"),
    C("linalg.slogdet-out-tensor", "pdt.linalg.slogdet(pdt.eye(2), out=pdt.empty(0))",
      "TypeError", r"linalg\.slogdet\(\): out must be a tuple of 2 Tensors \(sign, "
      r"logabsdet\), got Tensor"),
    C("cholesky_solve-out-cannot-cast", "pdt.cholesky_solve(pdt.eye(2), pdt.eye(2), "
      "out=pdt.empty(0, dtype=pdt.int64))", "pydevtensor.DTypeError",
      r"cholesky_solve\(\): result type pydevtensor.float32 can't be cast to the desired "
      r"output type pydevtensor.int64"),
    C("linalg.norm-out-grad", "pdt.linalg.norm(t.requires_grad_(), out=pdt.empty(0))",
      "RuntimeError", r"linalg\.norm\(\): functions with out=... arguments don't support "
      r"automatic differentiation"),
    C("nansum-out-int", "pdt.nansum(t, out=pdt.empty(0, dtype=pdt.int64))",
      "NotImplementedError", r"nansum\(\): a pydevtensor.float32 input into a "
      r"pydevtensor.int64 out \(of shape \(0,\) on cpu\)"),
    C("nansum-out-list", "pdt.nansum(t, out=[1.0])", "TypeError",
      r"nansum\(\): argument 'out' must be a Tensor, got list"),
    C("where-out-shape", "pdt.where(t > 0, t, 0.0, out=pdt.empty(4))", "RuntimeError",
      r"where\(\): out has shape \(4,\), the result \(2, 3\) \(on cpu\); pydevtensor "
      r"does not resize out"),
    # the scatters, diff and tensordot (takes_out, or their own out= in Python)
    C("index_add-out-dtype", "pdt.index_add(t, 0, pdt.tensor([1]), t[:1], "
      "out=pdt.empty(0, dtype=pdt.float64))", "RuntimeError",
      r"index_add\(\): Expected out tensor to have dtype pydevtensor.float32, but got "
      r"pydevtensor.float64 instead"),
    C("diff-out-shape", "pdt.diff(t, out=pdt.empty(3))", "RuntimeError",
      r"diff\(\): out has shape \(3,\), the result \(2, 2\) \(on cpu\); pydevtensor "
      r"does not resize out"),
    C("tensordot-out-leaf-requiring-grad", "pdt.tensordot(t, t, ([0], [0]), "
      "out=pdt.empty(0, requires_grad=True))", "RuntimeError", r"tensordot\(\): functions "
      r"with out=... arguments don't support automatic differentiation"),
    C("inner-out-leaf-requiring-grad", "pdt.inner(t, t, out=pdt.empty(0, requires_grad=True))",
      "RuntimeError", r"inner\(\): functions with out=... arguments don't support"),
    C("tensordot-out-grad", "pdt.tensordot(t.requires_grad_(), t, ([0], [0]), "
      "out=pdt.empty(0))", "RuntimeError", r"tensordot\(\): functions with out=... "
      r"arguments don't support automatic differentiation"),
]
