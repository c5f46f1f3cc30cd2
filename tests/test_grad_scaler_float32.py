"""GradScaler keeps its scale as PyTorch's float32 tensor: each update is computed in
double and rounded to float32 once, so get_scale(), state_dict() and the scaled losses
are PyTorch's to the bit with factors that are not powers of two."""
import numpy as np

import pydevtensor as pdt


def _scaler(device, **kw):
    return pdt.amp.GradScaler("cuda" if device.type == "cuda" else "cpu", **kw)


def test_scale_and_updates_round_to_float32(device):
    init, gf, bf = 1000.3, 1.7, 0.3
    s = _scaler(device, init_scale=init, growth_factor=gf, backoff_factor=bf,
                growth_interval=1)
    assert s.get_scale() == init  # before the first scale(): init_scale as given
    assert s._get_growth_tracker() == 0 and s.state_dict()["_growth_tracker"] == 0
    w = pdt.ones(2, device=device, requires_grad=True)
    opt = pdt.optim.SGD([w], lr=0.0)
    expect = np.float32(init)
    for i in range(6):
        opt.zero_grad()
        loss = (w * 3.0).sum()
        if i in (2, 3):
            loss = loss * float("inf")
        scaled = s.scale(loss)
        if i not in (2, 3):  # the loss (6.0) times the float32 scale, in float32
            assert scaled.item() == float(np.float32(6.0) * expect)
        scaled.backward()
        s.step(opt)
        if i not in (2, 3):  # unscaled by float32(1 / scale), as PyTorch's
            inv = np.float32(1.0 / np.float64(expect))
            np.testing.assert_array_equal(w.grad.cpu().numpy(),
                                          np.float32(np.float32(3.0) * expect) * inv)
        s.update()
        expect = np.float32(np.float64(expect) * (bf if i in (2, 3) else gf))
        assert s.get_scale() == float(expect) and type(s.get_scale()) is float
        assert s.state_dict()["scale"] == float(expect)
    assert float(expect) == 751.9144287109375  # PyTorch 2's value after these steps


def test_new_scale_and_loaded_scale_round_to_float32(device):
    s = _scaler(device)
    s.scale(pdt.ones(1, device=device))
    s.update(new_scale=0.1)
    assert s.get_scale() == float(np.float32(0.1)) != 0.1
    t = _scaler(device)
    t.load_state_dict(dict(s.state_dict(), scale=1000.3))
    assert t.get_scale() == 1000.3  # lazy: as loaded until the first scale()
    assert t.scale(pdt.ones(1, device=device)).item() == float(np.float32(1000.3))
    assert t.get_scale() == float(np.float32(1000.3))


def test_growth_past_float32_range_keeps_the_scale(device):
    big = float(np.finfo(np.float32).max) / 1.5
    s = _scaler(device, init_scale=big, growth_interval=1)
    w = pdt.ones(1, device=device, requires_grad=True)
    opt = pdt.optim.SGD([w], lr=0.0)
    s.scale(w.sum() * 1e-30).backward()
    s.step(opt)
    s.update()  # 2 * big overflows float32: unchanged, as PyTorch's isfinite check
    assert s.get_scale() == float(np.float32(big))
    assert pdt.amp.GradScaler("cpu", enabled=False)._get_growth_tracker() == 0
