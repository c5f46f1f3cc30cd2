"""torch.func.vmap by a loop over the examples: each example is selected along its
in_dim, func is called on it, and the results are stacked along the out_dims.

PyTorch runs func once on batched tensors (its batching rules); here func runs once per
example, so the cost is linear in the batch size with no fusion, but any function of
unbatched tensors works, with autograd (the selections and the stack are recorded, so a
loss of the results gives the loop's gradients) and with the other transforms of
pydevtensor.func (``vmap(grad(f))``, ``jacrev(vmap(f))``, ``vmap(vmap(f))``).

randomness is checked on the default generator, the one stream of every device
(_generator.py): its state before and after each example tells whether func drew.
Draws from a ``Generator`` of the caller's are not seen.
"""
import functools

from . import _C
from ._func_transforms import _leaves, _rebuild
from ._generator import default_generator
from ._ops_join import stack as _stack

__all__ = ["vmap"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please "
                 "either use the 'same' or 'different' randomness flags on vmap or perform "
                 "the randomness operation out of vmap")


def _is_dim(d):
    return d is None or (isinstance(d, int) and not isinstance(d, bool))


def _spec(tree):
    """A pytree's structure, as PyTorch's messages show it."""
    if isinstance(tree, (tuple, list)):
        return f"{type(tree).__name__}({', '.join(_spec(t) for t in tree)})"
    if isinstance(tree, dict):
        return "dict(" + ", ".join(f"{k!r}: {_spec(v)}" for k, v in tree.items()) + ")"
    return "*"


def _broadcast(dims, tree, fail):
    """The dims of tree's leaves, in order: dims is a prefix of tree (an int or None
    stands for every leaf below it); fail() raises when the structures differ."""
    if not isinstance(dims, (tuple, list, dict)):
        return [dims] * len(_leaves(tree))
    if isinstance(dims, dict):
        if not isinstance(tree, dict) or list(dims) != list(tree):
            fail()
        return [d for k in dims for d in _broadcast(dims[k], tree[k], fail)]
    same_kind = isinstance(tree, tuple) if isinstance(dims, tuple) else isinstance(tree, list)
    if not same_kind or len(dims) != len(tree):
        fail()
    return [d for p, t in zip(dims, tree) for d in _broadcast(p, t, fail)]


def _flat_in_dims(in_dims, args, where):
    if not args:
        raise ValueError(f"{where}: got no inputs. Maybe you forgot to add inputs, or you are "
                         f"trying to vmap over a function with no inputs. The latter is "
                         f"unsupported.")
    if not (isinstance(in_dims, tuple) or (_is_dim(in_dims) and in_dims is not None)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")

    def fail():
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {_spec(in_dims)} but inputs has structure "
                         f"{_spec(args)}.")
    return _broadcast(in_dims, args, fail)


def _batched(flat_dims, flat_args, where):
    """The in_dims made non-negative, and the batch size."""
    dims, sizes = [], []
    for d, x in zip(flat_dims, flat_args):
        if not _is_dim(d):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either "
                             f"an integer dimension or None.")
        if d is not None:
            if not isinstance(x, _C.Tensor):
                raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of "
                                 f"type {type(x)}. We cannot vmap over non-Tensor arguments, "
                                 f"please use None as the respective in_dim")
            n = x.dim()
            if not -n <= d < n:
                raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is "
                                 f"a Tensor of dimensionality {n} (shape {tuple(x.shape)}, "
                                 f"on {x.device}) so expected in_dim to satisfy "
                                 f"-{n} <= in_dim < {n}.")
            d %= n
            sizes.append(x.shape[d])
        dims.append(d)
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        shapes = [tuple(x.shape) for d, x in zip(dims, flat_args) if d is not None]
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension (inputs of "
                         f"shapes {shapes}, in_dims {[d for d in dims if d is not None]})")
    return dims, sizes[0]


def _example(x, d, i):
    """Example i of x along d; for an empty batch (i None) zeros of an example's shape,
    still in x's graph."""
    if d is None:
        return x
    if i is None:
        return x.narrow(d, 0, 0).sum(d).to(x.dtype)
    return x.select(d, i)


def _same(values):
    """Whether the values (one output of every example) are all the same."""
    first = values[0]
    for v in values[1:]:
        if v is first:
            continue
        if isinstance(first, _C.Tensor) != isinstance(v, _C.Tensor):
            return False
        if not isinstance(v, _C.Tensor):
            if v != first:
                return False
        elif (v.shape != first.shape or v.dtype != first.dtype or v.device != first.device
              or not bool(((v == first) | ((v != v) & (first != first))).all())):
            return False
    return True


def _stacked(values, od, size, name, where):
    """The outputs of the examples (values) as one, the batch at od."""
    first = values[0]
    if od is None:
        if not _same(values):
            raise ValueError(f"{where}: `{name}` can not return a BatchedTensor when out_dim "
                             f"is None (its outputs differ between the examples)")
        return first
    if not isinstance(first, _C.Tensor):
        raise ValueError(f"{where}: `{name}` must only return Tensors, got type "
                         f"{type(first)}. Did you mean to set out_dims= to None for output?")
    n = first.dim() + 1
    if not -n <= od < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {od}) (out_dims for an output of shape {tuple(first.shape)})")
    if size == 0:
        return first.unsqueeze(od).narrow(od, 0, 0)
    return _stack(values, dim=od)


def _run(func, args, kwargs, in_dims, out_dims, randomness, name):
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    flat_args = _leaves(args)
    dims, size = _batched(_flat_in_dims(in_dims, args, where), flat_args, where)
    start = default_generator._get_state()
    outs = []
    for i in range(size) if size else [None]:
        if randomness == "same":
            default_generator._set_state(*start)
        before = default_generator._get_state()
        example = _rebuild(args, iter([_example(x, d, i) for x, d in zip(flat_args, dims)]))
        outs.append(func(*example, **kwargs))
        if randomness == "error" and default_generator._get_state() != before:
            default_generator._set_state(*before)  # as PyTorch's, which refuses the draw
            raise RuntimeError(_RANDOM_ERROR)
    where = f"vmap({name}, ..., out_dims={out_dims})(<inputs>)"
    flat_outs = [_leaves(o) for o in outs]
    if any(len(f) != len(flat_outs[0]) for f in flat_outs):
        raise RuntimeError(f"{where}: `{name}` returned outputs of different structures for "
                           f"different examples")
    out = outs[0]
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and isinstance(out, _C.Tensor):
        out_dims = out_dims[0]  # PyTorch's: (d,) for a single output

    def fail():
        raise ValueError(f"{where}: out_dims is not compatible with the structure of "
                         f"`outputs`. out_dims has structure {_spec(out_dims)} but outputs "
                         f"has structure {_spec(out)}.")
    flat_dims = _broadcast(out_dims, out, fail)
    if not all(_is_dim(d) for d in flat_dims):
        raise ValueError(f"{where}: `out_dims` must be an int, None or a python collection "
                         f"of ints representing where in the outputs the vmapped dimension "
                         f"should appear.")
    if not flat_dims:
        return out
    return _rebuild(out, iter([_stacked([f[k] for f in flat_outs], od, size, name, where)
                               for k, od in enumerate(flat_dims)]))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """A function that maps func over a dimension of its inputs and stacks the results,
    as ``torch.func.vmap`` (also ``pydevtensor.vmap``).

    func is called once per example (the inputs selected at one index of their in_dim),
    in turn: the cost is linear in the batch size, with none of the fusion of PyTorch's
    batching rules, but the results are the same, and they keep autograd (a loss of
    them gives the gradients of the loop).  vmap composes with itself and with the
    other transforms of :mod:`pydevtensor.func`.

    Parameters
    ----------
    func : callable
        Takes tensors (or tuples, lists and dicts of them, and other values) and
        returns a Tensor or a tuple, list or dict of them.
    in_dims : int or tuple, optional
        The dimension of every input to map over (default 0), or a tuple with one entry
        per positional argument: an int, None for an argument not mapped over (passed
        whole to every call), or a tuple, list or dict matching the argument's
        structure (an int or None stands for all of a structure).  Negative dims count
        from the end.  Keyword arguments are passed whole.
    out_dims : int, None or tuple, optional
        Where the batch dimension goes in each output (default 0), in the structure of
        the outputs as in_dims is in that of the inputs.  None for an output that does
        not depend on the example (it is returned once).  Whether it does is told by
        the values (PyTorch follows which tensors come from the batch): an output equal
        in every example is taken, so with a batch of one any output is, where PyTorch
        refuses one computed from the batch.
    randomness : str, optional
        'error' (default): func must not draw from the default generator; 'different':
        each example draws its own numbers, in turn; 'same': every example draws the
        same numbers (the generator is left as after one example).
    chunk_size : int, optional
        How many examples PyTorch runs per call (> 0); here they run one at a time, so
        it does not change anything.

    Returns
    -------
    callable
        Taking func's arguments (batched as in_dims says) and returning func's outputs
        with the batch dimension at out_dims.

    Raises
    ------
    ValueError
        When in_dims or out_dims do not match the structure of the inputs or outputs,
        an in_dim is out of range or is given for a non-Tensor, no input is mapped, the
        mapped inputs' sizes differ, func returns a non-Tensor (its out_dim not None),
        an output with out_dim None differs between the examples, or chunk_size is not
        positive.
    RuntimeError
        When randomness is not one of the three, or is 'error' and func draws from the
        default generator (draws from a Generator of func's own are not seen).
    IndexError
        When an out_dim is out of range for its output.

    Notes
    -----
    An empty batch (size 0) calls func once, on zeros of an example's shape, to learn
    the outputs' shapes and dtypes, which come back with a batch dimension of size 0.
    Unlike PyTorch, func may call ``.item()`` on its tensors and branch on their values.

    Examples
    --------
    >>> from pydevtensor.func import grad, vmap
    >>> x = pydevtensor.tensor([[1., 2.], [3., 4.]])
    >>> vmap(lambda v: v.dot(v))(x)
    tensor([ 5., 25.])
    >>> vmap(lambda v, w: v * w, in_dims=(1, None))(x, pydevtensor.tensor([1., 10.]))
    tensor([[ 1., 30.],
            [ 2., 40.]])
    >>> w = pydevtensor.tensor([1., 1.])
    >>> vmap(grad(lambda w, v: w.dot(v) ** 2), in_dims=(None, 0))(w, x)
    tensor([[ 6., 12.],
            [42., 56.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (isinstance(chunk_size, bool)
                                   or not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. "
                         f"(got {chunk_size})")
    name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _run(func, args, kwargs, in_dims, out_dims, randomness, name)
    return wrapped
