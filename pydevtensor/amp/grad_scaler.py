"""``GradScaler``: PyTorch's dynamic loss scaling for float16 training."""
import numbers
import struct
import warnings

from .. import _C

__all__ = ["GradScaler"]

_READY, _UNSCALED, _STEPPED = 0, 1, 2


def _accessors(name, cast, default, example):
    """GradScaler's get_NAME and set_NAME methods, for the attribute _NAME; the setter's
    argument is PyTorch's name (new_interval for an int, else new_factor)."""
    what = name.replace("_", " ")
    arg = "new_interval" if cast is int else "new_factor"

    def get(self):
        return getattr(self, "_" + name)

    if cast is int:
        def set_(self, new_interval):
            setattr(self, "_" + name, cast(new_interval))
    else:
        def set_(self, new_factor):
            setattr(self, "_" + name, cast(new_factor))

    get.__name__, set_.__name__ = f"get_{name}", f"set_{name}"
    get.__doc__ = f"""The {what}.

        Returns
        -------
        {cast.__name__}

        Examples
        --------
        >>> pydevtensor.amp.GradScaler("cpu").get_{name}()
        {default}
        """
    set_.__doc__ = f"""Sets the {what}.

        Parameters
        ----------
        {arg} : {cast.__name__}
            The new {what}.

        Returns
        -------
        None

        Examples
        --------
        >>> pydevtensor.amp.GradScaler("cpu").set_{name}({example})
        """
    return get, set_


_FLOAT32_MAX = 3.4028234663852886e38  # the largest finite float32


def _f32(x):
    """x rounded to float32 (inf past its range), as a Python float: the scale is a
    float32 tensor in PyTorch, each update computed in double and rounded once."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")

class GradScaler:
    """Scales the loss so that float16 gradients do not underflow, unscales the
    gradients before the optimizer's step, skips steps whose gradients hold inf or
    NaN and adapts the scale, as PyTorch's ``torch.amp.GradScaler``.

    The scale is kept on the host and on each gradient's device; the inf/NaN check of all
    of an optimizer's gradients is one device tensor, read once (one device-to-host copy
    on a GPU) at ``step``.

    Parameters
    ----------
    device : str, optional
        'cuda' (default) or 'cpu'.  With 'cuda' on a build or machine without CUDA the
        scaler warns and disables itself, as PyTorch's.
    init_scale : float, optional
        The first scale (default 2**16).
    growth_factor : float, optional
        Multiplies the scale after growth_interval steps without inf/NaN (default 2.0;
        must be > 1).
    backoff_factor : float, optional
        Multiplies the scale after a step with inf/NaN (default 0.5; must be in (0, 1)).
    growth_interval : int, optional
        Default 2000.
    enabled : bool, optional
        False makes every method a pass-through (default True).

    Raises
    ------
    AssertionError
        growth_factor <= 1 or backoff_factor >= 1 (PyTorch's class for these).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> model = nn.Linear(3, 1)
    >>> opt = pydevtensor.optim.SGD(model.parameters(), lr=0.1)
    >>> scaler = pydevtensor.amp.GradScaler("cpu", init_scale=1024.)
    >>> with pydevtensor.autocast("cpu"):
    ...     loss = model(pydevtensor.ones(4, 3)).float().pow(2).mean()
    >>> scaler.scale(loss).backward()
    >>> scaler.step(opt)
    >>> scaler.update()
    >>> scaler.get_scale()
    1024.0
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if not isinstance(device, str) or device not in ("cuda", "cpu"):
            raise RuntimeError(f"GradScaler: device must be 'cuda' or 'cpu', got {device!r}")
        self._device = device
        self._enabled = bool(enabled)
        if self._enabled and device == "cuda" and not _cuda_available():
            warnings.warn("pydevtensor.amp.GradScaler('cuda') is enabled, but CUDA is not "
                          "available.  Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
        self._init_scale = float(init_scale)
        self._scale = None  # host float once scale() was called (PyTorch's lazy scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._growth_tracker = 0
        self._on = {}  # device -> 1-element float32 tensor holding the scale there
        self._per_optimizer = {}  # id(optimizer) -> {"stage", "found_inf", "inf_host"}

    # -- scaling ----------------------------------------------------------------------
    def _scale_on(self, device):
        t = self._on.get(device)
        if t is None:
            # 0-d float32, as PyTorch's: a float16 loss is scaled in float32 (65536 is
            # past float16's range), a larger float16 output stays float16
            t = self._on[device] = _C.tensor(self._scale, dtype=_C.float32, device=device)
        return t

    def scale(self, outputs):
        """outputs (a Tensor, or a list/tuple of them, nested) multiplied by the scale.

        Parameters
        ----------
        outputs : Tensor or list or tuple
            Of Tensors, nested.

        Returns
        -------
        Tensor or list or tuple
            Of outputs' structure.

        Examples
        --------
        >>> s = pydevtensor.amp.GradScaler("cpu", init_scale=8.)
        >>> s.scale(pydevtensor.tensor([1., 2.]))
        tensor([ 8., 16.])
        """
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = _f32(self._init_scale)
            self._growth_tracker = self._init_growth_tracker

        def one(v):
            if isinstance(v, _C.Tensor):
                return v * self._scale_on(v.device)
            if isinstance(v, (list, tuple)):
                return type(v)(one(x) for x in v)
            if hasattr(v, "__iter__") and not isinstance(v, (str, bytes, dict)):
                return map(one, v)  # another iterable: lazily, as PyTorch's scale
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return one(outputs)

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY,
                                                              "found_inf": None,
                                                              "inf_host": None})

    def unscale_(self, optimizer):
        """Divides optimizer's gradients by the scale in place, and records (on the
        device, without reading it) whether any of them holds inf or NaN.

        Parameters
        ----------
        optimizer : optim.Optimizer
            Whose parameters' gradients are checked.

        Returns
        -------
        None

        Raises
        ------
        RuntimeError
            Called twice for one optimizer before update(), or after step().
        ValueError
            A gradient is float16 (PyTorch's rule: keep the parameters in float32).

        Examples
        --------
        >>> p = pydevtensor.nn.Parameter(pydevtensor.ones(2))
        >>> opt = pydevtensor.optim.SGD([p], lr=1.)
        >>> s = pydevtensor.amp.GradScaler("cpu", init_scale=4.)
        >>> s.scale(p.sum()).backward()
        >>> s.unscale_(opt)
        >>> p.grad
        tensor([1., 1.])
        """
        if not self._enabled:
            return
        self._check_scale("unscale_")
        st = self._state(optimizer)
        if st["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if st["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        grads = [p.grad for g in optimizer.param_groups for p in g["params"]
                 if p.grad is not None]
        for gr in grads:
            if gr.dtype == _C.float16:
                raise ValueError(f"Attempting to unscale FP16 gradients (a gradient of shape "
                                 f"{tuple(gr.shape)} on {gr.device}): keep the parameters "
                                 f"in float32 and let autocast cast them.")
        inv = _f32(1.0 / self._scale)  # PyTorch's scale.double().reciprocal().float()
        flags = {}  # device -> list of 0-d "all finite" tensors
        from .. import isfinite, stack
        from ..autograd.grad_mode import no_grad
        with no_grad():
            for gr in grads:
                gr.mul_(inv)
                flags.setdefault(gr.device, []).append(isfinite(gr).all())
            found = None
            for dev, fl in flags.items():
                bad = (~stack(fl).all()).to(_C.float32)
                found = bad if found is None else found + bad.to(found.device)
        st["found_inf"] = found  # None without gradients: no inf check recorded
        st["stage"] = _UNSCALED

    def _check_scale(self, what):
        if self._scale is None:
            raise AssertionError(f"Attempted {what} but _scale is None.  This may indicate "
                                 f"your script did not use scaler.scale(loss or outputs) "
                                 f"earlier in the iteration.")

    def step(self, optimizer, *args, **kwargs):
        """Unscales the gradients (unless ``unscale_`` was called) and runs
        ``optimizer.step(*args, **kwargs)`` unless a gradient holds inf or NaN; returns
        what the step returned (None when skipped).  Reads one flag from the device.

        Parameters
        ----------
        optimizer : optim.Optimizer
            Whose parameters' gradients are checked.
        *args, **kwargs
            Passed to optimizer.step.

        Returns
        -------
        object
            What optimizer.step returned, or None when it was skipped.

        Raises
        ------
        RuntimeError
            Called twice before update(), or with closure= (as PyTorch).
        AssertionError
            No parameter of optimizer has a gradient (no inf check was recorded).

        Examples
        --------
        >>> p = pydevtensor.nn.Parameter(pydevtensor.ones(1))
        >>> opt = pydevtensor.optim.SGD([p], lr=1.)
        >>> s = pydevtensor.amp.GradScaler("cpu")
        >>> s.scale(p.sum() * float("inf")).backward()
        >>> s.step(opt)  # skipped: the gradient is inf
        >>> p
        Parameter containing:
        tensor([1.], requires_grad=True)
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale("step")
        st = self._state(optimizer)
        if st["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] == _READY:
            self.unscale_(optimizer)
        assert st["found_inf"] is not None, "No inf checks were recorded for this optimizer."
        st["inf_host"] = float(st["found_inf"].sum().item())  # the one device read
        result = None
        if not st["inf_host"]:
            result = optimizer.step(*args, **kwargs)
        st["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Backs the scale off if a step this iteration saw inf/NaN, else grows it every
        growth_interval steps; or sets it to new_scale (a float or 1-element tensor).

        Parameters
        ----------
        new_scale : float or Tensor, optional
            The scale to set instead.

        Returns
        -------
        None

        Examples
        --------
        >>> s = pydevtensor.amp.GradScaler("cpu")
        >>> _ = s.scale(pydevtensor.ones(1))
        >>> s.update(new_scale=128.)
        >>> s.get_scale()
        128.0
        """
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, _C.Tensor):
                assert new_scale.numel() == 1 and not new_scale.requires_grad, (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False.")
                new_scale = new_scale.item()
            elif not isinstance(new_scale, numbers.Real) or isinstance(new_scale, bool):
                raise TypeError(f"GradScaler.update: new_scale should be a float or a "
                                f"1-element float32 Tensor, got {type(new_scale).__name__}")
            self._set(float(new_scale))
        else:
            states = [s for s in self._per_optimizer.values() if s["found_inf"] is not None]
            assert states, "No inf checks were recorded prior to update."
            found = 0.0
            for s in states:
                if s["inf_host"] is None:  # unscale_ without step: read it now
                    s["inf_host"] = float(s["found_inf"].sum().item())
                found += s["inf_host"]
            if found:
                self._growth_tracker = 0
                self._set(self._scale * self._backoff_factor)
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._growth_tracker = 0
                    grown = _f32(self._scale * self._growth_factor)
                    if grown <= _FLOAT32_MAX:  # PyTorch's float32 scale: kept if finite
                        self._set(grown)
        self._per_optimizer = {}

    def _set(self, value):
        value = _f32(value)
        if value != self._scale:
            self._scale = value
            self._on = {}  # refilled on each device when next needed (one host->device copy)

    # -- reading and setting the state --------------------------------------------------
    def get_scale(self):
        """The current scale (init_scale before the first scale(); 1.0 when disabled).

        Returns
        -------
        float

        Examples
        --------
        >>> pydevtensor.amp.GradScaler("cpu").get_scale()
        65536.0
        """
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def is_enabled(self):
        """Whether the scaler scales (False when built with enabled=False, or for
        'cuda' without CUDA).

        Returns
        -------
        bool

        Examples
        --------
        >>> pydevtensor.amp.GradScaler("cpu", enabled=False).is_enabled()
        False
        """
        return self._enabled

    get_growth_factor, set_growth_factor = _accessors("growth_factor", float, "2.0", "4.")
    get_backoff_factor, set_backoff_factor = _accessors("backoff_factor", float, "0.5", ".25")
    get_growth_interval, set_growth_interval = _accessors("growth_interval", int, "2000", "100")

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker
        (empty when disabled), as PyTorch's.

        Returns
        -------
        dict

        Examples
        --------
        >>> pydevtensor.amp.GradScaler("cpu").state_dict()["scale"]
        65536.0
        """
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def _get_growth_tracker(self):
        """The steps without inf/NaN since the scale last changed, as PyTorch's: before
        the first scale() (lazy) what load_state_dict set (0 by default); 0 when
        disabled."""
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._scale is None else self._growth_tracker

    def load_state_dict(self, state_dict):
        """Restores a state_dict().

        Parameters
        ----------
        state_dict : dict
            From state_dict().

        Returns
        -------
        None

        Raises
        ------
        RuntimeError
            state_dict is empty (saved from a disabled scaler).

        Examples
        --------
        >>> a = pydevtensor.amp.GradScaler("cpu", init_scale=4.)
        >>> b = pydevtensor.amp.GradScaler("cpu")
        >>> b.load_state_dict(a.state_dict())
        >>> b.get_scale()
        4.0
        """
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was "
                               "saved from a disabled instance of GradScaler.")
        missing = {"scale", "growth_factor", "backoff_factor", "growth_interval",
                   "_growth_tracker"} - set(state_dict)
        if missing:
            raise KeyError(f"GradScaler.load_state_dict(): missing {sorted(missing)}")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._set(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._scale is not None:
            self._growth_tracker = self._init_growth_tracker



def _cuda_available():
    from .. import cuda
    return cuda.is_available()
