"""An integer class outside [0, C) in nll_loss and cross_entropy (Note [unchecked classes]
in pydevtensor/nn/_functional_losses.py): on the CPU an IndexError naming the class; on
another device nothing is read back, and that sample's loss and gradient are NaN while
every other sample's are the CPU's (to 1e-6 relative, float32), on every path the two
functions take (no options, class weights, ignore_index, label smoothing, reductions)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F

C = 4
CASES = {
    "nll": lambda x, t, **kw: F.nll_loss(F.log_softmax(x, 1), t, **kw),
    "nll-weight": lambda x, t, **kw: F.nll_loss(F.log_softmax(x, 1), t,
                                                weight=pdt.arange(1.0, C + 1, device=x.device),
                                                **kw),
    "ce": lambda x, t, **kw: F.cross_entropy(x, t, **kw),
    "ce-ignore": lambda x, t, **kw: F.cross_entropy(x, t, ignore_index=0, **kw),
    "ce-weight": lambda x, t, **kw: F.cross_entropy(
        x, t, weight=pdt.arange(1.0, C + 1, device=x.device), **kw),
    "ce-smoothing": lambda x, t, **kw: F.cross_entropy(x, t, label_smoothing=0.1, **kw),
}


def _logits(device):
    rng = np.random.default_rng(5)
    return pdt.tensor(rng.standard_normal((3, C)).astype(np.float32), device=device,
                      requires_grad=True)


@pytest.mark.parametrize("bad", [C, C + 3, -2])
@pytest.mark.parametrize("name", sorted(CASES))
def test_out_of_range_class(device, name, bad):
    fn = CASES[name]
    x = _logits(device)
    target = pdt.tensor([1, bad, 2], device=device)
    if device.type == "cpu":
        with pytest.raises(IndexError, match=rf"target {bad} is out of bounds for {C} classes"):
            fn(x, target)
        return
    loss = fn(x, target, reduction="none")
    got = loss.detach().cpu().numpy()
    assert math.isnan(got[1])
    # the other samples: as on the CPU with the bad target replaced by a good one
    x_cpu = _logits("cpu")
    want = fn(x_cpu, pdt.tensor([1, 3, 2]), reduction="none").detach().numpy()
    np.testing.assert_allclose(got[[0, 2]], want[[0, 2]], rtol=1e-6, atol=1e-7)
    assert math.isnan(fn(x, target).item())  # the mean shows it
    fn(x, target, reduction="sum").backward()
    g = x.grad.cpu().numpy()
    assert np.isnan(g[1]).all() and np.isfinite(g[[0, 2]]).all()
    fn(x_cpu, pdt.tensor([1, 3, 2]), reduction="sum").backward()
    np.testing.assert_allclose(g[[0, 2]], x_cpu.grad.numpy()[[0, 2]], rtol=1e-6, atol=1e-7)


def test_ignored_target_is_not_taken_for_a_bad_one(device):
    """-100 (the default ignore_index) lies outside [0, C) and is no error anywhere."""
    x = _logits(device)
    loss = F.cross_entropy(x, pdt.tensor([1, -100, 2], device=device), reduction="none")
    assert np.isfinite(loss.detach().cpu().numpy()).all()
    assert loss.detach().cpu().numpy()[1] == 0.0
