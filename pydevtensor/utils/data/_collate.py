"""Collation of ``pydevtensor.utils.data``: ``default_collate`` joins a list of samples
into a batch, ``default_convert`` turns one unbatched sample's NumPy arrays and scalars
into tensors, as ``torch.utils.data``'s functions of those names."""
from __future__ import annotations

import copy
import numbers
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

import numpy as np

from ... import _C
from ..._interop import as_tensor as _as_tensor
from ..._ops_join import stack as _stack

__all__ = ["default_collate", "default_convert"]


def _numeric_array(a):
    """True for a NumPy array or scalar of a dtype a tensor can hold (not str/object)."""
    return a.dtype.kind not in "SaUO"


def _rebuild(elem, fields):
    """fields in elem's container type: a named tuple, a list for other tuples (as
    PyTorch), else the sequence's own type when it can be built from a list."""
    if isinstance(elem, tuple):
        return type(elem)(*fields) if hasattr(elem, "_fields") else fields
    try:
        return type(elem)(fields)
    except TypeError:
        return fields


def _rebuild_map(elem, items):
    """A mapping of elem's type holding items: a copy of elem updated when it is mutable
    (a defaultdict keeps its default_factory, as PyTorch's collate keeps it), else the
    type built from items, else a dict."""
    if isinstance(elem, MutableMapping):
        try:
            clone = copy.copy(elem)
            clone.clear()
            clone.update(items)
            return clone
        except TypeError:
            pass
    try:
        return type(elem)(items)
    except TypeError:
        return dict(items)


def default_convert(data: Any) -> Any:
    """Converts one sample without batching it, as PyTorch's ``default_convert`` (what a
    DataLoader with ``batch_size=None`` applies): NumPy arrays and NumPy scalars become
    tensors of their dtype (arrays of strings or objects, and subclasses of ndarray from
    outside NumPy, such as ``np.ma.MaskedArray``, stay), tuples become lists,
    and dicts, named tuples and lists are converted field by field; anything else
    (tensors included) is returned as it is.

    Parameters
    ----------
    data : any
        The sample.

    Returns
    -------
    any
        The converted sample.

    Examples
    --------
    >>> import numpy as np
    >>> from pydevtensor.utils import data
    >>> data.default_convert((np.array([1., 2.], dtype=np.float32), np.int64(3), 'a'))
    [tensor([1., 2.]), tensor(3), 'a']
    """
    if isinstance(data, (np.ndarray, np.generic)) and not isinstance(data, (str, bytes)):
        # NumPy's own types only, as PyTorch's test of the type's module: a subclass from
        # elsewhere (np.ma.MaskedArray) stays, its mask not dropped
        numpy_own = type(data).__module__ == "numpy"
        return _as_tensor(data) if numpy_own and _numeric_array(data) else data
    if isinstance(data, Mapping):
        return _rebuild_map(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Sequence):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def default_collate(batch: Sequence[Any]) -> Any:
    """Joins a list of samples into a batch, as PyTorch's ``default_collate``: tensors
    are stacked (on their device), NumPy arrays and NumPy scalars stacked into a CPU
    tensor of their dtype (``np.float32`` gives float32), Python floats give float64;
    ints give int64 and bools bool tensors, unless the batch mixes them (the dtype
    ``tensor(batch)`` infers: a float among ints gives float32), strings stay as they come (a tuple
    when they are a field of the samples); dicts, named tuples, tuples
    and lists are joined field by field (tuples and lists give a list, as in PyTorch).

    Parameters
    ----------
    batch : sequence
        The samples, all of one structure.

    Returns
    -------
    Tensor, list, dict or named tuple
        The batch.

    Raises
    ------
    TypeError
        For a sample of another type (or a NumPy array of strings or objects).
    RuntimeError
        When sequence samples have different lengths, or tensors different shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from pydevtensor.utils import data
    >>> data.default_collate([(pydevtensor.tensor([1., 2.]), 0), (pydevtensor.tensor([3., 4.]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    >>> data.default_collate([np.float32(0.5), np.float32(2)]).dtype
    pydevtensor.float32
    """
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _stack(list(batch))
    if isinstance(elem, (np.ndarray, np.generic)) and not isinstance(elem, (str, bytes)):
        if not _numeric_array(elem):
            raise TypeError(f"default_collate: a batch of NumPy arrays of dtype {elem.dtype} "
                            f"cannot become a tensor; samples must hold numbers, tensors, "
                            f"dicts or sequences")
        if isinstance(elem, np.generic):
            return _as_tensor(np.asarray(batch))
        return _stack([_as_tensor(np.asarray(b)) for b in batch])
    if isinstance(elem, numbers.Integral):
        # the dtype of all of them, as PyTorch's torch.tensor(batch): bools give bool,
        # ints (with bools) int64, and a float among them the default dtype
        return _C.tensor(list(batch))
    if isinstance(elem, numbers.Real):
        return _C.tensor(list(batch), dtype=_C.float64)
    if isinstance(elem, (str, bytes)):
        return batch  # a field of tuple samples stays a tuple, as in PyTorch
    if isinstance(elem, Mapping):
        return _rebuild_map(elem, {key: default_collate([sample[key] for sample in batch])
                                   for key in elem})
    if isinstance(elem, Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError(f"default_collate: the samples are sequences of different "
                               f"lengths ({sorted({len(s) for s in batch})}); each needs "
                               f"the same number of fields")
        fields = [default_collate(samples) for samples in zip(*batch)]
        return _rebuild(elem, fields)
    raise TypeError(f"default_collate: a sample must hold Tensors, NumPy arrays, numbers, "
                    f"strings, dicts or sequences; found {type(elem).__name__}")
