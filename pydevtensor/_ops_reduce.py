"""Public names of the reductions (issue 4), re-exported by pydevtensor/__init__.

sum, mean, prod, max, min, amax, amin, argmax, argmin and norm, each also a Tensor
method.  ``max(x, dim)`` and ``min(x, dim)`` return ``(values, indices)`` as a
``return_types.max`` / ``return_types.min`` (a named struct sequence, like
``torch.return_types``).  See Note [reduction accuracy] in csrc/core/pdt_reduce.h
for the float32 tolerance.
"""
import types as _types

from . import _C

sum = _C.sum
mean = _C.mean
prod = _C.prod
max = _C.max
min = _C.min
amax = _C.amax
amin = _C.amin
argmax = _C.argmax
argmin = _C.argmin
norm = _C.norm

_max_type, _min_type = _C._return_types()
return_types = _types.SimpleNamespace(max=_max_type, min=_min_type)
return_types.__doc__ = "The (values, indices) result types of max(dim) and min(dim)."

__all__ = ["amax", "amin", "argmax", "argmin", "max", "mean", "min", "norm", "prod",
           "return_types", "sum"]
