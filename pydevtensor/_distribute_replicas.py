"""The replicas of pydevtensor.distribute's MirroredStrategy (Note [mirrored training] in
distribute.py): how a replica is made (_replicate), how its gradients live in flat
buckets (_GradBucket), which all-reduce sums them (_choose_all_reduce), the threads
that run the replicas (_Runner) and how a batch is split among them (_shard_bounds)."""
import copy
import queue
import threading
from collections import OrderedDict

from . import _C
from .nn.parameter import Parameter, UninitializedParameter

# Module attributes a replica does not copy: its own tree, what forward kept, and the
# strategy's bookkeeping.
_NOT_COPIED = ("_parameters", "_buffers", "_modules", "_saved", "_pdt_strategy",
               "_pdt_replicas")


def _shard_bounds(start, size, n):
    """Where each of n replicas' shards of the samples start .. start + size begins and
    ends: n + 1 bounds, the first size % n shards one sample longer (as TensorFlow
    splits a global batch)."""
    bounds = [start]
    for i in range(n):
        bounds.append(bounds[-1] + size // n + (1 if i < size % n else 0))
    return bounds


def _replicate(module, device, memo):
    """A deep copy of module's tree with every parameter, buffer (and plain Tensor attribute)
    copied to device through a counted copy; shared submodules and parameters stay
    shared.  Gradients and what forward kept are not copied."""
    if id(module) in memo:
        return memo[id(module)]
    new = type(module).__new__(type(module))
    memo[id(module)] = new
    for k, v in module.__dict__.items():
        if k not in _NOT_COPIED:
            value = v.to(device, copy=True) if isinstance(v, _C.Tensor) else copy.deepcopy(v, memo)
            object.__setattr__(new, k, value)
    object.__setattr__(new, "_saved", None)
    params = OrderedDict()
    for name, p in module._parameters.items():
        if p is not None and id(p) not in memo:
            memo[id(p)] = (UninitializedParameter(p.requires_grad, device, p.dtype)
                           if isinstance(p, UninitializedParameter) else
                           Parameter(p.data.to(device, copy=True), requires_grad=p.requires_grad))
        params[name] = None if p is None else memo[id(p)]
    object.__setattr__(new, "_parameters", params)
    buffers = OrderedDict()  # BatchNorm's running statistics: each replica keeps its own
    for name, b in module._buffers.items():
        if b is not None and id(b) not in memo:
            memo[id(b)] = b.to(device, copy=True)
        buffers[name] = None if b is None else memo[id(b)]
    object.__setattr__(new, "_buffers", buffers)
    object.__setattr__(new, "_modules", OrderedDict(
        (name, None if m is None else _replicate(m, device, memo))
        for name, m in module._modules.items()))
    return new


class _GradBucket:
    """One replica's gradients: a flat buffer per dtype on the replica's device, with
    each parameter's .grad a view into it (Note [mirrored training])."""

    def __init__(self, module, device, where):
        self.params = [p for p in module.parameters() if p.requires_grad]
        for p in self.params:
            if p.device != device:
                raise _C.DeviceError(f"MirroredStrategy: {where} should be on {device}, but a "
                                     f"parameter of shape {tuple(p.shape)} is on {p.device}")
        by_dtype = OrderedDict()
        for p in self.params:
            by_dtype.setdefault(p.dtype, []).append(p)
        self.flats, self.views = [], {}
        for dtype, ps in by_dtype.items():
            flat = _C.zeros(sum(p.numel() for p in ps), dtype=dtype, device=device)
            offset = 0
            for p in ps:
                n = p.numel()
                self.views[id(p)] = flat[offset:offset + n].reshape(*p.shape)
                offset += n
            self.flats.append(flat)
        # which parameters got a gradient this step: the others get None after the
        # all-reduce when no replica used them, as on one device (the optimizer skips
        # them: no weight decay, no momentum)
        self.used = set()
        self._handles = [p.register_post_accumulate_grad_hook(self._mark)
                         for p in self.params if hasattr(p, "register_post_accumulate_grad_hook")]

    def _mark(self, p):
        self.used.add(id(p))

    def release(self):
        """Removes the hooks (fit is over: the model trains alone again)."""
        for h in self._handles:
            h.remove()
        self._handles = []

    def nbytes(self):
        return sum(f.numel() * f.element_size() for f in self.flats)

    def zero(self):
        for f in self.flats:
            f.zero_()
        for p in self.params:
            p.grad = self.views[id(p)]
        self.used.clear()

    def collect(self):
        """Brings a gradient that backward replaced (rather than accumulated into the
        view) back into the bucket."""
        for p in self.params:
            view = self.views[id(p)]
            if p.grad is not view:
                if p.grad is not None:
                    view.copy_(p.grad)
                p.grad = view


_ALL_REDUCE_METHODS = ("auto", "nccl", "copies")


def _nccl_unusable(devices, physical_of, nccl_loads):
    """Why NCCL cannot all-reduce over devices (a sentence), or None when it can.
    physical_of: the logical -> physical map of the CUDA devices (a list);
    nccl_loads: a function telling whether libnccl.so.2 loads (only called last)."""
    names = [str(d) for d in devices]
    if any(d.type != "cuda" for d in devices):
        return f"NCCL runs on GPUs only, and {names} are not all CUDA devices"
    if len(devices) < 2:
        return f"NCCL needs at least 2 GPUs, got {names}"
    phys = [physical_of[d.index] if d.index < len(physical_of) else None for d in devices]
    if len(set(phys)) != len(phys):
        return (f"NCCL needs distinct physical GPUs, but {names} are on physical GPUs {phys} "
                f"(logical devices of one GPU, from config.set_logical_device_configuration)")
    if not nccl_loads():
        return "this build has no CUDA, or libnccl.so.2 could not be loaded"
    return None


def _choose_all_reduce(devices, requested, physical_of=None, nccl_loads=None, label=None):
    """'nccl' or 'copies' for devices, given all_reduce=requested ('auto', 'nccl' or
    'copies'); Note [mirrored training].  physical_of and nccl_loads default to the
    running module's (tests pass fakes)."""
    if requested == "copies":
        return "copies"
    if physical_of is None:
        physical_of = (_C._logical_device_map(_C._KIND_CUDA)
                       if all(d.type == "cuda" for d in devices) else [])
    why = _nccl_unusable(devices, physical_of, nccl_loads or _C._nccl_available)
    if why is None:
        return "nccl"
    if requested == "nccl":
        other = ("cross_device_ops=ReductionToOneDevice()" if label else
                 "all_reduce='copies' (or 'auto', which picks it)")
        label = label or "all_reduce='nccl'"
        raise RuntimeError(f"MirroredStrategy({label}): {why}; use {other}")
    return "copies"


class _Runner:
    """Runs fn(i) for every replica i: replica 0 on the calling thread, replica i >= 1
    always on its own worker thread "pdt-replica-i" (so a thread keeps to one device),
    and waits for all of them; then raises the first error, if any."""

    def __init__(self, n):
        self.inboxes = [queue.SimpleQueue() for _ in range(n - 1)]
        self.outboxes = [queue.SimpleQueue() for _ in range(n - 1)]
        self.threads = [threading.Thread(target=self._work, args=(i + 1,), daemon=True,
                                         name=f"pdt-replica-{i + 1}") for i in range(n - 1)]
        for t in self.threads:
            t.start()

    def _work(self, i):
        inbox, outbox = self.inboxes[i - 1], self.outboxes[i - 1]
        while True:
            fn = inbox.get()
            if fn is None:
                return
            try:
                outbox.put((True, fn(i)))
            except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
                outbox.put((False, exc))

    def __call__(self, fn):
        level = _C._get_transfer_guard()  # the caller's, in effect on every worker too

        def guarded(i):
            previous = _C._set_thread_transfer_guard(level)
            try:
                return fn(i)
            finally:
                _C._set_thread_transfer_guard(previous)

        for inbox in self.inboxes:
            inbox.put(guarded)
        try:
            first = [(True, fn(0))]
        except BaseException as exc:  # noqa: BLE001 - raised once the others are done
            first = [(False, exc)]
        results = first + [outbox.get() for outbox in self.outboxes]
        for ok, value in results:
            if not ok:
                raise value
        return [value for _, value in results]

    def close(self):
        for inbox in self.inboxes:
            inbox.put(None)
        for t in self.threads:
            t.join()
