"""Ops written in Python raise pydevtensor.DeviceError (a RuntimeError) for tensors on
two devices, as the C ops do, naming both devices. Logical CPU devices must be set up
before first use, so every case runs in one fresh interpreter (test_config's run())."""
import json

import pytest

from test_config import SPLIT3, run

# id -> (code raising with a on cpu:0 and b on cpu:1, the two devices the message names)
CASES = {
    "scatter_add": "pdt.zeros(3).scatter_add(0, pdt.zeros(3, dtype=pdt.long, device='cpu:1'), "
                   "pdt.ones(3))",
    "index_fill": "pdt.zeros(3).index_fill(0, pdt.tensor([0], device='cpu:1'), 1.0)",
    "searchsorted": "pdt.searchsorted(pdt.arange(5.), pdt.tensor([1.5], device='cpu:1'))",
    "bincount": "pdt.bincount(pdt.tensor([0, 1]), weights=pdt.ones(2, device='cpu:1'))",
    "quantile": "pdt.quantile(pdt.arange(5.), pdt.tensor([0.5], device='cpu:1'))",
    "normal": "pdt.normal(pdt.zeros(3), pdt.ones(3, device='cpu:1'))",
    "bernoulli": "pdt.zeros(3).bernoulli_(pdt.full((3,), 0.5, device='cpu:1'))",
    "lstsq": "pdt.linalg.lstsq(pdt.eye(3), pdt.ones(3, 1, device='cpu:1'))",
    "lu_solve_pivots": "LU, piv = pdt.linalg.lu_factor(pdt.eye(3)); "
                       "pdt.linalg.lu_solve(LU, piv.to('cpu:1'), pdt.ones(3, 1))",
    "lu_solve_B": "LU, piv = pdt.linalg.lu_factor(pdt.eye(3)); "
                  "pdt.linalg.lu_solve(LU, piv, pdt.ones(3, 1, device='cpu:1'))",
    "matrix_rank_atol": "pdt.linalg.matrix_rank(pdt.eye(3), atol=pdt.tensor(0.1, device='cpu:1'))",
    "matrix_rank_rtol": "pdt.linalg.matrix_rank(pdt.eye(3), atol=0.1, "
                        "rtol=pdt.tensor(0.1, device='cpu:1'))",
    "linalg_solve": "pdt.linalg.solve(pdt.eye(3), pdt.ones(3, device='cpu:1'))",
    "householder_product": "pdt.linalg.householder_product(pdt.eye(3), "
                           "pdt.ones(2, device='cpu:1'))",
    "baddbmm": "pdt.baddbmm(pdt.zeros(1, 2, 2), pdt.ones(1, 2, 2, device='cpu:1'), "
               "pdt.ones(1, 2, 2))",
    "lerp": "pdt.lerp(pdt.zeros(3), pdt.ones(3, device='cpu:1'), 0.5)",
    "addcmul": "pdt.addcmul(pdt.zeros(3), pdt.ones(3, device='cpu:1'), pdt.ones(3))",
    "repeat_interleave": "pdt.repeat_interleave(pdt.arange(3), "
                         "pdt.tensor([1, 2, 1], device='cpu:1'))",
    "igamma": "pdt.igamma(pdt.ones(3), pdt.ones(3, device='cpu:1'))",
    "zeta": "pdt.special.zeta(pdt.full((3,), 2.0), pdt.ones(3, device='cpu:1'))",
    "histogram": "pdt.histogram(pdt.arange(5.), bins=pdt.tensor([0., 2., 4.], device='cpu:1'))",
    "cov": "pdt.cov(pdt.ones(2, 3), fweights=pdt.ones(3, dtype=pdt.long, device='cpu:1'))",
    "sdpa": "pdt.nn.functional.scaled_dot_product_attention(pdt.ones(1, 2, 4), "
            "pdt.ones(1, 2, 4, device='cpu:1'), pdt.ones(1, 2, 4))",
    "mha_key": "pdt.nn.MultiheadAttention(4, 1)(pdt.ones(2, 4), pdt.ones(2, 4, device='cpu:1'), "
               "pdt.ones(2, 4, device='cpu:1'))",
    "mha_mask": "pdt.nn.MultiheadAttention(4, 1)(pdt.ones(2, 4), pdt.ones(2, 4), pdt.ones(2, 4), "
                "attn_mask=pdt.zeros(2, 2, device='cpu:1'))",
    "grid_sample": "pdt.nn.functional.grid_sample(pdt.zeros(1, 1, 2, 2), "
                   "pdt.zeros(1, 1, 1, 2, device='cpu:1'), align_corners=False)",
    "backward_grad": "x = pdt.ones(3, requires_grad=True); "
                     "(x * 2).backward(pdt.ones(3, device='cpu:1'))",
    "out_device": "pdt.logcumsumexp(pdt.ones(3), 0, out=pdt.zeros(3, device='cpu:1'))",
    "mirrored_bucket": "from pydevtensor.distribute import _GradBucket; "
                       "_GradBucket(pdt.nn.Linear(2, 2), pdt.device('cpu:1'), 'replica 1')",
}

_CODE = """
import json
out = {}
for name, code in json.loads(CASES).items():
    try:
        exec(code)
        out[name] = None
    except Exception as e:
        out[name] = [isinstance(e, pdt.DeviceError), isinstance(e, RuntimeError),
                     type(e).__name__, str(e)]
try:
    pdt.ones(2).new(device='cuda')
    out['legacy_new'] = None
except Exception as e:
    out['legacy_new'] = [isinstance(e, pdt.DeviceError), isinstance(e, RuntimeError),
                         type(e).__name__, str(e)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def results():
    code = f"CASES = {json.dumps(json.dumps(CASES))}\n" + _CODE
    return json.loads(run(setup=SPLIT3, code=code).splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_devices_is_device_error(results, name):
    got = results[name]
    assert got is not None, f"{name}: {CASES[name]} raised nothing"
    is_device_error, is_runtime_error, kind, message = got
    assert is_device_error and is_runtime_error, f"{name} raised {kind}: {message}"
    assert "cpu:0" in message and "cpu:1" in message, message


def test_legacy_new_wrong_device_type(results):
    is_device_error, is_runtime_error, kind, message = results["legacy_new"]
    assert is_device_error and is_runtime_error, f"new() raised {kind}: {message}"
    assert "cpu" in message and "cuda" in message, message
