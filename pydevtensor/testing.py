"""pydevtensor.testing: ``assert_close`` and ``make_tensor`` (_testing_make.py), as
``torch.testing``'s."""
from __future__ import annotations

import cmath
import math
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from . import _C
from ._testing_make import make_tensor

__all__ = ["assert_close", "make_tensor"]

# PyTorch's default (rtol, atol) per dtype; other dtypes compare exactly.
_DEFAULT_TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5),
                "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


class _Mismatch(Exception):
    def __init__(self, kind, message, structural=False):
        super().__init__(message)
        self.kind = kind  # the exception class to raise
        self.structural = structural  # PyTorch does not apply msg to these


def _fail(message, kind=AssertionError, structural=False):
    raise _Mismatch(kind, message, structural)


def _mismatch_message(exact, head, abs_diff, atol, rel_diff, rtol, at=None):
    """PyTorch's message: the header, then the absolute and relative differences (the
    greatest ones, with their index, for tensors of more than 0 dims)."""
    def diff(label, value, allowed):
        text = (f"{label.title()} difference: {value}" if at is None else
                f"Greatest {label} difference: {value} at index {at[label]}")
        return text + ("" if exact else f" (up to {allowed} allowed)")
    return "\n".join([head, diff("absolute", abs_diff, atol), diff("relative", rel_diff, rtol)])


def _scalar_message(actual, expected, rtol, atol):
    diff = abs(actual - expected)
    exact = rtol == 0 and atol == 0
    return _mismatch_message(
        exact, f"Scalars are not {'equal' if exact else 'close'}!\n\nExpected {expected} but "
        f"got {actual}.", diff, atol, math.inf if expected == 0 else diff / abs(expected), rtol)


def _tensor_pair(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                 check_stride):
    for name, get in (("shape", lambda t: t.shape),
                      ("stride()", (lambda t: t.stride()) if check_stride else None),
                      ("device", (lambda t: t.device) if check_device else None),
                      ("dtype", (lambda t: t.dtype) if check_dtype else None)):
        if get is not None and get(actual) != get(expected):
            _fail(f"The values for attribute '{name}' do not match: {get(actual)} != "
                  f"{get(expected)}.")
    if rtol is None:
        names = {str(t.dtype).split(".")[-1] for t in (actual, expected)}
        tols = [_DEFAULT_TOL.get(n, (0.0, 0.0)) for n in names]
        rtol, atol = max(t[0] for t in tols), max(t[1] for t in tols)
    a = actual.detach().cpu()
    e = expected.detach().cpu()
    if a.dtype == _C.bfloat16 or a.dtype == _C.float16:
        a = a.to(_C.float32)
    if e.dtype == _C.bfloat16 or e.dtype == _C.float16:
        e = e.to(_C.float32)
    a, e = a.numpy(), e.numpy()
    exact = a.dtype.kind in "biu" and e.dtype.kind in "biu"
    wide = np.float64 if not exact else np.int64
    a64, e64 = a.astype(wide), e.astype(wide)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(a64 - e64)
        ok = diff <= atol + rtol * np.abs(e64)
        if not exact:  # an infinite difference (inf and -inf, or a finite x) is not close
            ok &= np.isfinite(diff)
            ok |= a64 == e64  # equal infinities
            if equal_nan:
                ok |= np.isnan(a64) & np.isnan(e64)
    if ok.all():
        return
    if a64.ndim == 0:  # PyTorch's message for 0-d tensors
        _fail(_scalar_message(a.item(), e.item(), rtol, atol))
    bad = int((~ok).sum())
    total = ok.size
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = diff / np.abs(e64) if not exact else diff / np.abs(e64).astype(np.float64)

    def greatest(values):
        flat = np.where(ok, -np.inf, np.where(np.isnan(values), np.inf, values)).reshape(-1)
        i = int(np.argmax(flat))
        at = tuple(int(x) for x in np.unravel_index(i, values.shape))
        return values.reshape(-1)[i].item(), at

    (abs_diff, abs_at), (rel_diff, rel_at) = greatest(diff), greatest(rel)
    exact_cmp = rtol == 0 and atol == 0
    _fail(_mismatch_message(
        exact_cmp, f"Tensor-likes are not {'equal' if exact_cmp else 'close'}!\n\n"
        f"Mismatched elements: {bad} / {total} ({100 * bad / total:.1f}%)",
        abs_diff, atol, rel_diff, rtol, {"absolute": abs_at, "relative": rel_at}))


def _number_pair(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and type(actual) is not type(expected):
        _fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    if rtol is None:  # those of int64, float64 and complex128, as PyTorch's
        floating = any(isinstance(x, (float, complex)) for x in (actual, expected))
        rtol, atol = (1e-7, 1e-7) if floating else (0.0, 0.0)
    if actual == expected:
        return
    if equal_nan and all(isinstance(x, (float, complex)) and cmath.isnan(x)
                         for x in (actual, expected)):
        return
    diff = abs(actual - expected)
    if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected):
        return
    _fail(_scalar_message(actual, expected, rtol, atol))


def _as_number(x):
    """x as a Python number (NumPy's scalars too), or None; bools are not numbers."""
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, np.number):
        return x.item()
    return x if isinstance(x, (int, float, complex)) else None


def _compare_leaf(actual, expected, kw):
    rtol, atol, equal_nan, check_device, check_dtype, check_stride = kw
    if isinstance(actual, _C.Tensor) and isinstance(expected, _C.Tensor):
        return _tensor_pair(actual, expected, *kw)
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        from ._interop import as_tensor
        return _tensor_pair(as_tensor(actual), as_tensor(expected), *kw)
    if actual is None or expected is None:
        if actual is not expected:
            _fail(f"None mismatch: {actual} is not {expected}")
        return True
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        if bool(actual) is not bool(expected):
            _fail(f"Booleans mismatch: {bool(actual)} is not {bool(expected)}")
        return True
    a, e = _as_number(actual), _as_number(expected)
    if a is not None and e is not None:
        return _number_pair(a, e, rtol, atol, equal_nan, check_dtype)
    return False


def _compare(actual, expected, where, kw):
    try:
        if _compare_leaf(actual, expected, kw) is not False:
            return
        if isinstance(actual, Mapping) and isinstance(expected, Mapping):
            if set(actual) != set(expected):
                _fail(f"The keys of the mappings do not match:\nMissing keys in the actual "
                      f"mapping: {sorted(set(expected) - set(actual))}\nAdditional keys in the "
                      f"actual mapping: {sorted(set(actual) - set(expected))}", structural=True)
        elif (isinstance(actual, Sequence) and isinstance(expected, Sequence)
              and not isinstance(actual, str) and not isinstance(expected, str)):
            if len(actual) != len(expected):
                _fail(f"The length of the sequences mismatch: {len(actual)} != "
                      f"{len(expected)}", structural=True)
        else:
            _fail(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                  f"{type(expected)}.", TypeError, structural=True)
    except _Mismatch as m:
        if where:
            raise _Mismatch(m.kind, f"{m}\n\nThe failure occurred for item {where}",
                            m.structural) from None
        raise
    items = actual.keys() if isinstance(actual, Mapping) else range(len(actual))
    for k in items:
        _compare(actual[k], expected[k], f"{where}[{k!r}]", kw)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Asserts that actual and expected are close, as ``torch.testing.assert_close``:
    tensors (or NumPy arrays, or Python and NumPy numbers, bools, None, or sequences
    and mappings of them compared item by item) of one shape, device and dtype whose
    elements satisfy ``abs(actual - expected) <= atol + rtol * abs(expected)``.  The
    defaults depend on the dtype: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32
    (1.3e-6, 1e-5), float64 and Python floats (1e-7, 1e-7), integers and bool exact.
    NaNs are equal only with equal_nan=True.

    Parameters
    ----------
    actual, expected : Tensor, ndarray, number, sequence or mapping
    allow_subclasses : bool, optional
        Accepted for PyTorch's signature.
    rtol, atol : float, optional
        Both or neither.
    equal_nan : bool, optional
        Two NaNs compare equal (default False).
    check_device, check_dtype : bool, optional
        Whether devices and dtypes must match (default True); without, both are compared
        on the CPU in float64.
    check_layout : bool, optional
        Accepted for PyTorch's signature (pydevtensor tensors are all strided).
    check_stride : bool, optional
        Whether the tensors' strides must match (default False).
    msg : str or callable, optional
        Replaces the whole message, or (a callable) maps the message, with the item
        where the failure occurred, to one.

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        When they are not close; the message gives the number of mismatched elements
        and the greatest absolute and relative differences with their index.
    ValueError
        When only one of rtol and atol is given.
    TypeError
        When the inputs cannot be compared (a tensor and a number, say).

    Examples
    --------
    >>> from pydevtensor.testing import assert_close
    >>> assert_close(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 2. + 1e-7]))
    >>> try:
    ...     assert_close(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 2.5]))
    ... except AssertionError as e:
    ...     print(str(e).splitlines()[0])
    Tensor-likes are not close!
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but "
                         f"got no {'atol' if atol is None else 'rtol'}.")
    kw = (rtol, atol, equal_nan, check_device, check_dtype, check_stride)
    try:
        _compare(actual, expected, "", kw)
    except _Mismatch as m:
        # PyTorch's: a str replaces the whole message, a callable maps it
        raise m.kind(str(m) if m.structural or msg is None else
                     msg if isinstance(msg, str) else msg(str(m))) from None
