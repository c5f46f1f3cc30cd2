"""The in-place view methods: ``t_``, ``transpose_``, ``swapdims_``, ``swapaxes_``,
``unsqueeze_``, ``squeeze_`` and ``as_strided_`` change the shape and strides of the
tensor itself (the same object, the same memory), as PyTorch's do.

Note [in-place views and autograd]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The new shape is the out-of-place view's (``x.t()``, ...), put into x as ``x.data =``
does, so every check of the view op applies and x keeps its own version counter.  The
counter is bumped, as PyTorch's in-place ops bump it: a graph that saved x (``y = w *
x`` saves x for w's gradient) would otherwise read it in its new shape; with the bump,
its backward refuses, naming the change.  A leaf that requires grad is refused with
grad mode on (PyTorch's in-place leaf rule).  A tensor with a grad_fn takes the view's
node in its place, as PyTorch records it (``b = a * 2; b.unsqueeze_(0)``: b's grad_fn
is UnsqueezeBackward0 after MulBackward0); a view with a grad_fn is still refused
(its base's other views would have to follow): ``x = x.t()`` is the way there.
"""
from . import _C

LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation."


def _into(self, view, name):
    """self, now with view's shape, strides and offset (view shares its memory)."""
    node = None
    if self.requires_grad and _C.is_grad_enabled():
        if self.grad_fn is None:
            raise RuntimeError(LEAF_MSG)
        if self._base is not None:
            raise RuntimeError(f"{name}(): a view in the autograd graph (grad_fn "
                               f"{type(self.grad_fn).__name__}) cannot change its shape in "
                               f"place; write x = x.{name[:-1]}(...) instead (shape "
                               f"{tuple(self.shape)}, on {self.device})")
        # PyTorch's: the view op takes the tensor's place in the graph (view, made
        # with grad mode on, is recorded after self's node)
        node = (view.grad_fn, view.output_nr)
    self._bump_version()
    self.data = view.detach() if node is not None else view
    if node is not None:
        self._set_grad_fn(*node)
    return self


def t_(self):
    """``t()`` in place: self transposed (0-d and 1-d unchanged), as the same object.

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    RuntimeError
        When self has more than 2 dimensions, or is a leaf that requires grad or a view
        in the autograd graph (Note [in-place views and autograd]).

    Examples
    --------
    >>> x = pydevtensor.arange(6).reshape(2, 3)
    >>> x.t_().shape
    pydevtensor.Size([3, 2])
    """
    return _into(self, self.t(), "t_")


def transpose_(self, dim0, dim1):
    """``transpose(dim0, dim1)`` in place (also ``swapdims_``, ``swapaxes_``).

    Parameters
    ----------
    dim0, dim1 : int
        The dimensions swapped.

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    IndexError
        When a dim is out of range.
    RuntimeError
        When self is a leaf that requires grad or a view in the autograd graph
        (Note [in-place views and autograd]).

    Examples
    --------
    >>> x = pydevtensor.zeros(2, 3, 4)
    >>> x.transpose_(0, 2).shape
    pydevtensor.Size([4, 3, 2])
    """
    return _into(self, self.transpose(dim0, dim1), "transpose_")


def swapdims_(self, dim0, dim1):
    return _into(self, self.transpose(dim0, dim1), "swapdims_")


def swapaxes_(self, axis0, axis1):
    return _into(self, self.transpose(axis0, axis1), "swapaxes_")


_SWAP_DOC = """``transpose_({a}0, {a}1)``: {who} name for it.

    Parameters
    ----------
    {a}0, {a}1 : int
        The dimensions swapped.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> pydevtensor.zeros(2, 3).{name}(0, 1).shape
    pydevtensor.Size([3, 2])
    """
swapdims_.__doc__ = _SWAP_DOC.format(a="dim", who="PyTorch's other", name="swapdims_")
swapaxes_.__doc__ = _SWAP_DOC.format(a="axis", who="NumPy's", name="swapaxes_")


def unsqueeze_(self, dim):
    """``unsqueeze(dim)`` in place: a dimension of size 1 inserted at dim.

    Parameters
    ----------
    dim : int
        Where (negative counts from the end of the new shape).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    IndexError
        When dim is out of range.
    RuntimeError
        When self is a leaf that requires grad or a view in the autograd graph
        (Note [in-place views and autograd]).

    Examples
    --------
    >>> pydevtensor.zeros(2, 3).unsqueeze_(1).shape
    pydevtensor.Size([2, 1, 3])
    """
    return _into(self, self.unsqueeze(dim), "unsqueeze_")


def squeeze_(self, dim=None):
    """``squeeze(dim)`` in place: the dimensions of size 1 removed (all, or those in dim).

    Parameters
    ----------
    dim : int or tuple of ints, optional
        Which dimensions (default every one of size 1).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    IndexError
        When a dim is out of range.
    RuntimeError
        When self is a leaf that requires grad or a view in the autograd graph
        (Note [in-place views and autograd]).

    Examples
    --------
    >>> pydevtensor.zeros(2, 1, 3, 1).squeeze_().shape
    pydevtensor.Size([2, 3])
    """
    return _into(self, self.squeeze() if dim is None else self.squeeze(dim), "squeeze_")


def as_strided_(self, size, stride, storage_offset=None):
    """``as_strided(size, stride, storage_offset)`` in place.

    Parameters
    ----------
    size, stride : sequence of ints
        The new shape and strides (in elements).
    storage_offset : int, optional
        The first element's position in the storage (default self's).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    RuntimeError
        When the view reaches past the storage, or self is a leaf that requires grad
        or a view in the autograd graph (Note [in-place views and autograd]).

    Examples
    --------
    >>> x = pydevtensor.arange(6.)
    >>> x.as_strided_((2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    return _into(self, self.as_strided(size, stride, storage_offset), "as_strided_")


__all__ = []  # methods only, as PyTorch's

for _fn in (t_, transpose_, swapdims_, swapaxes_, unsqueeze_, squeeze_, as_strided_):
    setattr(_C.Tensor, _fn.__name__, _fn)
