"""More of PyTorch's top-level ATen names: the in-place methods as functions
(``torch.as_strided_``, ``index_put_``, ``resize_as_``), ``as_strided_scatter``,
``empty_permuted``, and the convolution and padding ops in ATen's form
(``constant_pad_nd``, ``convolution``, ``conv_tbc``), which call nn.functional's,
imported on first use (Note [lazy submodules] in __init__.py)."""
from . import _C
from ._memory_format import contiguous_format
from ._ops_aten_losses import _functional
from ._ops_index import _int_arg, _tensor_arg

__all__ = ["as_strided_", "index_put_", "resize_as_", "as_strided_scatter", "empty_permuted",
           "constant_pad_nd", "convolution", "conv_tbc"]


def as_strided_(input, size, stride, storage_offset=None):
    """``input.as_strided_(size, stride, storage_offset)``: input becomes the view of its
    storage with that shape and those strides, as PyTorch's ``torch.as_strided_``.

    Parameters
    ----------
    input : Tensor
    size, stride : sequence of ints
    storage_offset : int, optional
        Default: input's.

    Returns
    -------
    Tensor
        input.

    Raises
    ------
    TypeError, ValueError
        As :meth:`Tensor.as_strided_`.

    Examples
    --------
    >>> x = pydevtensor.arange(6.)
    >>> pydevtensor.as_strided_(x, (2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    return _tensor_arg(input, "as_strided_").as_strided_(size, stride, storage_offset)


def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` (added there with accumulate) in place, as PyTorch's
    ``torch.index_put_``.

    Parameters
    ----------
    input : Tensor
    indices : tuple of Tensor
        One index tensor per leading dimension (None: the whole dimension).
    values : Tensor
        Broadcast to the indexed shape.
    accumulate : bool, optional
        Add (repeated indices add up) rather than write.

    Returns
    -------
    Tensor
        input.

    Raises
    ------
    TypeError, IndexError
        As :meth:`Tensor.index_put_`.

    Examples
    --------
    >>> x = pydevtensor.zeros(3)
    >>> pydevtensor.index_put_(x, (pydevtensor.tensor([0, 0, 2]),), pydevtensor.tensor(1.), True)
    tensor([2., 0., 1.])
    """
    return _tensor_arg(input, "index_put_").index_put_(indices, values, accumulate)


def resize_as_(input, the_template, *, memory_format=None):
    """``input.resize_as_(the_template)``: input takes the_template's shape, as PyTorch's
    ``torch.resize_as_``.

    Parameters
    ----------
    input : Tensor
    the_template : Tensor
        Gives the shape.
    memory_format : memory_format, optional

    Returns
    -------
    Tensor
        input.

    Raises
    ------
    TypeError, RuntimeError
        As :meth:`Tensor.resize_as_`.

    Examples
    --------
    >>> pydevtensor.resize_as_(pydevtensor.zeros(2, 3), pydevtensor.zeros(6)).shape
    pydevtensor.Size([6])
    """
    return _tensor_arg(input, "resize_as_").resize_as_(the_template,
                                                       memory_format=memory_format)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input with src written into its view ``as_strided(size, stride,
    storage_offset)``, as PyTorch's ``torch.as_strided_scatter``; the gradient reaches
    input outside the view and src inside it.

    Parameters
    ----------
    input : Tensor
    src : Tensor
        Of shape size, broadcast to it.
    size, stride : sequence of ints
        The view (of a contiguous copy of input).
    storage_offset : int, optional
        Default 0.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError, ValueError, RuntimeError
        When an argument is not a Tensor, the view reaches outside input, or src does
        not broadcast to size.

    Examples
    --------
    >>> pydevtensor.as_strided_scatter(pydevtensor.zeros(6), pydevtensor.ones(2, 2),
    ...                                (2, 2), (1, 2))
    tensor([1., 1., 1., 1., 0., 0.])
    """
    from ._ops_strided import as_strided
    x = _tensor_arg(input, "as_strided_scatter")
    _tensor_arg(src, "as_strided_scatter", "src")
    out = x.clone(memory_format=contiguous_format)
    as_strided(out, size, stride, storage_offset).copy_(src)
    return out


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """An uninitialised tensor of shape size whose dimensions lie in memory in the order
    physical_layout (outermost first), as PyTorch's ``torch.empty_permuted``:
    ``empty([size[i] for i in physical_layout]).permute(inverse)``.

    Parameters
    ----------
    size : sequence of ints
    physical_layout : sequence of ints
        A permutation of range(len(size)); (0, 1, ..., n - 1) is contiguous.
    dtype, layout, device, pin_memory, requires_grad : optional
        As :func:`empty`.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        When physical_layout is not a permutation of size's dimensions.

    Examples
    --------
    >>> pydevtensor.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    size = [_int_arg(v, "empty_permuted", "size") for v in size]
    order = [_int_arg(v, "empty_permuted", "physical_layout") for v in physical_layout]
    if len(order) != len(size):
        raise RuntimeError(f"empty_permuted(): Number of dimensions in size does not match the "
                           f"length of the physical_layout; i.e. len(size) = {len(size)} is "
                           f"not equal to len(physical_layout) = {len(order)}")
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"empty_permuted(): physical_layout must be a permutation of "
                           f"0..{len(size) - 1} (no duplicate dims), got {tuple(order)}")
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    kwargs = {"dtype": dtype, "device": device, "pin_memory": pin_memory}
    if layout is not None:
        kwargs["layout"] = layout
    out = _C.empty([size[d] for d in order], **kwargs).permute(inverse)
    return out.requires_grad_() if requires_grad else out


def constant_pad_nd(input, pad, value=0):
    """Pads input with value, ATen's form of ``nn.functional.pad(input, pad, 'constant',
    value)`` (PyTorch's ``torch.constant_pad_nd``): pad holds (before, after) pairs from
    the last dimension backwards; negative amounts crop.

    Parameters
    ----------
    input : Tensor
    pad : sequence of ints
        An even number of amounts, at most two per dimension.
    value : number, optional
        Default 0.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError, ValueError
        As :func:`~pydevtensor.nn.functional.pad`.

    Examples
    --------
    >>> pydevtensor.constant_pad_nd(pydevtensor.ones(1, 2), [1, 0], 5.)
    tensor([[5., 1., 1.]])
    """
    return _functional().pad(input, pad, mode="constant", value=value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """ATen's convolution (PyTorch's ``torch.convolution``): nn.functional's conv1d, conv2d
    or conv3d (or conv_transpose1d/2d/3d when transposed), chosen by weight's dimensions;
    every argument required.

    Parameters
    ----------
    input : Tensor
    weight : Tensor
        3, 4 or 5 dimensions.
    bias : Tensor or None
    stride, padding, dilation, output_padding : sequence of ints
        output_padding is used only when transposed.
    transposed : bool
    groups : int

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError, ValueError, RuntimeError
        When weight has another number of dimensions; as the convolutions otherwise.

    Examples
    --------
    >>> x = pydevtensor.ones(1, 1, 4)
    >>> pydevtensor.convolution(x, pydevtensor.ones(1, 1, 2), None, [1], [0], [1], False,
    ...                         [0], 1)
    tensor([[[2., 2., 2.]]])
    """
    w = _tensor_arg(weight, "convolution", "weight")
    n = w.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"convolution(): weight must have 3, 4 or 5 dimensions (a 1-, 2- "
                           f"or 3-d convolution), got shape {tuple(w.shape)}")
    F = _functional()
    if transposed:
        return getattr(F, f"conv_transpose{n}d")(input, w, bias, stride, padding,
                                                 output_padding, groups, dilation)
    return getattr(F, f"conv{n}d")(input, w, bias, stride, padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0):
    """A 1-d convolution over time of input laid out (time, batch, channels), as PyTorch's
    ``torch.conv_tbc``: weight is (kernel width, in channels, out channels), the output
    (time + 2 pad - width + 1, batch, out channels).

    Parameters
    ----------
    input : Tensor
        ``(T, B, C_in)``.
    weight : Tensor
        ``(k, C_in, C_out)``.
    bias : Tensor
        ``(C_out,)``.
    pad : int, optional
        Zeros at both ends of time (default 0).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError, RuntimeError
        When the shapes do not fit together (as PyTorch's checks).

    Examples
    --------
    >>> x = pydevtensor.ones(3, 1, 1)
    >>> pydevtensor.conv_tbc(x, pydevtensor.ones(2, 1, 1), pydevtensor.zeros(1), 1).flatten()
    tensor([1., 2., 2., 1.])
    """
    x = _tensor_arg(input, "conv_tbc")
    w = _tensor_arg(weight, "conv_tbc", "weight")
    b = _tensor_arg(bias, "conv_tbc", "bias")
    pad = _int_arg(pad, "conv_tbc", "pad")
    if x.dim() != 3 or w.dim() != 3 or b.dim() != 1:
        raise RuntimeError(f"conv_tbc(): input and weight must have 3 dimensions and bias 1, "
                           f"got shapes {tuple(x.shape)}, {tuple(w.shape)} and "
                           f"{tuple(b.shape)}")
    if x.shape[2] != w.shape[1]:
        raise RuntimeError(f"conv_tbc(): Input dim 2 (input channels) is not == dim 1 in the "
                           f"weight tensor ({x.shape[2]} and {w.shape[1]})")
    if b.shape[0] != w.shape[2]:
        raise RuntimeError(f"conv_tbc(): Bias size must equal dim 2 in the weight tensor "
                           f"(output channels) ({b.shape[0]} and {w.shape[2]})")
    out = _functional().conv1d(x.permute(1, 2, 0), w.permute(2, 1, 0), b, padding=pad)
    return out.permute(2, 0, 1)
