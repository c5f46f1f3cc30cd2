"""Public names of the view operations (issue 4), re-exported by pydevtensor/__init__.

reshape, flatten, transpose, t, permute, squeeze and unsqueeze as functions; as
methods also ``view``, ``.T``, and basic indexing ``x[0]``, ``x[:, 1:3]``,
``x[..., None]``, ``x[::-1]`` (views that share storage) with ``x[idx] = value``
(a number, or a Tensor on the same device, broadcast).
"""
from . import _C

reshape = _C.reshape
flatten = _C.flatten
transpose = _C.transpose
t = _C.t
permute = _C.permute
squeeze = _C.squeeze
unsqueeze = _C.unsqueeze

__all__ = ["flatten", "permute", "reshape", "squeeze", "t", "transpose", "unsqueeze"]
