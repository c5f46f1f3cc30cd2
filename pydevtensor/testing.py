"""pydevtensor.testing: ``assert_close``, as ``torch.testing.assert_close``."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from . import _C

__all__ = ["assert_close"]

# PyTorch's default (rtol, atol) per dtype; other dtypes compare exactly.
_DEFAULT_TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5),
                "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


class _Mismatch(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind  # the exception class to raise


def _fail(message, msg, kind=AssertionError):
    raise _Mismatch(kind, msg(message) if callable(msg) else (msg or message))


def _tensor_pair(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg):
    for name, get in (("shape", lambda t: t.shape),
                      ("device", (lambda t: t.device) if check_device else None),
                      ("dtype", (lambda t: t.dtype) if check_dtype else None)):
        if get is not None and get(actual) != get(expected):
            _fail(f"The values for attribute '{name}' do not match: {get(actual)} != "
                  f"{get(expected)}.", msg)
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
        if not exact:
            ok |= a64 == e64  # equal infinities
            if equal_nan:
                ok |= np.isnan(a64) & np.isnan(e64)
    if ok.all():
        return
    bad = int((~ok).sum())
    total = ok.size
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = diff / np.abs(e64) if not exact else diff / np.abs(e64).astype(np.float64)
    exact_cmp = rtol == 0 and atol == 0

    def line(label, values, allowed):
        flat = np.where(ok, -np.inf, np.where(np.isnan(values), np.inf, values)).reshape(-1)
        i = int(np.argmax(flat)) if flat.size else 0
        at = tuple(int(x) for x in np.unravel_index(i, values.shape)) if values.ndim else ()
        value = values.reshape(-1)[i] if values.ndim else values
        value = value.item() if hasattr(value, "item") else value
        tail = "" if exact_cmp else f" (up to {allowed} allowed)"
        return f"Greatest {label} difference: {value} at index {at}{tail}"

    lines = [f"Tensor-likes are not {'equal' if exact_cmp else 'close'}!", "",
             f"Mismatched elements: {bad} / {total} ({100 * bad / total:.1f}%)",
             line("absolute", diff, atol), line("relative", rel, rtol)]
    _fail("\n".join(lines), msg)


def _number_pair(actual, expected, rtol, atol, equal_nan, check_dtype, msg):
    if check_dtype and type(actual) is not type(expected):
        _fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.", msg)
    if rtol is None:
        floating = any(isinstance(x, (float, complex)) for x in (actual, expected))
        rtol, atol = (1.3e-6, 1e-5) if floating else (0.0, 0.0)
    if actual == expected:
        return
    if equal_nan and all(isinstance(x, float) and math.isnan(x) for x in (actual, expected)):
        return
    diff = abs(actual - expected)
    if diff <= atol + rtol * abs(expected):
        return
    kind = "equal" if rtol == 0 and atol == 0 else "close"
    _fail(f"Scalars are not {kind}!\n\nExpected {expected} but got {actual}.\nAbsolute "
          f"difference: {diff} (up to {atol} allowed)\nRelative difference: "
          f"{diff / abs(expected) if expected else math.inf} (up to {rtol} allowed)", msg)


def _is_number(x):
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _compare(actual, expected, where, kw):
    try:
        if isinstance(actual, _C.Tensor) and isinstance(expected, _C.Tensor):
            return _tensor_pair(actual, expected, *kw)
        if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
            from ._interop import as_tensor
            return _tensor_pair(as_tensor(actual), as_tensor(expected), *kw)
        if _is_number(actual) and _is_number(expected):
            rtol, atol, equal_nan, _, check_dtype, msg = kw
            return _number_pair(actual, expected, rtol, atol, equal_nan, check_dtype, msg)
    except _Mismatch as m:
        if where:
            raise _Mismatch(m.kind, f"{m}\n\nThe failure occurred for item {where}") from None
        raise
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(AssertionError, f"The keys of the mappings do not match: "
                                            f"{sorted(map(str, actual))} != "
                                            f"{sorted(map(str, expected))}")
        for k in actual:
            _compare(actual[k], expected[k], f"{where}[{k!r}]", kw)
        return
    if (isinstance(actual, Sequence) and isinstance(expected, Sequence)
            and not isinstance(actual, str) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: "
                                            f"{len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{where}[{i}]", kw)
        return
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                               f"{type(actual)} and {type(expected)}.")


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Asserts that actual and expected are close, as ``torch.testing.assert_close``:
    tensors (or NumPy arrays, or Python numbers, or sequences and mappings of them
    compared item by item) of one shape, device and dtype whose elements satisfy
    ``abs(actual - expected) <= atol + rtol * abs(expected)``.  The defaults depend on
    the dtype: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32 (1.3e-6, 1e-5),
    float64 (1e-7, 1e-7), integers and bool exact.  NaNs are equal only with
    equal_nan=True.

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
    check_layout, check_stride : bool, optional
        Accepted for PyTorch's signature (pydevtensor tensors are all strided).
    msg : str or callable, optional
        Replaces the message, or (a callable) maps it to one.

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
    kw = (rtol, atol, equal_nan, check_device, check_dtype, msg)
    try:
        _compare(actual, expected, "", kw)
    except _Mismatch as m:
        raise m.kind(str(m)) from None
