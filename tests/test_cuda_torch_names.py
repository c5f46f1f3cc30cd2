"""torch.cuda's names that PyTorch users reach for: default_generators (one Generator per
GPU, pydevtensor/_cuda_random.py), memory_stats_as_nested_dict and get_allocator_backend
(pydevtensor/_cuda_info.py); on the CUDA devices (the emulated one in CI) and without a
GPU."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, CUDA_DEVICES, CUDA_EMULATED, run_python


@pytest.fixture
def rng_restored():
    state = pdt.get_rng_state()
    yield
    pdt.set_rng_state(state)


def test_default_generators_is_a_tuple_of_one_generator_per_gpu():
    gens = pdt.cuda.default_generators
    assert isinstance(gens, tuple) and len(gens) == pdt.cuda.device_count()
    assert all(a is b for a, b in zip(gens, pdt.cuda.default_generators))  # the same ones
    assert [g.device for g in gens] == [pdt.device("cuda", i) for i in range(len(gens))]
    assert all(isinstance(g, pdt.Generator) for g in gens)
    if not CUDA_AVAILABLE:
        assert gens == ()  # as torch.cuda.default_generators without a GPU


@pytest.mark.cuda
def test_default_generators_first_read_by_two_threads_gives_the_same_objects(monkeypatch):
    """Two threads reading cuda.default_generators for the first time at once: both get
    the same Generators (each made one was stored over the other's)."""
    import threading

    from pydevtensor import _cuda_random, _generator
    monkeypatch.setattr(_cuda_random, "_PER_GPU", {})
    both_made = threading.Barrier(2, timeout=10)

    class Meeting(_generator.Generator):  # both made before either is stored
        def __init__(self, device="cpu"):
            super().__init__(device)
            if device == "cuda:0":
                both_made.wait()

    monkeypatch.setattr(_generator, "Generator", Meeting)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(pdt.cuda.default_generators))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 2 and all(a is b for a, b in zip(*seen))
    assert all(a is b for a, b in zip(seen[0], pdt.cuda.default_generators))


@pytest.mark.cuda
@pytest.mark.parametrize("index", range(len(CUDA_DEVICES)))
def test_each_default_generator_is_the_stream_cuda_seeding_acts_on(index, rng_restored):
    """torch.cuda.default_generators[i] is the generator cuda.manual_seed and
    cuda.get_rng_state(i) act on; here every GPU's is the one stream."""
    g = pdt.cuda.default_generators[index]
    dev = f"cuda:{index}"
    assert g.manual_seed(123) is g
    assert pdt.cuda.initial_seed() == pdt.initial_seed() == g.initial_seed() == 123
    first = pdt.rand(5, device=dev).cpu().numpy()
    pdt.cuda.manual_seed(123)  # seeds g: the same draws again
    assert np.array_equal(pdt.rand(5, device=dev).cpu().numpy(), first)
    assert np.array_equal(g.get_state().numpy(), pdt.cuda.get_rng_state(index).numpy())
    pdt.cuda.manual_seed(7)
    expected = pdt.rand(4, device=dev).cpu().numpy()
    g.manual_seed(7)  # drawing with generator=g draws from the default stream
    assert np.array_equal(pdt.rand(4, device=dev, generator=g).cpu().numpy(), expected)
    assert g.get_state().tolist() == pdt.get_rng_state().tolist()


def _flatten(nested, prefix=""):
    flat = {}
    for key, value in nested.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[prefix + key] = value
    return flat


def test_memory_stats_as_nested_dict_nests_memory_stats(device):
    x = pdt.ones(1000, device=device)
    nested = pdt.cuda.memory_stats_as_nested_dict(device)
    flat = pdt.cuda.memory_stats(device)
    assert _flatten(nested) == flat
    assert nested["allocated_bytes"]["all"]["current"] == flat["allocated"] >= x.nbytes
    assert nested["reserved_bytes"]["all"]["peak"] == flat["reserved_peak"]
    assert pdt.cuda.memory_stats_as_nested_dict(device=device) == nested


def test_memory_stats_as_nested_dict_without_a_gpu_is_empty():
    if CUDA_AVAILABLE:
        assert pdt.cuda.memory_stats_as_nested_dict() != {}
        with pytest.raises(pdt.DeviceError, match="cuda:63"):
            pdt.cuda.memory_stats_as_nested_dict("cuda:63")
    else:  # as torch.cuda's, for any CUDA device (CUDA never initialised)
        assert pdt.cuda.memory_stats_as_nested_dict() == {}
        assert pdt.cuda.memory_stats_as_nested_dict("cuda:63") == {}


def test_get_allocator_backend_names_cudas_stream_ordered_allocator():
    # one of torch.cuda's two names: ours is CUDA's pool allocator, on a device with
    # memory pools (every GPU CI and the GPU machines have) and without a GPU
    assert pdt.cuda.get_allocator_backend() == "cudaMallocAsync"


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA_EMULATED, reason="the emulator's switch for a device without "
                                               "memory pools")
def test_get_allocator_backend_says_cudamalloc_on_a_device_without_pools():
    """On a device without memory pools (cudaDevAttrMemoryPoolsSupported 0) the backend
    allocates with plain cudaMalloc (cuda_alloc in cuda_backend.c); get_allocator_backend
    said 'cudaMallocAsync' there too.  Tensors work and are counted as before."""
    code = """
import pydevtensor as pdt
print(pdt.cuda.get_allocator_backend())
x = pdt.ones(1000, device='cuda')
print(int(x.sum().item()), pdt.cuda.memory_allocated() >= x.nbytes)
"""
    assert run_python(code, PYDEVTENSOR_EMULATED_NO_POOLS="1") == ["cudaMalloc", "1000", "True"]
    assert run_python(code) == ["cudaMallocAsync", "1000", "True"]
