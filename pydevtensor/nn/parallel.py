"""nn.parallel.DistributedDataParallel: one replica of a module per process of
pydevtensor.distributed, gradients averaged across the processes during backward.
nn.parallel also holds (from their own files) DataParallel, several devices of one
process, and its functional form data_parallel (data_parallel.py), its pieces scatter,
scatter_kwargs, gather, replicate and parallel_apply (_parallel_functions.py), and
comm: broadcast, reduce_add, scatter and gather of tensors (_parallel_comm.py).

Note [DistributedDataParallel]
- Wrapping broadcasts every parameter from rank 0 (so every rank starts from the same
  bits; the agreement check of each broadcast catches ranks whose models differ).
- Buckets: the parameters that require a gradient are taken in reverse order (the
  order backward tends to produce their gradients), by device and dtype, into buckets
  of at most bucket_cap_mb (PyTorch's default, 25 MB); each bucket is one flat buffer
  and each ``param.grad`` a view into it (PyTorch's gradient_as_bucket_view).
- Hooks: a post-accumulate-grad hook on every parameter
  (Parameter.register_post_accumulate_grad_hook, called by autograd's AccumulateGrad)
  brings the gradient into its view (a copy when backward made a new tensor, e.g.
  after ``zero_grad()`` set it to None) and counts it; when a bucket's last gradient
  is in, its all-reduce starts (``all_reduce(flat, ReduceOp.AVG, async_op=True)``),
  and when the last bucket has started, the hook waits for all of them, so
  ``loss.backward()`` returns with averaged gradients.  How much communication
  overlaps the rest of backward is MPI's: MPICH progresses a nonblocking collective
  only inside MPI calls (the next bucket's start, the final wait) unless its
  asynchronous progress thread is on (MPIR_CVAR_ASYNC_PROGRESS=1).
- The buckets start in bucket order, the same on every rank, whatever order their
  gradients come in.  Every parameter that requires a gradient must get one in each
  backward (find_unused_parameters=False): otherwise its bucket never starts, and the
  next forward raises PyTorch's "Expected to have finished reduction in the prior
  iteration" naming it (a rank that did start it waits for the others until the
  group's timeout).  With find_unused_parameters=True each forward searches the graph
  of its output, as PyTorch's does, and the parameters it does not reach get a zero
  gradient in their bucket at once.  ``no_sync()`` skips the all-reduce (gradient
  accumulation); the next backward outside it averages the accumulated sums.
- Replicas stay bitwise identical: the all-reduce hands every rank the same bits and
  the optimizers do the same arithmetic.
- Buffers (BatchNorm's running statistics): broadcast from rank 0 at wrap time, and,
  with broadcast_buffers=True (PyTorch's default), at the start of every forward run
  under grad mode (a training step; not inside ``no_sync()``), so every rank's forward
  starts from rank 0's buffers; each rank then updates them from its own batch.  The
  buffers of one device and dtype travel as one flat tensor (a BatchNorm model: one
  float32 and one int64 broadcast, started together, then waited for); a module
  without buffers broadcasts nothing.  BatchNorm's counts also travel host to host
  (a CPU int64 tensor of rank 0's host counts, Note [the host count] in
  normalization.py), so momentum=None reads no count back from a GPU on any rank.
"""
import contextlib
import sys

from .. import _C
from . import _parallel_comm as comm
from ._parallel_functions import gather, parallel_apply, replicate, scatter, scatter_kwargs
from .data_parallel import DataParallel, data_parallel
from .module import Module
from .normalization import HostCount


class DistributedDataParallel(Module):
    """Wraps module for data-parallel training across the processes of the default
    process group (pydevtensor.distributed.init_process_group), or of process_group (a
    new_group(), whose first rank then plays rank 0's part): ``forward`` is the
    module's; backward averages the gradients across the ranks; with
    broadcast_buffers=True (the default) each forward under grad mode first copies rank
    0's buffers (BatchNorm's running statistics) to every rank (Note
    [DistributedDataParallel] in this module)."""

    def __init__(self, module, device_ids=None, output_device=None, broadcast_buffers=True,
                 bucket_cap_mb=25, gradient_as_bucket_view=True, find_unused_parameters=False,
                 process_group=None, static_graph=False):
        super().__init__()
        from .. import distributed as dist
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: expected an nn.Module, got "
                            f"{type(module).__name__}")
        if not dist.is_initialized():
            raise ValueError("DistributedDataParallel: the default process group is not "
                             "initialized; call pydevtensor.distributed.init_process_group() "
                             "first")
        if not bucket_cap_mb > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got "
                             f"{bucket_cap_mb}")
        if dist.get_rank(process_group) < 0:  # a bad group raises there
            raise ValueError(f"DistributedDataParallel: this rank ({dist.get_rank()}) is not "
                             f"a member of process_group (new_group() returned "
                             f"NON_GROUP_MEMBER here)")
        self.module = module
        self.broadcast_buffers = bool(broadcast_buffers)
        self.find_unused_parameters = bool(find_unused_parameters)
        object.__setattr__(self, "_dist", dist)
        object.__setattr__(self, "_sync", True)
        object.__setattr__(self, "_pg", process_group)  # None: the default group
        # (module, name) of every buffer, read at each forward: an assignment
        # (module.running_mean = t) is followed
        object.__setattr__(self, "_buffer_slots", [
            (m, name) for m in module.modules() for name, b in m._buffers.items()
            if b is not None])
        with _no_grad():
            for p in module.parameters():
                dist.broadcast(p.data if isinstance(p.data, _C.Tensor) else p,
                               group=process_group, group_src=0)
        self._broadcast_buffers()
        params = [p for p in module.parameters() if p.requires_grad]
        object.__setattr__(self, "_buckets", _make_buckets(params[::-1], bucket_cap_mb))
        object.__setattr__(self, "_pending", [])
        object.__setattr__(self, "_next", 0)  # the next bucket to start (in bucket order)
        object.__setattr__(self, "_handles", [])
        for b in self._buckets:
            for p in b.params:
                self._handles.append(p.register_post_accumulate_grad_hook(
                    self._make_hook(b)))

    def forward(self, *args, **kwargs):
        training = self._sync and _grad_enabled()
        if training:
            self._check_prior_reduction()
        if self.broadcast_buffers and training:
            self._broadcast_buffers()
        out = self.module(*args, **kwargs)
        if training and self.find_unused_parameters:
            self._mark_unused(out)
        return out

    def _check_prior_reduction(self):
        """PyTorch's error when the last backward left a bucket waiting for a gradient
        that never came (a parameter unused in the loss): its all-reduce never started, so
        the gradients were not averaged, and counting on would start it mid-backward
        with the next iteration's gradients."""
        waiting = [p for b in self._buckets if b.got for p in b.params if id(p) not in b.got]
        if not waiting and not self._next and not self._pending:
            return
        for b in self._buckets:
            b.got = set()
        object.__setattr__(self, "_next", 0)
        self._pending.clear()
        names = {id(p): n for n, p in self.module.named_parameters()}
        unused = [names.get(id(p), "?") for p in waiting]
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            "producing loss: pass find_unused_parameters=True to DistributedDataParallel, or "
            "make sure all forward outputs take part in the loss. Parameters that did not "
            f"receive grad: {', '.join(unused) or '(none on this rank)'}")

    def _mark_unused(self, out):
        """find_unused_parameters=True: the parameters the graph of out does not reach
        get a zero gradient in their bucket and count as ready now (PyTorch's search
        of the graph at each forward), so every bucket starts."""
        reached, stack, seen = set(), [], set()
        _tensors_in(out, stack)
        stack = [t.grad_fn for t in stack if t.grad_fn is not None]
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen:
                continue
            seen.add(id(fn))
            var = getattr(fn, "variable", None)
            if var is not None:
                reached.add(id(var))
            stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
        for b in self._buckets:
            for p in b.params:
                if id(p) not in reached:
                    view = b.views[id(p)]
                    with _no_grad():
                        view.zero_()
                    p.grad = view  # the average of the ranks' (zero where none used it)
                    self._ready(b, p)

    def _broadcast_buffers(self):
        """Rank 0's buffers to every rank: one flat tensor per device and dtype."""
        if not self._buffer_slots:
            return
        groups = {}
        seen = set()
        for m, name in self._buffer_slots:
            b = m._buffers.get(name)
            if b is None or id(b) in seen:
                continue
            seen.add(id(b))
            groups.setdefault((str(b.device), b.dtype), []).append(b)
        dist = self._dist
        counted = self._host_counts()
        with _no_grad():
            flats = [(bufs, _C_cat([b.reshape(-1) for b in bufs]) if len(bufs) > 1
                      else bufs[0].reshape(-1).clone())
                     for bufs in groups.values()]
            works = [dist.broadcast(flat, group=self._pg, async_op=True, group_src=0)
                     for _, flat in flats]
            if counted:  # rank 0's host counts (-1: not known there), from host to host
                counts = _C.tensor([-1 if c is None else c for c in
                                    (kept.get(b) for kept, b in counted)],
                                   dtype=_C.int64, device="cpu")
                works.append(dist.broadcast(counts, group=self._pg, async_op=True,
                                            group_src=0))
            for w in works:
                w.wait()
            if dist.get_rank(self._pg) == 0:
                return
            for bufs, flat in flats:
                offset = 0
                for b in bufs:
                    n = b.numel()
                    b.copy_(flat[offset:offset + n].reshape(b.shape))
                    offset += n
            if counted:
                for (kept, b), c in zip(counted, counts.tolist()):
                    if c >= 0:
                        kept.set(b, c)

    def _host_counts(self):
        """(holder, buffer) of each count kept on the host of a BatchNorm with
        momentum=None (Note [the host count] in normalization.py): the broadcast
        overwrites the buffer with rank 0's count, and carries rank 0's host count
        along, so that the cumulative average reads nothing back on any rank.  Other
        momenta need no count: nothing more travels."""
        out = []
        for m, name in self._buffer_slots:
            kept = m.__dict__.get("_host_count")
            b = m._buffers.get(name)
            if name == "num_batches_tracked" and isinstance(kept, HostCount) and \
                    b is not None and getattr(m, "momentum", 0) is None:
                out.append((kept, b))
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the next synchronized backward averages."""
        old = self._sync
        object.__setattr__(self, "_sync", False)
        try:
            yield
        finally:
            object.__setattr__(self, "_sync", old)

    def _make_hook(self, bucket):
        def hook(p):
            bucket.collect(p)
            if self._sync:
                self._ready(bucket, p)
        return hook

    def _ready(self, bucket, p):
        """p's gradient is in bucket: the buckets that are full start their all-reduces
        in bucket order (the same order on every rank, whatever order the gradients come
        in), and when the last one has started, all are waited for."""
        if id(p) in bucket.got:
            return  # a parameter used twice in one graph: its hook runs once per backward
        bucket.got.add(id(p))
        buckets = self._buckets
        while self._next < len(buckets) and \
                len(buckets[self._next].got) == len(buckets[self._next].params):
            b = buckets[self._next]
            b.got = set()
            self._pending.append(self._dist.all_reduce(b.flat, self._dist.ReduceOp.AVG,
                                                       self._pg, async_op=True))
            object.__setattr__(self, "_next", self._next + 1)
        if self._next == len(buckets):
            object.__setattr__(self, "_next", 0)
            pending = list(self._pending)
            self._pending.clear()
            for work in pending:
                work.wait()

    def remove_hooks(self):
        """Unregisters the gradient hooks (the module trains alone again)."""
        for h in self._handles:
            h.remove()
        self._handles.clear()


class _Bucket:
    def __init__(self, params):
        self.params = params
        self.got = set()  # the ids of params whose gradient is in this backward
        p0 = params[0]
        self.flat = _C.zeros(sum(p.numel() for p in params), dtype=p0.dtype, device=p0.device)
        self.views = {}
        offset = 0
        for p in params:
            n = p.numel()
            self.views[id(p)] = self.flat[offset:offset + n].reshape(*p.shape)
            offset += n
            if p.grad is not None:
                self.views[id(p)].copy_(p.grad)
            p.grad = self.views[id(p)]

    def collect(self, p):
        view = self.views[id(p)]
        if p.grad is not view:
            view.copy_(p.grad)
            p.grad = view


def _make_buckets(params, cap_mb):
    cap = cap_mb * 1024 * 1024
    open_, buckets = {}, []
    for p in params:
        key = (str(p.device), p.dtype)
        group = open_.setdefault(key, [])
        size = sum(q.numel() * q.element_size() for q in group)
        if group and size + p.numel() * p.element_size() > cap:
            buckets.append(_Bucket(group))
            group = open_[key] = []
        group.append(p)
    buckets.extend(_Bucket(g) for g in open_.values() if g)
    return buckets


def _tensors_in(out, found):
    """Appends the tensors in out (nested tuples, lists, dicts) to found."""
    if isinstance(out, _C.Tensor):
        found.append(out)
    elif isinstance(out, (tuple, list)):
        for o in out:
            _tensors_in(o, found)
    elif isinstance(out, dict):
        for o in out.values():
            _tensors_in(o, found)


def _no_grad():
    from ..autograd import no_grad
    return no_grad()


def _grad_enabled():
    from ..autograd import is_grad_enabled
    return is_grad_enabled()


def _C_cat(tensors):
    from .._ops_join import cat
    return cat(tensors)


__all__ = ["DataParallel", "DistributedDataParallel", "comm", "data_parallel", "gather",
           "parallel_apply", "replicate", "scatter", "scatter_kwargs"]

# `import pydevtensor.nn.parallel.comm`, as torch.nn.parallel.comm (this is a module,
# not a package)
sys.modules[__name__ + ".comm"] = comm
