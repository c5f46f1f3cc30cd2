"""DataLoader worker processes (num_workers > 0): the same batches as without workers,
seeds and get_worker_info in the workers, worker_init_fn, errors re-raised, dead workers,
timeout, persistent workers, and no processes left behind."""
import os
import random
import time

import numpy as np
import psutil
import pytest

import pydevtensor as pdt
from pydevtensor.utils import data

pytestmark = [pytest.mark.forks_workers,
              # 3 workers on a machine with fewer CPUs: PyTorch's warning, tested below
              pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")]


@pytest.fixture(autouse=True)
def no_leftover_workers():
    yield
    deadline = time.monotonic() + 10
    while psutil.Process().children() and time.monotonic() < deadline:
        time.sleep(0.05)
    left = psutil.Process().children()
    for child in left:  # not to fail the next tests too
        child.kill()
    assert left == []


class Squares(data.Dataset):
    def __init__(self, n=23):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):  # scale: set in a worker by _set_scale
        return {"x": pdt.tensor([float(i) * getattr(self, "scale", 1.0)]), "i": i}


class Stream(data.IterableDataset):
    """range(n), each worker taking every num_workers-th block of `block` samples."""

    def __init__(self, n=23, block=1):
        self.n, self.block = n, block

    def __iter__(self):
        info = data.get_worker_info()
        k, m = (info.id, info.num_workers) if info is not None else (0, 1)
        return (pdt.tensor([i]) for i in range(self.n) if (i // self.block) % m == k)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value.tolist() if isinstance(value, pdt.Tensor) else value


def _values(loader):
    return [_plain(b) for b in loader]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_map_style_batches_equal_the_in_process_loaders(workers):
    ds = Squares()
    for kw in (dict(batch_size=4), dict(batch_size=5, drop_last=True), dict(batch_size=None),
               dict(batch_size=3, shuffle=True)):
        got, want = [], []
        for n, out in ((workers, got), (0, want)):
            g = pdt.Generator().manual_seed(7) if kw.get("shuffle") else None
            loader = data.DataLoader(ds, num_workers=n, generator=g, **kw)
            out.append(_values(loader))
            out.append(_values(loader))  # a second epoch: a new order with shuffle
        assert got == want, kw
    x, y = np.arange(24.).reshape(12, 2), np.arange(12)
    tds = data.TensorDataset(pdt.tensor(x), pdt.tensor(y))
    g = pdt.Generator().manual_seed(3)
    batches = list(data.DataLoader(tds, 5, shuffle=True, num_workers=workers, generator=g))
    g.manual_seed(3)
    for a, b in zip(batches, data.DataLoader(tds, 5, shuffle=True, generator=g)):
        np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
        np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_iterable_dataset_batches(workers):
    for batch_size in (1, 3):
        # sharded by batches: the in-order round robin gives the stream's order back
        loader = data.DataLoader(Stream(block=batch_size), batch_size=batch_size,
                                 num_workers=workers)
        assert _values(loader) == _values(data.DataLoader(Stream(), batch_size=batch_size))
    # not sharded: each worker gives the whole stream, as PyTorch's
    loader = data.DataLoader(_Plain(), batch_size=4,
                             num_workers=workers, drop_last=True)
    assert sorted(sum(_values(loader), [])) == sorted(list(range(10))[:8] * workers)


class _Plain(data.IterableDataset):
    def __iter__(self):
        return iter(range(10))


def _info(_):
    info = data.get_worker_info()
    return [info.id, info.num_workers, info.seed, random.random(), pdt.rand(()).item(),
            type(info.dataset).__name__, os.getpid()]


def test_seeds_worker_info_and_worker_init_fn():
    assert data.get_worker_info() is None
    ds = Squares(6)
    g = pdt.Generator().manual_seed(11)
    loader = data.DataLoader(ds, batch_size=1, num_workers=3, collate_fn=_info, generator=g)
    rows = list(loader)
    g.manual_seed(11)
    base = pdt.empty((), dtype=pdt.int64).random_(generator=g).item()
    assert [r[:2] for r in rows] == [[k % 3, 3] for k in range(6)]  # round robin
    for r in rows[:3]:
        seed = base + r[0]
        assert r[2] == seed and r[5] == "Squares" and r[6] != os.getpid()
        assert r[3] == random.Random(seed).random()
        pdt.manual_seed(seed)
        assert r[4] == pdt.rand(()).item()
    assert len({r[6] for r in rows}) == 3
    loader = data.DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=_set_scale)
    assert [b["x"][:, 0].tolist() for b in loader] == [[0., 10.], [80., 120.], [40., 50.]]


def _set_scale(worker_id):
    info = data.get_worker_info()
    assert info.id == worker_id
    # the worker's own copy of the dataset: the main process's is unchanged
    info.dataset.scale = 10.0 * (worker_id + 1) ** 2


class Failing(Squares):
    def __getitem__(self, i):
        if i == 5:
            raise KeyError("no sample 5")
        return float(i)


class Dying(Squares):
    def __getitem__(self, i):
        if i == 7:
            os._exit(3)
        return float(i)


def test_worker_exception_is_reraised_with_worker_and_traceback():
    loader = data.DataLoader(Failing(), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0., 1.] and next(it).tolist() == [2., 3.]
    with pytest.raises(KeyError, match=r"Caught KeyError in DataLoader worker process 0\."
                                       r"\nOriginal Traceback[\s\S]*no sample 5"):
        next(it)


def test_dead_worker_and_timeout_raise():
    loader = data.DataLoader(Dying(), batch_size=1, num_workers=2, sampler=[0, 7, 1])
    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid \d+\) exited "
                                           r"unexpectedly with exit code 3"):
        list(loader)
    loader = data.DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.3)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        list(loader)
    assert time.monotonic() - start < 20


class Slow(Squares):
    def __getitem__(self, i):
        time.sleep(30)


def test_init_fn_error_and_unpicklable_batch():
    loader = data.DataLoader(Squares(4), batch_size=2, num_workers=1, worker_init_fn=_boom)
    with pytest.raises(ZeroDivisionError, match="Caught ZeroDivisionError in DataLoader "
                                                "worker process 0"):
        list(loader)
    loader = data.DataLoader(Squares(4), batch_size=2, num_workers=1,
                             collate_fn=lambda b: (lambda: 0))
    with pytest.raises((AttributeError, TypeError, pickle_error()), match="Caught"):
        list(loader)


def pickle_error():
    import pickle
    return pickle.PicklingError


def _boom(_):
    return 1 / 0


def test_persistent_workers_live_across_epochs_and_shut_down():
    ds = Squares(8)
    loader = data.DataLoader(ds, batch_size=1, num_workers=2, persistent_workers=True,
                             collate_fn=_info)
    first = [r[6] for r in loader]
    children = {p.pid for p in psutil.Process().children()}
    assert set(first) == children and len(children) == 2
    it = iter(loader)
    next(it)
    del it  # an abandoned epoch: the next one discards its results
    second = [r[6] for r in loader]
    assert set(second) == children and len(second) == 8
    del loader  # the workers end with the loader
    it = iter(data.DataLoader(ds, batch_size=1, num_workers=2))
    next(it)
    assert len(psutil.Process().children()) == 2
    del it  # a non-persistent epoch's workers end with its iterator


def test_in_order_false_gives_every_batch():
    loader = data.DataLoader(Squares(9), batch_size=2, num_workers=3, in_order=False)
    got = sorted(b["i"].tolist() for b in loader)
    assert got == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]


def test_cuda_tensors_are_refused(device):
    ds = data.TensorDataset(pdt.arange(6.).to(device))
    loader = data.DataLoader(ds, batch_size=2, num_workers=1)
    if device.type == "cuda":
        with pytest.raises(RuntimeError, match="dataset holds tensors on cuda"):
            list(loader)
    else:
        assert [b[0].tolist() for b in loader] == [[0., 1.], [2., 3.], [4., 5.]]


def test_pin_memory_applies_in_the_main_process():
    loader = data.DataLoader(Squares(4), batch_size=2, num_workers=1, pin_memory=True)
    with pytest.warns(UserWarning) if not pdt.cuda.is_available() else _null():
        batches = list(loader)
    assert [b["i"].tolist() for b in batches] == [[0, 1], [2, 3]]
    if pdt.cuda.is_available():
        assert all(b["x"].is_pinned() for b in batches)


def _null():
    import contextlib
    return contextlib.nullcontext()


def test_killed_persistent_worker_raises():
    loader = data.DataLoader(Squares(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert len(list(loader)) == 3
    victim = psutil.Process().children()[1]
    victim.kill()  # not waited for here: the loader collects its exit status
    with pytest.raises(RuntimeError, match=rf"DataLoader worker \d \(pid {victim.pid}\) is "
                                           rf"killed by signal: SIGKILL"):
        list(loader)
    assert len(list(loader)) == 3  # new workers for the next epoch
    victim = psutil.Process().children()[0]
    victim.kill()
    victim.wait(10)  # its exit status collected here: the loader finds its pid gone
    with pytest.raises(RuntimeError, match=r"exited unexpectedly \(its exit status was "
                                           r"collected elsewhere\)"):
        list(loader)


def _numpy_draws(_):
    info = data.get_worker_info()
    return [info.id, np.random.randint(0, 2**31 - 1, size=4).tolist(), np.random.rand()]


def test_numpy_global_generator_is_seeded_per_worker():
    # PyTorch seeds numpy.random in each worker from the base seed and the worker id
    # (NumPy's SeedSequence of [id, base_seed's low and high words, 0], 4 words)
    ds = Squares(4)

    def draws(seed):
        g = pdt.Generator().manual_seed(seed)
        rows = list(data.DataLoader(ds, batch_size=1, num_workers=2, collate_fn=_numpy_draws,
                                    generator=g))
        g.manual_seed(seed)
        return rows, pdt.empty((), dtype=pdt.int64).random_(generator=g).item()

    np.random.seed(0)  # the parent's state, inherited by a fork, must not be what they draw
    first, base = draws(5)
    assert [r[0] for r in first] == [0, 1, 0, 1]
    assert first[0][1] != first[1][1]  # two workers, two streams
    for worker in (0, 1):
        words = np.random.SeedSequence([worker, base & 0xFFFFFFFF, base >> 32, 0])
        want = np.random.RandomState(words.generate_state(4))
        assert first[worker][1] == want.randint(0, 2**31 - 1, size=4).tolist()
        assert first[worker][2] == want.rand()
        # the stream goes on from one batch to the worker's next
        assert first[worker + 2][1] == want.randint(0, 2**31 - 1, size=4).tolist()
    assert draws(5)[0] == first  # the same loader seed, the same draws
    assert draws(6)[0][0][1] != first[0][1]


def test_more_workers_than_cpus_warns(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    message = (r"This DataLoader will create 2 worker processes in total\. Our suggested max "
               r"number of worker in current system is 1, which is smaller than what this "
               r"DataLoader is going to create\. Please be aware that excessive worker "
               r"creation might get DataLoader running slow or even freeze")
    with pytest.warns(UserWarning, match=message) as record:
        loader = data.DataLoader(Squares(2), batch_size=1, num_workers=2)
    assert record[0].filename == __file__
    with pytest.warns(UserWarning, match=message) as record:
        assert len(list(loader)) == 2  # again when the workers start, as PyTorch
    assert record[0].filename == __file__
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data.DataLoader(Squares(2), batch_size=1, num_workers=1)
        data.DataLoader(Squares(2), batch_size=1)


class OnDevice(Squares):
    """Uses `device` in __getitem__ and gives CPU samples back."""

    def __init__(self, device, n=4):
        super().__init__(n)
        self.device = str(device)

    def __getitem__(self, i):
        return (pdt.ones(2, device=self.device) * i).sum().cpu()


def test_workers_after_the_parent_used_the_device(device):
    # the parent has set the device up (its stream, its pool) before forking
    x = pdt.arange(4., device=device)
    loader = data.DataLoader(Squares(6), batch_size=2, num_workers=2)
    sums = [(b["x"].to(device) + x[:2, None]).sum().item() for b in loader]
    assert sums == [float(i + (i + 1) + 0 + 1) for i in (0, 2, 4)]  # x[:2] is 0, 1
    loader = data.DataLoader(OnDevice(device), batch_size=2, num_workers=2)
    if device.type == "cuda":
        # a forked child never touches the parent's CUDA state: PyTorch's error, raised
        # in the worker and re-raised here as the worker's (naming the GPU's first
        # logical device, as CUDA errors do)
        with pytest.raises(RuntimeError, match=r"Caught RuntimeError in DataLoader worker "
                                               r"process 0\.[\s\S]*Cannot re-initialize CUDA "
                                               r"in forked subprocess \(cuda:\d\)[\s\S]*"
                                               r"'spawn' start method"):
            list(loader)
    else:
        assert [b.tolist() for b in loader] == [[0., 2.], [4., 6.]]
    # the parent's device works on
    assert (x * 2).sum().item() == 12.0
    pdt.cuda.synchronize() if device.type == "cuda" else None


def test_pinned_worker_batches_copy_to_the_device_without_blocking(device):
    pin = device.type == "cuda"
    loader = data.DataLoader(Squares(5), batch_size=2, num_workers=2, pin_memory=pin)
    got = []
    for b in loader:
        # pinned in the main process (PyTorch's pin thread), after the workers made them
        assert b["x"].is_pinned() == pin and b["i"].is_pinned() == pin
        got.append(b["x"].to(device, non_blocking=True) * 2)
    assert [g.device for g in got] == [device] * 3
    assert [g[:, 0].tolist() for g in got] == [[0., 2.], [4., 6.], [8.]]


def test_persistent_workers_draw_one_base_seed():
    # PyTorch's persistent iterator draws the workers' base seed when it starts them, not
    # at each epoch: the later epochs' shuffles follow from the generator without it
    ds = Squares(8)
    g = pdt.Generator().manual_seed(4)
    loader = data.DataLoader(ds, batch_size=4, shuffle=True, num_workers=1,
                             persistent_workers=True, generator=g, collate_fn=_seed_and_indices)
    epochs = [list(loader) for _ in range(3)]
    g.manual_seed(4)
    base = pdt.empty((), dtype=pdt.int64).random_(generator=g).item()
    sampler = data.RandomSampler(ds, generator=g)
    assert [[i for _, batch in e for i in batch] for e in epochs] == [list(sampler)
                                                                      for _ in range(3)]
    assert {seed for e in epochs for seed, _ in e} == {base}


def _seed_and_indices(samples):
    return data.get_worker_info().seed, [s["i"] for s in samples]


def test_a_newer_epoch_ends_a_persistent_loaders_older_iterator():
    loader = data.DataLoader(Squares(6), batch_size=2, num_workers=2, persistent_workers=True)
    first = iter(loader)
    assert next(first)["i"].tolist() == [0, 1]
    second = iter(loader)
    assert next(second)["i"].tolist() == [0, 1]
    # the older one raises rather than waiting for ever for results the newer one discards
    with pytest.raises(RuntimeError, match=r"this iterator's epoch \(1\) was ended by a "
                                           r"newer one \(2\): with persistent_workers=True"):
        next(first)
    assert [b["i"].tolist() for b in second] == [[2, 3], [4, 5]]
    assert [b["i"].tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]
    # without persistent workers each iterator has its own
    loader = data.DataLoader(Squares(6), batch_size=2, num_workers=1)
    a, b = iter(loader), iter(loader)
    assert [x["i"].tolist() + y["i"].tolist() for x, y in zip(a, b)] == \
        [[0, 1, 0, 1], [2, 3, 2, 3], [4, 5, 4, 5]]


def _threads(_):
    return pdt.get_num_threads()


def test_a_worker_runs_one_cpu_thread():
    # PyTorch's _worker_loop calls torch.set_num_threads(1): no oversubscribed cores
    before = pdt.get_num_threads()
    pdt.set_num_threads(2)
    try:
        loader = data.DataLoader(Squares(2), batch_size=1, num_workers=2, collate_fn=_threads)
        assert list(loader) == [1, 1]
        assert pdt.get_num_threads() == 2  # the main process's is its own
    finally:
        pdt.set_num_threads(before)


_FORK_CHILDREN = r"""
import os
import pydevtensor as pdt


def two(device="cuda"):
    return 0 if pdt.ones(2, device=device).sum().item() == 2 else 1


def in_child(body):
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(body())
        except BaseException as e:
            print(type(e).__name__, e, flush=True)
            os._exit(9)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


# a parent that has not used CUDA: its child may (prints flushed before each fork)
print("clean", in_child(two), flush=True)
assert pdt.ones(2, device="cuda").sum().item() == 2  # the parent's own first use
print("after", in_child(two), flush=True)
print("query", in_child(lambda: 0 if pdt.cuda.is_available() else 1), flush=True)
print("cpu", in_child(lambda: two("cpu")), flush=True)
print("parent", pdt.ones(3, device="cuda").sum().item(), flush=True)
"""


@pytest.mark.cuda
def test_cuda_in_a_forked_child_as_pytorch():
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _FORK_CHILDREN], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "clean 0"
    assert lines[1].startswith("RuntimeError Cannot re-initialize CUDA in forked subprocess "
                               "(cuda:0): this process (pid ")
    assert lines[2:] == ["after 9", "query 0", "cpu 0", "parent 3.0"]
