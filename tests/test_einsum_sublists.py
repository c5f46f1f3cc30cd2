"""einsum's sublist form, PyTorch's einsum(a, [0, 1], b, [1, 2], [0, 2]): each operand
followed by its subscripts as ints (0-25 for 'A'-'Z', 26-51 for 'a'-'z') or Ellipsis,
the output's list last and optional.  Against NumPy's einsum, which has the same form
and maps the ints to the same letters."""
import numpy as np
import pytest

import pydevtensor as pdt

E = Ellipsis
CASES = [  # (operand shapes and sublists, output sublist or None)
    ([((2, 3), [0, 1]), ((3, 4), [1, 2])], [0, 2]),
    ([((2, 3), [0, 1]), ((3, 4), [1, 2])], None),
    ([((2, 3), [30, 1])], None),  # 'e' and 'B': the implicit output sorts 'B' first
    ([((2, 3), [1, 0])], [0]),
    ([((2, 2, 3), [E, 0, 1]), ((3, 4), [1, 2])], [E, 0, 2]),
    ([((2, 2, 3), [E, 0, 1]), ((3, 4), [1, 2])], None),
    ([((2, 3), (0, 1)), ((3, 4), (1, 2)), ((4,), [2])], [0]),
    ([((3, 3), [51, 51])], []),  # a trace, with the last subscript ('z')
]


@pytest.mark.parametrize("ops,out", CASES)
def test_sublists_match_numpy(device, ops, out):
    rng = np.random.default_rng(len(ops))
    arrays = [rng.standard_normal(shape) for shape, _ in ops]
    args, ref_args = [], []
    for x, (_, sub) in zip(arrays, ops):
        args += [pdt.tensor(x, device=device), sub]
        ref_args += [x, sub]
    if out is not None:
        args.append(out)
        ref_args.append(out)
    got = pdt.einsum(*args)
    ref = np.einsum(*ref_args)
    assert got.device == device
    np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-12, atol=1e-12)


def test_sublists_equal_the_equation(device):
    a = pdt.arange(6.0, device=device).reshape(2, 3)
    b = pdt.arange(12.0, device=device).reshape(3, 4)
    assert pdt.equal(pdt.einsum(a, [0, 1], b, [1, 2], [2, 0]), pdt.einsum("AB,BC->CA", a, b))


def test_sublist_gradient(device):
    a = pdt.ones(2, 3, device=device, requires_grad=True)
    b = pdt.arange(12.0, device=device).reshape(3, 4)
    pdt.einsum(a, [0, 1], b, [1, 2], [0, 2]).sum().backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), np.tile(b.sum(1).cpu().numpy(), (2, 1)))


@pytest.mark.parametrize("args,err,msg", [
    (lambda t: (t, [0, 52]), ValueError, r"subscript 52 in operand 0's .* \[0, 52\)"),
    (lambda t: (t, [-1, 0]), ValueError, r"subscript -1 in operand 0's"),
    (lambda t: (t, [0, 1], [0, 60]), ValueError, r"subscript 60 in the output's"),
    (lambda t: (t, ["a", 1]), TypeError, r"operand 0's subscripts must be ints .* got str"),
    (lambda t: (t, [True, 1]), TypeError, r"got bool True"),
    (lambda t: (t, [0, 1], t), TypeError, r"the output's subscripts must be a list .* Tensor"),
    (lambda t: (t, 3), TypeError, r"operand 0's subscripts must be a list of ints, got int"),
    (lambda t: (t, [0, 1, 2]), RuntimeError, r"have 3 dims for an operand of shape \(2, 3\)"),
])
def test_sublist_errors(device, args, err, msg):
    with pytest.raises(err, match=msg):
        pdt.einsum(*args(pdt.ones(2, 3, device=device)))
