"""Autocast's thread-local state and the casts it applies at the ops' entry points.

Kept free of heavy imports: the ops' modules import :func:`lower`, :func:`fp32` and
:func:`promote` from here while pydevtensor itself is being imported.  A wrapped op is a
``_C._AutocastOp``: when autocast is off in every thread it calls the op directly, in C
(Note [autocast's check in C], csrc/python/op_wrappers.c); while some thread has it on,
the Python wrapper below reads this thread's flag (``_state.active``) and casts.
"""
import functools
import threading

DEVICE_TYPES = ("cpu", "cuda")


class _State(threading.local):
    active = False  # any device type enabled in this thread: the fast path's one check

    def __init__(self):
        from .. import _C
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {"cpu": _C.bfloat16, "cuda": _C.float16}
        self.cache_enabled = True
        self.cache = {}
        self.depth = 0  # nested autocast regions; the cache is cleared leaving the outermost


_state = _State()


_lock = threading.Lock()
_on = 0  # threads with autocast on, mirrored into the C wrappers' check
#          (_C._autocast_set_threads); written under _lock
_methods = {}  # name -> (original, wrapper), filled by _policy.install()


def _refresh():
    """Recomputes this thread's flag after autocast was turned on or off; the first
    thread to turn it on wraps Tensor's methods (x @ w, x.mm(w), ...), the last to turn
    it off restores them, so that ``@`` costs nothing extra outside autocast."""
    was, now = _state.active, any(_state.enabled.values())
    _state.active = now
    if was == now:
        return
    from .. import _C
    global _on
    with _lock:
        _on += 1 if now else -1
        _C._autocast_set_threads(_on)
        if _on == (1 if now else 0):
            for name, (orig, wrapper) in _methods.items():
                setattr(_C.Tensor, name, wrapper if now else orig)


def _halves():
    from .. import _C
    return (_C.float16, _C.bfloat16)


def _cast(t, dtype):
    """t.to(dtype), through the cache for leaf float32 tensors that require grad (the
    weights), as PyTorch's autocast caches them within one region."""
    if t.dtype == dtype:
        return t
    from .. import _C
    if (_state.cache_enabled and t.requires_grad and t.is_leaf and t.dtype == _C.float32
            and _C.is_grad_enabled()):
        key = (id(t), dtype)
        hit = _state.cache.get(key)
        if hit is not None and hit[0] is t and hit[1] == t._version:
            return hit[2]
        out = t.to(dtype)
        _state.cache[key] = (t, t._version, out)
        return out
    return t.to(dtype)


def _eligible(t):
    """The autocast dtype for t's device type when t is a floating tensor autocast may
    cast (float32 and the half types; never float64), else None."""
    from .. import _C
    if not isinstance(t, _C.Tensor):
        return None
    kind = t.device.type
    if not _state.enabled.get(kind, False):
        return None
    if t.dtype in (_C.float32, _C.float16, _C.bfloat16):
        return kind
    return None


def _map(args, kwargs, f):
    def one(a):
        if isinstance(a, (list, tuple)):
            return type(a)(one(x) for x in a)
        return f(a)
    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def _to_lower(kinds):
    def f(a):
        kind = _eligible(a)
        return a if kind not in kinds else _cast(a, _state.dtype[kind])
    return f


def _to_fp32(kinds):
    def f(a):
        if _eligible(a) not in kinds or a.dtype not in _halves():
            return a
        from .. import _C
        return a.to(_C.float32)
    return f


def _tensors(args, kwargs):
    from .. import _C
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, _C.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (x for x in a if isinstance(x, _C.Tensor))


def cpu_lower_dtype(t):
    """This thread's CPU autocast dtype when autocast would cast t there (a float32 or
    half CPU tensor under CPU autocast), else None: the dtype of the ops PyTorch runs
    as one kernel on its CPU lower list (the LSTM's mkldnn_rnn_layer)."""
    return _state.dtype["cpu"] if _eligible(t) == "cpu" else None


def cuda_lowered_states(x, h, c):
    """(h, c) cast to the CUDA autocast dtype when x is a CUDA tensor autocast casts (c
    may be None): the recurrent layers and cells run as PyTorch's kernels on its CUDA
    lower list (_cudnn_rnn, _thnn_fused_lstm_cell, _thnn_fused_gru_cell), whose states
    are cast, so that h' and c' are float16 (their products are lowered already)."""
    if _eligible(x) != "cuda":
        return h, c
    low = _state.dtype["cuda"]
    return h.to(low), None if c is None else c.to(low)


def plain(fn, *args, **kwargs):
    """fn(*args, **kwargs) with this thread's autocast off: the in-place forms of the
    listed ops (``c.addmm_(a, b)``), which PyTorch never autocasts, run through it."""
    if not _state.active:
        return fn(*args, **kwargs)
    _state.active = False
    try:
        return fn(*args, **kwargs)
    finally:
        _state.active = True


def _wrap(fn, cast, name, composite=()):
    """composite: the device types where PyTorch's op is not on autocast's lists but
    made of ops that are (tensordot's product on CPU): there its inner ops are autocast."""
    def slow(*args, **kwargs):  # called by the C wrapper while some thread has autocast on
        if kwargs.get("out") is not None:  # PyTorch never autocasts an out= call (result: out)
            return plain(fn, *args, **kwargs)
        if composite and any(_eligible(t) in composite for t in _tensors(args, kwargs)):
            return fn(*args, **kwargs)
        if _state.active:
            args, kwargs = cast(args, kwargs)
        # the op's own inner ops run without autocast, as PyTorch's (a float32 loss
        # built on matmul stays float32 inside)
        return plain(fn, *args, **kwargs)
    from .. import _C
    op = functools.update_wrapper(_C._AutocastOp(fn, slow), fn)
    op._autocast = name
    return op


def lower(fn, kinds=DEVICE_TYPES, composite=()):
    """Wraps fn: under autocast (of a device type in kinds) its floating inputs are cast
    to the autocast dtype (float16 or bfloat16) of their device type first (matmul,
    linear, conv, ...); composite as _wrap's."""
    low = _to_lower(kinds)
    return _wrap(fn, lambda args, kwargs: _map(args, kwargs, low), "lower", composite)


def unlisted(fn):
    """Wraps fn, an op on none of PyTorch's lists that is one kernel there but made of
    listed ops here (matrix_exp): under autocast it runs in its inputs' dtypes, nothing
    cast, and its inner ops are not autocast."""
    return _wrap(fn, lambda args, kwargs: (args, kwargs), "plain")


def lower_cuda(fn):
    """lower on CUDA tensors only (mv, addmv, addr, the RNN cells' products: PyTorch's
    CPU autocast leaves them in the input dtype)."""
    return lower(fn, kinds=("cuda",))


def fp32(fn, kinds=DEVICE_TYPES, opt_dtype=False, when=None):
    """Wraps fn: under autocast (of a device type in kinds) its float16/bfloat16 inputs
    are cast to float32 first (losses, norms, ...).  opt_dtype: the op takes dtype=, and
    an explicit one wins; when: a test of (args, kwargs), the calls cast (F.pad's modes)."""
    to32 = _to_fp32(kinds)

    def cast(args, kwargs):
        if ((opt_dtype and kwargs.get("dtype") is not None)
                or (when is not None and not when(args, kwargs))):
            return args, kwargs
        return _map(args, kwargs, to32)
    return _wrap(fn, cast, "fp32")


def fp32_cuda(fn):
    """fp32 on CUDA tensors only (PyTorch's CPU autocast leaves these ops in the input
    dtype): layer_norm, group_norm, exp, log, ..."""
    return fp32(fn, kinds=("cuda",))


def fp32_cpu(fn):
    """fp32 on CPU tensors only (PyTorch's CUDA autocast leaves these ops in the input
    dtype): the 3-d pools, grid_sample, ctc_loss, trace, the linear algebra, quantile."""
    return fp32(fn, kinds=("cpu",))


def fp32_cpu_lrn(fn):
    """fp32_cpu for local_response_norm of 4-d and larger inputs: PyTorch's is made of
    avg_pool3d there (on its CPU float32 list; a bfloat16 input gives float32), of
    avg_pool2d (on no list) for 3-d inputs."""
    def pooled_in_3d(args, kwargs):
        return getattr(args[0] if args else kwargs.get("input"), "ndim", 0) > 3
    return fp32(fn, kinds=("cpu",), when=pooled_in_3d)


def fp32_cpu_pad(fn):
    """fp32_cpu for F.pad's reflect and replicate modes (PyTorch's reflection_pad1d/2d and
    replication_pad1d/2d/3d; its reflection_pad3d, a reflect pad of 6 sizes, and its
    constant and circular pads keep the input dtype)."""
    def by_copy(args, kwargs):
        mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
        pad = args[1] if len(args) > 1 else kwargs.get("pad", ())
        three = hasattr(pad, "__len__") and len(pad) == 6
        return mode == "replicate" or (mode == "reflect" and not three)
    return fp32(fn, kinds=("cpu",), when=by_copy)


def fp32_cuda_opt_dtype(fn):
    """fp32_cuda for ops with an optional dtype= (softmax, log_softmax, sum, cumsum, ...)."""
    return fp32(fn, kinds=("cuda",), opt_dtype=True)


def _promote_cast(kinds):
    def cast(args, kwargs):
        from .. import _C
        dts = {t.dtype for t in _tensors(args, kwargs) if _eligible(t) in kinds}
        if len(dts) < 2:
            return args, kwargs
        wide = _C.float32 if _C.float32 in dts or len(dts) > 1 else dts.pop()

        def up(a):
            return a.to(wide) if _eligible(a) in kinds and a.dtype != wide else a
        return _map(args, kwargs, up)
    return cast


def promote(fn, composite=(), kinds=("cuda",)):
    """Wraps fn: under autocast (of a device type in kinds, default CUDA: addcmul, dot,
    index_put, ...; on CPU index_copy) its eligible floating inputs are cast to the
    widest floating dtype among them; composite: as _wrap's."""
    return _wrap(fn, _promote_cast(kinds), "promote", composite)


def fp32_cpu_promote_cuda(fn):
    """grid_sample: fp32 on CPU tensors (PyTorch's CPU float32 list), promote on CUDA
    tensors (its CUDA promote list: a float16 input with a float32 grid runs in
    float32)."""
    to32, up = _to_fp32(("cpu",)), _promote_cast(("cuda",))

    def cast(args, kwargs):
        return up(*_map(args, kwargs, to32))
    return _wrap(fn, cast, "promote")
