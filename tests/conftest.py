"""Shared fixtures: the devices to run on, and the skip for GPU-only tests.

Write each test once and parametrize it over ``DEVICES``: the CPU always, and every
CUDA device when one is present.  Tests that only make sense on a GPU carry
``@pytest.mark.cuda`` and are skipped, with the reason shown in the summary, when
no GPU can be used.
"""
import numpy as np
import pytest

import pydevtensor as pdt

CUDA_AVAILABLE = pdt.cuda.is_available()
NO_CUDA_REASON = f"needs a CUDA GPU: {pdt.cuda.unavailable_reason()}"

DEVICES = ["cpu"] + [
    pytest.param(f"cuda:{i}", marks=pytest.mark.cuda) for i in range(pdt.device_count())]
DTYPES = ["bool", "int32", "int64", "float32", "float64"]

# Tolerances against NumPy in float64: |got - ref| <= ATOL + RTOL * |ref|.
TOL = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}


def pytest_collection_modifyitems(config, items):
    if CUDA_AVAILABLE:
        return
    skip = pytest.mark.skip(reason=NO_CUDA_REASON)
    for item in items:
        if item.get_closest_marker("cuda"):
            item.add_marker(skip)


def assert_close(got, ref, dtype="float32"):
    """Compares a tensor (or array) with a float64 NumPy reference."""
    if isinstance(got, pdt.Tensor):
        got = pdt.tensor(got.cpu()).numpy() if got.device.type == "cpu" else got.cpu().numpy()
    atol, rtol = TOL.get(dtype, (0, 0))
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    bad = ~(np.abs(got - ref) <= atol + rtol * np.abs(ref))
    bad &= ~(np.isnan(got) & np.isnan(ref))
    assert not bad.any(), f"max error {np.nanmax(np.abs(got - ref))} at {np.argwhere(bad)[:5]}"


@pytest.fixture(params=DEVICES)
def device(request):
    return pdt.device(request.param)
