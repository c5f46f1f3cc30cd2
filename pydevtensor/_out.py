"""out= of the ops written in Python (index_select, gather, masked_select, take, sort,
topk, the scans, ...), by PyTorch's rules: the result is computed as without out, then
written into out, which is returned (a tuple of outs for (values, indices) results,
as the op's return_types named tuple).

An out of the result's dtype and device with no elements (and no base: a view's
storage cannot grow) takes the result's shape, as PyTorch resizes it; a non-empty out
of another shape is refused (PyTorch resizes it too, with a deprecation warning), as
is another dtype or device (_check_out).  The elementwise ops take PyTorch's rule of
the C ones instead (castable=True): out may have any dtype that the result's can be
cast to (can_cast: no float into an integer or bool, nothing but bool into bool), the
values converted as they are written.  Where an
argument requires grad and grad mode is on, out= raises, as PyTorch's does (the ops
decorated with autograd.dispatch.recorded refuse it there).  takes_out gives an op
written in Python all of this as a decorator (the linear algebra, diag, outer, where).
"""
import inspect
import re
import types

from . import _C
from ._dtype_info import can_cast
from .autograd.grad_mode import no_grad


def refuse_grad(op, *args):
    """RuntimeError (PyTorch's) when grad mode is on and a Tensor among args (or in a
    tuple or list there: a tuple out) requires grad: an op written into out= records no
    gradient."""
    flat = [t for a in args for t in (a if isinstance(a, (tuple, list)) else (a,))]
    if _C.is_grad_enabled() and any(isinstance(t, _C.Tensor) and t.requires_grad
                                    for t in flat):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support "
                           f"automatic differentiation, but one of the arguments requires "
                           f"grad.")


def _write_out(result, out, op, castable=False):
    """Copies result into out (PyTorch's out=): out must be a Tensor of result's dtype
    (or one it can be cast to, castable=True), device and shape (PyTorch resizes an out
    of another shape with elements, with a deprecation warning; pydevtensor raises)."""
    _check_out(result, out, op, castable)
    with no_grad():
        out.copy_(result)
    return out


def _check_out(result, out, op, castable=False):
    """_write_out's checks of out, without the write."""
    if not isinstance(out, _C.Tensor):
        raise TypeError(f"{op}(): out must be a Tensor, got {type(out).__name__}")
    if castable:
        if not can_cast(result.dtype, out.dtype):  # the C elementwise ops' DTypeError
            raise _C.DTypeError(f"{op}(): result type {result.dtype} can't be cast to the "
                                f"desired output type {out.dtype} (out {tuple(out.shape)}, "
                                f"on {out.device})")
    elif out.dtype != result.dtype:
        raise RuntimeError(f"{op}(): Expected out tensor to have dtype {result.dtype}, but "
                           f"got {out.dtype} instead")
    if out.device != result.device:
        raise _C.DeviceError(f"{op}(): out is on {out.device}, the result on {result.device}")
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(f"{op}(): out has shape {tuple(out.shape)}, the result "
                           f"{tuple(result.shape)} (on {out.device}); pydevtensor does not "
                           f"resize out")


def _resized(result, out, castable=False, column_major=False):
    """out given result's shape when it has no elements (nor a base), and result's dtype
    (or one it can be cast to, castable=True) and device (else _check_out says what is
    wrong).  column_major: out takes the strides of a result whose matrices are
    column-major (LAPACK's layout, with or without batch dimensions), as PyTorch's
    linear algebra resizes its outs; else row-major ones."""
    if (isinstance(out, _C.Tensor) and out.numel() == 0 and out._base is None
            and (out.dtype == result.dtype
                 or castable and can_cast(result.dtype, out.dtype))
            and out.device == result.device
            and tuple(out.shape) != tuple(result.shape)):
        shape = tuple(result.shape)
        if column_major and result.ndim >= 2 and result.mT.is_contiguous():
            from ._ops_small_names import empty_strided  # (late: loaded after _out)
            out.data = empty_strided(shape, result.stride(), dtype=out.dtype,
                                     device=out.device)
        else:
            out.data = _C.empty(shape, dtype=out.dtype, device=out.device)


def _out_written(result, out, op, castable=False, column_major=False):
    """Writes result into out (see the module's docstring) and returns out: out of
    result's dtype, or with castable=True (the elementwise ops) of any dtype result's
    can be cast to; column_major as _resized's."""
    _resized(result, out, castable, column_major)
    return _write_out(result, out, op, castable)


def _outs_written(results, out, op, return_type, castable=False, column_major=False):
    """The tuple variant: out a tuple (or list) of as many Tensors as results, each
    checked (all before any is written) and written as _out_written does; returns
    return_type(*out); column_major as _resized's."""
    if not (isinstance(out, (tuple, list)) and len(out) == len(results)):
        got = (f"{type(out).__name__} of {len(out)}" if isinstance(out, (tuple, list))
               else type(out).__name__)
        fields = getattr(return_type, "_fields", None) or return_type.__match_args__
        raise TypeError(f"{op}(): out must be a tuple of {len(results)} Tensors "
                        f"({', '.join(fields)}), got {got}")
    for r, o in zip(results, out):
        _resized(r, o, castable, column_major)
        _check_out(r, o, op, castable)
    with no_grad():
        for r, o in zip(results, out):
            o.copy_(r)
    # a named tuple (the ops in Python) or a struct sequence (max and min, made in C)
    return return_type._make(out) if hasattr(return_type, "_make") else return_type(out)


def takes_out(op, castable=False, tuple_of=None, differentiable=True, column_major=False):
    """Decorator: fn gains PyTorch's keyword-only out=, by the rules above: fn's result
    computed as without out, then written into out (castable: of any dtype the result's
    can be cast to), out returned; tuple_of names the results of a tuple result (out a
    tuple of as many Tensors, returned as fn's named tuple).  out= where an argument
    requires grad and grad mode is on raises (refuse_grad), unless differentiable=False
    (an op whose result never requires grad: PyTorch's writes it); column_major: an
    empty out of a column-major result is made column-major (_resized).  The docstring's
    Parameters gain out, the signature too."""
    def wrap(fn):
        def with_out(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            if differentiable:
                refuse_grad(op, *args, *kwargs.values(), out)
            result = fn(*args, **kwargs)
            if tuple_of:
                return _outs_written(result, out, op, type(result), castable, column_major)
            return _out_written(result, out, op, castable, column_major)

        # fn's names and attributes (a recorded op's), not its docstring nor signature:
        # those gain out; __wrapped__ stays fn's body, as _numpy_names._like keeps it
        for attr in ("__module__", "__name__", "__qualname__"):
            setattr(with_out, attr, getattr(fn, attr, op))
        with_out.__dict__.update({k: v for k, v in getattr(fn, "__dict__", {}).items()
                                  if k not in ("__doc__", "__signature__")})
        with_out.__wrapped__ = getattr(fn, "__wrapped__", fn)
        try:
            sig = _signature(fn)
        except (TypeError, ValueError):
            sig = None
        if sig is not None and "out" not in sig.parameters:
            params = list(sig.parameters.values())
            kw = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
            at = next((i for i, p in enumerate(params) if p.kind == p.VAR_KEYWORD),
                      len(params))
            with_out.__signature__ = sig.replace(parameters=params[:at] + [kw] + params[at:])
        with_out.__doc__ = _doc_with_out(fn.__doc__, tuple_of, castable)
        return with_out
    return wrap


_PLAIN_TEXT_SIGNATURE = re.compile(r"\((\w+(?:, \w+)*)\)")


def _signature(fn):
    """inspect.signature(fn), built directly where fn is (or wraps) a C function whose
    text signature only names its parameters, '(input, other)': inspect reads those with
    tokenize, and compiling tokenize's patterns for the first one took ~3 ms of import."""
    inner = inspect.unwrap(fn, stop=lambda f: hasattr(f, "__signature__"))
    m = (_PLAIN_TEXT_SIGNATURE.fullmatch(inner.__text_signature__ or "")
         if isinstance(inner, types.BuiltinFunctionType) else None)
    if m is None:
        return inspect.signature(fn)
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature([inspect.Parameter(n, kind) for n in m.group(1).split(", ")])


def _doc_with_out(doc, tuple_of=None, castable=False):
    """doc with out in its Parameters (before the Returns section, at its indent)."""
    what = (f"tuple of Tensors, optional\n    Written with the results ({tuple_of}), of "
            f"their shapes,\n    dtypes and device" if tuple_of else
            "Tensor, optional\n    Written with the result (of its shape and device, of any "
            "dtype\n    the result's can be cast to)" if castable else
            "Tensor, optional\n    Written with the result (of its shape, dtype and device)")
    m = re.search(r"\n([ \t]*)Returns\n[ \t]*-{3,}", doc or "")
    if m is None:
        return doc
    text = "\n".join(m.group(1) + line for line in f"out : {what}, and returned.".split("\n"))
    return doc[:m.start()] + text + "\n" + doc[m.start():]


# sum, prod and mean compute in out's dtype when dtype= is not given, as PyTorch's do,
# also where out has input's dtype and the result's would be another (a bool or int32
# input sums into int64 without out, into a bool or int32 out in out's dtype)
_IN_OUTS_DTYPE = ("sum", "prod", "mean")


def _reduction_out(name, *args, out, **kw):
    """out= of the reductions written in C (sum, mean, prod, amax, amin, argmax, argmin,
    max, min, norm), which hand the call here: the method's result, written into out
    (a (values, indices) tuple for max/min along a dim) by the rules above."""
    if args:
        input, args = args[0], args[1:]
    elif "input" in kw:
        input = kw.pop("input")
    else:
        raise TypeError(f"{name}() missing required argument 'input' (position 1)")
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be a Tensor, got "
                        f"{type(input).__name__}")
    refuse_grad(name, input, out)
    if name in _IN_OUTS_DTYPE and kw.get("dtype") is None and isinstance(out, _C.Tensor):
        kw["dtype"] = out.dtype
    result = getattr(_C.Tensor, name)(input, *args, **kw)
    if isinstance(result, tuple):
        return _outs_written(result, out, name, type(result))
    return _out_written(result, out, name)


def _method_of(fn, name, sig):
    """fn (of signature sig) as a Tensor method: the same call, but out= refused with
    PyTorch's TypeError (its methods take no out=; only the functions do), the
    signature without out."""
    def method(*args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out' (out= is "
                            f"taken by the function pydevtensor.{name}, not the method)")
        return fn(*args, **kwargs)

    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(method, attr, getattr(fn, attr, name))
    method.__wrapped__ = fn
    method.__signature__ = sig.replace(
        parameters=[p for p in sig.parameters.values() if p.name != "out"])
    return method


_SKIPPED_BY_METHODS_WITHOUT_OUT = (type, staticmethod, classmethod, types.BuiltinFunctionType,
                                   types.MethodDescriptorType, types.WrapperDescriptorType,
                                   types.ClassMethodDescriptorType)


def methods_without_out(cls, names=None):
    """Replaces each method of cls written in Python that takes out= (the functions set
    on Tensor as its methods: x.diff, x.index_add, x.scatter, ...) by _method_of's
    wrapper, so that ``x.diff(out=o)`` raises TypeError as PyTorch's method does; only
    those of the given names when names is given (a module loaded on first use)."""
    attrs = vars(cls)
    items = list(attrs.items()) if names is None else [(n, attrs[n]) for n in names
                                                        if n in attrs]
    for name, fn in items:
        # the C methods refuse out= themselves: skipped without reading their text
        # signatures (inspect's parse of ~270 of them was a third of import's time)
        if not callable(fn) or isinstance(fn, _SKIPPED_BY_METHODS_WITHOUT_OUT) or \
                _plain_function_without_out(fn):
            continue
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            continue
        out = sig.parameters.get("out")
        if out is not None and out.kind == inspect.Parameter.KEYWORD_ONLY:
            setattr(cls, name, _method_of(fn, name, sig))


def _plain_function_without_out(fn):
    """True when fn is a Python function whose signature inspect reads from its code
    alone (nothing in its __dict__ overrides it) and whose code has no name 'out'."""
    return (type(fn) is types.FunctionType and "out" not in fn.__code__.co_varnames
            and not any(k in fn.__dict__ for k in ("__wrapped__", "__signature__",
                                                    "_partialmethod")))
