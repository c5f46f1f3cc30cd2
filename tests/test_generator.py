"""The random-number state (pydevtensor/random.py, _generator.py, _cuda_random.py):
get/set_rng_state, seed, fork_rng, cuda.manual_seed, and Generator objects with
generator= on every random function, on every device.

One Philox stream serves every device (Note [one stream for every device] in
csrc/core/pdt_runtime.h); a Generator is a stream of its own.  The numbers are checked
bit for bit against the default stream under the same seed (the same algorithm), and
the two streams are checked not to move each other.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.utils import data


def _np(t):
    return t.detach().cpu().numpy()


def _state():
    return pdt.get_rng_state().tolist()


def test_state_is_the_seed_and_the_position_in_16_bytes():
    pdt.manual_seed(0x0102030405060708)
    state = pdt.get_rng_state()
    assert state.dtype == pdt.uint8 and tuple(state.shape) == (16,)
    assert state.device == pdt.device("cpu")
    assert state.tolist() == [8, 7, 6, 5, 4, 3, 2, 1] + [0] * 8
    pdt.rand(9)  # float32: 4 numbers a counter block, so 3 blocks
    assert pdt.get_rng_state().tolist()[8:] == [3] + [0] * 7
    pdt.rand(3, dtype=pdt.float64)  # 2 a block: 2 more
    assert pdt.get_rng_state().tolist()[8:] == [5] + [0] * 7


def test_set_rng_state_replays_the_draws(device):
    pdt.manual_seed(11)
    pdt.rand(7, device=device)
    state = pdt.get_rng_state()
    a = _np(pdt.randn(5, device=device))
    b = _np(pdt.randint(0, 100, (4,), device=device))
    pdt.set_rng_state(state)
    np.testing.assert_array_equal(_np(pdt.randn(5, device=device)), a)
    np.testing.assert_array_equal(_np(pdt.randint(0, 100, (4,), device=device)), b)
    assert pdt.initial_seed() == 11


@pytest.mark.parametrize("bad,exc,match", [
    ([1, 2], TypeError, r"the state must be a Tensor"),
    (pdt.zeros(16), TypeError, r"RNG state must be a uint8 tensor .*float32"),
    (pdt.zeros(8, dtype=pdt.uint8), RuntimeError, r"RNG state is wrong size.*\(16,\).*\(8,\)"),
    # only a uint8 state, as PyTorch's ("RNG state must be a torch.ByteTensor")
    (pdt.get_rng_state().long(), TypeError, r"RNG state must be a uint8 tensor .*int64"),
    (pdt.get_rng_state().int(), TypeError, r"uint8 tensor .*int32.*to\(pydevtensor.uint8\)"),
])
def test_set_rng_state_refuses_what_is_not_a_state(bad, exc, match):
    pdt.manual_seed(3)
    before = _state()
    with pytest.raises(exc, match=match):
        pdt.set_rng_state(bad)
    assert _state() == before


def test_seed_is_nondeterministic_and_returned():
    s1 = pdt.seed()
    assert pdt.initial_seed() == s1 and 0 <= s1 < 2 ** 64
    assert _state()[8:] == [0] * 8
    s2 = pdt.random.seed()
    assert s2 != s1  # 2**-64 to fail
    assert pdt.Generator().seed() != s2


def test_manual_seed_returns_the_default_generator_and_reduces_modulo_2_64():
    assert pdt.manual_seed(5) is pdt.default_generator
    assert pdt.random.manual_seed(-1) is pdt.default_generator
    assert pdt.initial_seed() == 2 ** 64 - 1
    assert pdt.default_generator.initial_seed() == 2 ** 64 - 1
    with pytest.raises(TypeError, match="seed must be an int, got float"):
        pdt.manual_seed(1.5)


@pytest.mark.parametrize("seed", [2**64, -2**63 - 1, 2**70])
def test_manual_seed_refuses_seeds_out_of_range(seed):
    """PyTorch's range, [-2**63, 2**64): a seed beyond was taken modulo 2**64, silently
    the seed of another stream (2**64 seeded 0)."""
    pdt.manual_seed(7)
    with pytest.raises(ValueError, match=r"out of range: it must be in \[-2\*\*63, 2\*\*64\)"):
        pdt.manual_seed(seed)
    with pytest.raises(ValueError, match="out of range"):
        pdt.Generator().manual_seed(seed)
    assert pdt.initial_seed() == 7  # unchanged


def test_manual_seed_takes_numpy_and_tensor_integers():
    pdt.manual_seed(np.int64(9))
    assert pdt.initial_seed() == 9
    pdt.manual_seed(pdt.tensor(11))
    assert pdt.initial_seed() == 11
    assert pdt.Generator().manual_seed(np.uint64(2**64 - 1)).initial_seed() == 2**64 - 1


def test_fork_rng_restores_the_stream(device):
    pdt.manual_seed(4)
    with pdt.random.fork_rng():
        inside = _np(pdt.rand(6, device=device))
        pdt.manual_seed(99)
    assert pdt.initial_seed() == 4
    np.testing.assert_array_equal(_np(pdt.rand(6, device=device)), inside)
    with pdt.random.fork_rng(devices=[0], enabled=False):
        pdt.rand(6)  # not restored: 2 more blocks
    assert _state()[8:] == [4] + [0] * 7
    with pytest.raises(ValueError, match="inside"):
        with pdt.random.fork_rng():
            pdt.rand(3)
            raise ValueError("inside")
    assert _state()[8:] == [4] + [0] * 7  # restored on the way out of an exception too


def test_cuda_seeding_is_the_one_stream():
    pdt.cuda.manual_seed(21)
    assert pdt.initial_seed() == 21 and pdt.cuda.initial_seed() == 21
    pdt.cuda.manual_seed_all(22)
    assert pdt.initial_seed() == 22
    assert pdt.cuda.get_rng_state().tolist() == _state()
    assert pdt.cuda.get_rng_state("cuda").tolist() == _state()
    states = pdt.cuda.get_rng_state_all()
    assert len(states) == pdt.cuda.device_count()
    pdt.rand(8)
    pdt.cuda.set_rng_state(pdt.Generator().manual_seed(22).get_state(), "cuda:0")
    assert _state() == pdt.Generator().manual_seed(22).get_state().tolist()
    pdt.cuda.set_rng_state_all([pdt.Generator().manual_seed(23).get_state()])
    assert pdt.initial_seed() == 23
    assert pdt.cuda.seed() == pdt.initial_seed()
    assert pdt.cuda.seed_all() == pdt.initial_seed()
    with pytest.raises(ValueError, match="expected a CUDA device, got cpu"):
        pdt.cuda.get_rng_state("cpu")


def test_cuda_rng_state_of_a_device_that_does_not_exist():
    """An index past the CUDA devices raises (PyTorch: IndexError from default_generators;
    here DeviceError naming the device); setters without a GPU do what PyTorch's do there
    (no error) and set the one stream; a failed setter leaves the stream as it was."""
    n = pdt.cuda.device_count()
    with pytest.raises(pdt.DeviceError, match=f"cuda:{n + 3} unknown device"):
        pdt.cuda.get_rng_state(n + 3)
    with pytest.raises(pdt.DeviceError, match=f"cuda:{n} unknown device"):
        pdt.cuda.get_rng_state(f"cuda:{n}")
    seeded = pdt.Generator().manual_seed(5).get_state()
    pdt.manual_seed(4)
    before = _state()
    if n == 0:
        pdt.cuda.set_rng_state(seeded, 3)
        assert _state() == seeded.tolist()
        return
    assert pdt.cuda.get_rng_state(n - 1).tolist() == before
    with pytest.raises(pdt.DeviceError, match=f"cuda:{n + 3} unknown device"):
        pdt.cuda.set_rng_state(seeded, n + 3)
    with pytest.raises(pdt.DeviceError, match=f"cuda:{n} unknown device"):
        pdt.cuda.set_rng_state_all([seeded] * (n + 1))
    assert _state() == before
    pdt.cuda.set_rng_state_all([seeded] * n)
    assert _state() == seeded.tolist()


def test_a_generator_starts_at_pytorchs_default_seed():
    g = pdt.Generator()
    assert g.initial_seed() == 67280421310721
    assert g.device == pdt.device("cpu")
    for dev in ("cuda", "cuda:0"):
        if pdt.cuda.is_available():
            assert pdt.Generator(dev).device == pdt.device("cuda:0")
        else:  # a device that does not exist is refused, as for a tensor (PyTorch's too)
            with pytest.raises(pdt.DeviceError, match=r"Generator\(\): cuda:0 unknown device"):
                pdt.Generator(dev)
    assert g.get_state().tolist() == list((67280421310721).to_bytes(8, "little")) + [0] * 8
    assert isinstance(g, pdt.Generator) and isinstance(pdt.default_generator, pdt.Generator)


def _draws(device, **gen):
    """One draw of every kind that takes generator=, in a fixed order."""
    w = pdt.tensor([1.0, 2.0, 3.0, 4.0], device=device)
    return [pdt.rand(5, device=device, **gen), pdt.randn(2, 3, device=device, **gen),
            pdt.randint(3, 9, (4,), device=device, **gen),
            pdt.randperm(7, device=device, **gen),
            pdt.multinomial(w, 3, **gen), pdt.multinomial(w, 5, True, **gen),
            pdt.normal(1.0, 2.0, (3,), device=device, **gen),
            pdt.normal(pdt.zeros(3, device=device), 1.0, **gen),
            pdt.bernoulli(pdt.full((6,), 0.5, device=device), **gen),
            pdt.zeros(4, device=device).bernoulli(0.3, **gen),
            pdt.empty(4, device=device).uniform_(-2, 2, **gen),
            pdt.empty(4, device=device).normal_(3, 1, **gen),
            pdt.empty(4, device=device, dtype=pdt.int64).random_(0, 50, **gen),
            pdt.empty(5, device=device).bernoulli_(0.5, **gen),
            pdt.poisson(pdt.tensor([0.5, 3.0, 40.0], device=device), **gen)]


def test_a_generator_draws_what_the_default_stream_draws_under_its_seed(device):
    pdt.manual_seed(8)
    ref = _draws(device)
    mine = _draws(device, generator=pdt.Generator(device).manual_seed(8))
    for r, m in zip(ref, mine):
        assert r.dtype == m.dtype
        np.testing.assert_array_equal(_np(m), _np(r))


def test_a_generator_and_the_default_stream_leave_each_other_alone(device):
    pdt.manual_seed(1)
    before = _state()
    g = pdt.Generator().manual_seed(1)
    _draws(device, generator=g)
    assert _state() == before
    g_state = g.get_state().tolist()
    _draws(device)
    assert g.get_state().tolist() == g_state
    assert _state() != before


def test_generator_state_round_trip_and_sharing_between_generators(device):
    g = pdt.Generator().manual_seed(123)
    pdt.rand(3, generator=g, device=device)
    state = g.get_state()
    a = _np(pdt.randn(4, generator=g, device=device))
    h = pdt.Generator().set_state(state)
    np.testing.assert_array_equal(_np(pdt.randn(4, generator=h, device=device)), a)
    pdt.set_rng_state(state)  # a generator's state is a valid global state
    np.testing.assert_array_equal(_np(pdt.randn(4, device=device)), a)


@pytest.mark.parametrize("call", [
    lambda g: pdt.rand(2, generator=g), lambda g: pdt.randn(2, generator=g),
    lambda g: pdt.randint(5, (2,), generator=g), lambda g: pdt.randperm(3, generator=g),
    lambda g: pdt.zeros(2).uniform_(generator=g), lambda g: pdt.zeros(2).normal_(generator=g),
    lambda g: pdt.normal(0.0, 1.0, (2,), generator=g),
    lambda g: pdt.multinomial(pdt.ones(3), 1, generator=g),
    lambda g: pdt.bernoulli(pdt.ones(2) / 2, generator=g),
])
def test_generator_must_be_a_generator(call):
    with pytest.raises(TypeError, match=r"generator must be a pydevtensor.Generator or None, "
                                        r"got int"):
        call(7)


def test_dataloader_and_random_split_take_a_generator(device):
    ds = data.TensorDataset(pdt.arange(20, device=device))
    pdt.manual_seed(0)
    before = _state()
    g = pdt.Generator().manual_seed(5)
    first = [b[0].tolist() for b in data.DataLoader(ds, batch_size=5, shuffle=True, generator=g)]
    g.manual_seed(5)
    again = [b[0].tolist() for b in data.DataLoader(ds, batch_size=5, shuffle=True, generator=g)]
    assert first == again and sorted(sum(first, [])) == list(range(20))
    g.manual_seed(5)
    pdt.empty((), dtype=pdt.int64).random_(generator=g)  # the epoch's base seed, as PyTorch's
    order = _np(pdt.randperm(20, generator=g))
    assert first == [order[i:i + 5].tolist() for i in range(0, 20, 5)]
    parts = data.random_split(ds, [15, 5], generator=pdt.Generator().manual_seed(5))
    assert parts[0].indices == _np(pdt.randperm(20, generator=pdt.Generator().manual_seed(5))
                                   )[:15].tolist()
    assert _state() == before
    with pytest.raises(TypeError, match=r"generator must be a pydevtensor.Generator or None, "
                                        r"got int"):
        data.DataLoader(ds, generator=1)
    with pytest.raises(TypeError, match=r"random_split\(\): generator must be"):
        data.random_split(ds, [10, 10], generator="g")


def test_a_generator_is_copied_and_pickled_in_its_state(device):
    """copy.deepcopy and pickle failed (TypeError); PyTorch's keep device and state."""
    import copy
    import pickle
    g = pdt.Generator(device).manual_seed(5)
    pdt.rand(3, generator=g)
    for twin in (copy.deepcopy(g), copy.copy(g), pickle.loads(pickle.dumps(g))):
        assert type(twin) is pdt.Generator and twin is not g
        assert twin.device == g.device and twin.initial_seed() == 5
        assert twin.get_state().tolist() == g.get_state().tolist()
        a = pdt.rand(4, device=device, generator=twin)
        b = pdt.rand(4, device=device, generator=copy.deepcopy(g))
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    assert twin.get_state().tolist() != g.get_state().tolist()  # a stream of its own
    state = pdt.get_rng_state().tolist()
    copy.deepcopy(pdt.default_generator).manual_seed(0)  # a new one: the default untouched
    assert pdt.get_rng_state().tolist() == state
