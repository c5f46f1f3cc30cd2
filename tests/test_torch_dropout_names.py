"""pydevtensor.dropout(input, p, train) and its kin, PyTorch's top-level forms: p and
train positional and required, train a bool; the feature forms drop whole channels."""
import numpy as np
import pytest

import pydevtensor as pdt

NAMES = ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"]


@pytest.mark.parametrize("name", NAMES)
def test_top_level_dropout_forms(device, name):
    fn = getattr(pdt, name)
    x = pdt.ones(4, 6, 5, device=device)
    assert fn(x, 0.5, False) is x and fn(x, 0.0, True).tolist() == x.tolist()
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'train' must be bool, not int"):
        fn(x, 0.5, 1)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'train'"):
        fn(x, 0.5)
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        fn(x, 1.5, True)
    pdt.manual_seed(0)
    y = fn(x, 0.5, True).cpu().numpy()
    if name.startswith("feature"):  # each (n, c) kept or dropped whole
        assert (y == y[:, :, :1]).all() and len(np.unique(y)) == 2
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            fn(pdt.ones(3, device=device), 0.5, True)
    else:
        assert len(np.unique(y)) == 2
    if name in ("dropout", "feature_dropout"):
        assert set(np.unique(y)) == {0.0, 2.0}


@pytest.mark.parametrize("name", NAMES)
def test_top_level_in_place_dropout_forms(device, name):
    fn = getattr(pdt, name + "_")
    x = pdt.ones(4, 6, 5, device=device)
    assert fn(x, 0.5, False) is x and x._version == 0
    with pytest.raises(TypeError, match=rf"{name}_\(\): argument 'train' must be bool, not int"):
        fn(x, 0.5, 1)
    pdt.manual_seed(0)
    expected = getattr(pdt, name)(x, 0.5, True).cpu().numpy()
    pdt.manual_seed(0)
    assert fn(x, 0.5, True) is x  # written in place: once, twice for the alpha forms (mul_,
    assert x._version == (2 if "alpha" in name else 1)  # add_), as PyTorch's
    np.testing.assert_array_equal(x.cpu().numpy(), expected)
    if name.startswith("feature"):
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            fn(pdt.ones(3, device=device), 0.5, True)
