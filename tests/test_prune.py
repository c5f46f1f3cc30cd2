"""nn.utils.prune, as PyTorch's: the masks against NumPy (the smallest absolute values,
the channels of smallest norm), the re-parametrisation (weight_orig, weight_mask, the
pre-hook), pruning again, training, remove, on every device, in float64."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn.utils import prune


def _linear(device, w):
    lin = nn.Linear(w.shape[1], w.shape[0]).to(device=device, dtype=pdt.float64)
    with pdt.no_grad():
        lin.weight.copy_(pdt.tensor(w, device=device))
    return lin


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("amount,count", [(0, 0), (5, 5), (0.3, 6), (0.5, 10), (1.0, 20)])
def test_l1_unstructured_prunes_the_smallest_absolute_values(device, amount, count):
    w = np.random.default_rng(0).standard_normal((4, 5))
    lin = _linear(device, w)
    orig = lin.weight
    prune.l1_unstructured(lin, "weight", amount=amount)
    expect = np.ones(20)
    expect[np.argsort(np.abs(w).ravel())[:count]] = 0
    np.testing.assert_array_equal(_np(lin.weight_mask), expect.reshape(4, 5))
    assert lin.weight_orig is orig and lin.weight_mask.device == orig.device
    assert sorted(lin.state_dict()) == ["bias", "weight_mask", "weight_orig"]
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_orig"]
    assert not isinstance(lin.weight, nn.Parameter)
    np.testing.assert_array_equal(_np(lin.weight), w * expect.reshape(4, 5))
    x = pdt.randn(3, 5, dtype=pdt.float64, device=device)
    np.testing.assert_allclose(_np(lin(x)), _np(x) @ (w * expect.reshape(4, 5)).T
                               + _np(lin.bias), rtol=1e-12)


def test_pruning_again_counts_among_the_unpruned_entries(device):
    w = np.random.default_rng(1).standard_normal((3, 4))
    lin = _linear(device, w)
    prune.l1_unstructured(lin, "weight", amount=0.25)  # 3 entries
    prune.l1_unstructured(lin, "weight", amount=0.5)  # half the 9 left: round(4.5) = 4
    hooks = list(lin._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer)
    assert len(hooks[0]) == 2
    expect = np.ones(12)
    expect[np.argsort(np.abs(w).ravel())[:7]] = 0
    np.testing.assert_array_equal(_np(lin.weight_mask), expect.reshape(3, 4))
    # a random pruning then zeroes 2 of the 5 left, and keeps the zeros there were
    prune.random_unstructured(lin, "weight", amount=2)
    mask = _np(lin.weight_mask)
    assert mask.sum() == 3 and np.all(mask.ravel()[expect == 0] == 0)


@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), float("-inf"), "fro"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_prunes_the_channels_of_smallest_norm(device, n, dim):
    w = np.random.default_rng(2).standard_normal((5, 4, 3))
    conv = nn.Conv1d(4, 5, 3).to(device=device, dtype=pdt.float64)
    with pdt.no_grad():
        conv.weight.copy_(pdt.tensor(w, device=device))
    prune.ln_structured(conv, "weight", amount=0.4, n=n, dim=dim)
    d = dim % 3
    axes = tuple(a for a in range(3) if a != d)
    a = np.moveaxis(np.abs(w), d, 0).reshape(w.shape[d], -1)
    order = 2 if n == "fro" else n
    norms = {np.inf: a.max(1), -np.inf: a.min(1)}.get(order)
    norms = (a ** order).sum(1) ** (1 / order) if norms is None else norms
    pruned = np.argsort(norms)[:round(0.4 * w.shape[d])]
    keep = np.ones(w.shape[d])
    keep[pruned] = 0
    shape = [1, 1, 1]
    shape[d] = -1
    expect = np.broadcast_to(keep.reshape(shape), w.shape)
    np.testing.assert_array_equal(_np(conv.weight_mask), expect)
    np.testing.assert_array_equal(_np(conv.weight).sum(axis=axes) == 0, keep == 0)


def test_ln_structured_again_prunes_among_the_channels_left(device):
    w = np.array([[1., 1.], [3., 0.], [0., 0.5], [2., 2.]])
    lin = _linear(device, w)
    prune.ln_structured(lin, "weight", amount=1, n=1, dim=0)  # norms 2, 3, .5, 4
    prune.ln_structured(lin, "weight", amount=1, n=1, dim=0)  # of 2, 3, 4
    np.testing.assert_array_equal(_np(lin.weight_mask).sum(1), [0, 2, 0, 2])


def test_ties_prune_the_lower_index_first(device):
    lin = _linear(device, np.array([[1., -1., 2.], [1., 3., -1.]]))
    prune.l1_unstructured(lin, "weight", amount=2)
    np.testing.assert_array_equal(_np(lin.weight_mask), [[0, 0, 1], [1, 1, 1]])
    lin = _linear(device, np.array([[1., 1.], [1., 1.], [2., 0.]]))
    prune.ln_structured(lin, "weight", amount=1, n=1, dim=0)  # all three norms are 2
    np.testing.assert_array_equal(_np(lin.weight_mask), [[1, 1], [1, 1], [0, 0]])


def test_random_pruning_counts_and_structure(device):
    pdt.manual_seed(0)
    conv = nn.Conv2d(3, 6, 2).to(device)
    prune.random_structured(conv, "weight", amount=0.5, dim=0)
    per_channel = _np(conv.weight_mask).sum(axis=(1, 2, 3))
    assert sorted(per_channel) == [0, 0, 0, 12, 12, 12]
    prune.random_unstructured(conv, "weight", amount=5)
    mask = _np(conv.weight_mask)
    assert (mask == 0).sum() == 41 and np.all(mask[per_channel == 0] == 0)
    w = _np(conv.weight_orig)
    np.testing.assert_array_equal(_np(conv.weight), w * mask)


def test_training_updates_weight_orig_and_the_mask_holds(device):
    pdt.manual_seed(3)
    lin = nn.Linear(4, 3).to(device=device, dtype=pdt.float64)
    prune.l1_unstructured(lin, "weight", amount=5)
    mask = _np(lin.weight_mask)
    opt = pdt.optim.SGD(lin.parameters(), lr=0.1)
    before = _np(lin.weight_orig).copy()
    for _ in range(3):
        opt.zero_grad()
        x = pdt.randn(8, 4, dtype=pdt.float64, device=device)
        lin(x).pow(2).sum().backward()
        # d loss / d weight_orig is d loss / d weight times the mask
        assert np.all(_np(lin.weight_orig.grad)[mask == 0] == 0)
        opt.step()
    after = _np(lin.weight_orig)
    assert np.all(after[mask == 1] != before[mask == 1])
    np.testing.assert_array_equal(after[mask == 0], before[mask == 0])
    lin(x)
    np.testing.assert_array_equal(_np(lin.weight), after * mask)
    np.testing.assert_array_equal(_np(lin.weight_mask), mask)


def test_remove_makes_the_pruning_permanent(device):
    w = np.random.default_rng(4).standard_normal((3, 4))
    lin = _linear(device, w)
    orig = lin.weight
    prune.l1_unstructured(lin, "weight", amount=4)
    mask = _np(lin.weight_mask)
    assert prune.is_pruned(nn.Sequential(lin))
    assert prune.remove(lin, "weight") is lin
    assert lin.weight is orig and isinstance(lin.weight, nn.Parameter)
    assert lin.weight.requires_grad and not prune.is_pruned(lin)
    assert sorted(lin.state_dict()) == ["bias", "weight"] and not list(lin.buffers())
    assert not lin._forward_pre_hooks
    np.testing.assert_array_equal(_np(lin.weight), w * mask)
    with pytest.raises(ValueError, match="has to be pruned before"):
        prune.remove(lin, "weight")


def test_state_dict_round_trip(device):
    a = prune.identity(nn.Linear(2, 2).to(device=device, dtype=pdt.float64), "weight")
    b = prune.identity(nn.Linear(2, 2).to(device=device, dtype=pdt.float64), "weight")
    state = a.state_dict()
    state["weight_mask"] = pdt.tensor([[0., 1.], [1., 0.]], dtype=pdt.float64)
    b.load_state_dict(state)
    x = pdt.randn(1, 2, dtype=pdt.float64, device=device)
    b(x)  # the pre-hook recomputes the weight from the loaded mask
    np.testing.assert_array_equal(_np(b.weight), _np(a.weight_orig) * [[0, 1], [1, 0]])


def test_global_unstructured_ranks_all_the_parameters_together(device):
    rng = np.random.default_rng(5)
    w0, w1 = rng.standard_normal((4, 10)), rng.standard_normal((2, 4))
    a, b = _linear(device, w0), _linear(device, w1)
    prune.l1_unstructured(a, "weight", amount=3)
    prune.global_unstructured([(a, "weight"), (b, "weight")],
                              pruning_method=prune.L1Unstructured, amount=10)
    both = np.abs(np.concatenate([w0.ravel(), w1.ravel()]))
    expect = np.ones(48)
    first = np.argsort(both[:40])[:3]  # a's first pruning
    expect[first] = 0
    left = np.flatnonzero(expect)
    expect[left[np.argsort(both[left], kind="stable")[:10]]] = 0
    np.testing.assert_array_equal(_np(a.weight_mask).ravel(), expect[:40])
    np.testing.assert_array_equal(_np(b.weight_mask).ravel(), expect[40:])


def test_global_unstructured_names_an_importance_score_of_another_shape():
    # it failed in the slicing of the joined scores ("The shape of the mask [12] at index
    # 0 does not match the shape of the indexed tensor [11]"); nothing is pruned
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    with pytest.raises(ValueError, match=r"global_unstructured\(\): importance_scores should "
                                         r"have the same shape as parameter weight of Linear, "
                                         r"got \(5,\) vs \(2, 3\)"):
        prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured,
                                  amount=2, importance_scores={(b, "weight"): pdt.ones(5)})
    assert sorted(a._parameters) == sorted(b._parameters) == ["bias", "weight"]
    assert not a._buffers and not b._buffers


def test_custom_mask_and_importance_scores(device):
    w = np.array([[1., 2., 3.], [4., 5., 6.]])
    lin = _linear(device, w)
    prune.custom_from_mask(lin, "weight", pdt.tensor([[1, 0, 1], [1, 1, 0]], device=device))
    scores = pdt.tensor([[9., 9., 1.], [2., 9., 9.]], dtype=pdt.float64, device=device)
    prune.l1_unstructured(lin, "weight", amount=1, importance_scores=scores)
    np.testing.assert_array_equal(_np(lin.weight_mask), [[1, 0, 0], [1, 1, 0]])
    assert lin.weight_mask.dtype == pdt.float64


@pytest.mark.parametrize("amount,error", [(-1, ValueError), (1.5, ValueError),
                                          (7, ValueError), ("a", TypeError),
                                          (True, TypeError)])
def test_bad_amounts_leave_the_module_unchanged(device, amount, error):
    lin = nn.Linear(2, 2).to(device)
    weight = lin.weight
    with pytest.raises(error, match="amount"):
        prune.l1_unstructured(lin, "weight", amount=amount)
    assert lin.weight is weight and list(lin.state_dict()) == ["weight", "bias"]
    assert not prune.is_pruned(lin) and "weight" not in lin.__dict__


@pytest.mark.parametrize("first_container", [False, True])
def test_a_failed_second_pruning_keeps_the_mask_and_the_hook(device, first_container):
    # PyTorch's took the hook off before computing the new mask, so that after the
    # error module.weight stayed a stale product and training undid the pruning.
    w = np.random.default_rng(7).standard_normal((2, 3))
    lin = _linear(device, w)
    prune.l1_unstructured(lin, "weight", amount=2)
    if first_container:
        prune.l1_unstructured(lin, "weight", amount=1)
    hook = next(iter(lin._forward_pre_hooks.values()))
    methods = len(hook) if first_container else None
    mask = _np(lin.weight_mask)
    with pytest.raises(ValueError, match="amount=10"):
        prune.l1_unstructured(lin, "weight", amount=10)
    with pytest.raises(ValueError, match="3 dims"):
        prune.ln_structured(lin, "weight", amount=1, n="nuc", dim=0)
    with pytest.raises(ValueError, match="importance_scores should have the same shape"):
        prune.l1_unstructured(lin, "weight", amount=1, importance_scores=pdt.ones(3))
    assert list(lin._forward_pre_hooks.values()) == [hook]
    assert methods is None or len(hook) == methods
    np.testing.assert_array_equal(_np(lin.weight_mask), mask)
    with pdt.no_grad():
        lin.weight_orig.fill_(5.0)
    x = pdt.ones(1, 3, dtype=pdt.float64, device=device)
    np.testing.assert_allclose(_np(lin(x))[0], 5.0 * mask.sum(1) + _np(lin.bias), rtol=1e-12)
    lin(x).sum().backward()  # a fresh graph each call
    np.testing.assert_array_equal(_np(lin.weight_orig.grad), mask)
    prune.l1_unstructured(lin, "weight", amount=1)  # still prunes among those left
    assert _np(lin.weight_mask).sum() == mask.sum() - 1


def test_ln_structured_nuclear_norm(device):
    # 'nuc': each channel's nuclear norm as a matrix; PyTorch's took the norm of the
    # last two dims instead when the tensor had other than 3 dims (wrong channels).
    w = np.random.default_rng(8).standard_normal((4, 3, 5))
    conv = nn.Conv1d(3, 4, 5).to(device=device, dtype=pdt.float64)
    with pdt.no_grad():
        conv.weight.copy_(pdt.tensor(w, device=device))
    prune.ln_structured(conv, "weight", amount=1, n="nuc", dim=1)
    norms = np.linalg.norm(np.moveaxis(w, 1, 0), ord="nuc", axis=(1, 2))
    keep = (np.arange(3) != np.argmin(norms)).astype(float)
    np.testing.assert_array_equal(_np(conv.weight_mask),
                                  np.broadcast_to(keep[None, :, None], w.shape))
    for shape in [(3, 4), (2, 3, 2, 2)]:
        lin = nn.Module()
        lin.weight = nn.Parameter(pdt.ones(shape, device=device))
        with pytest.raises(ValueError, match=r"3 dims; got shape \(" + str(shape[0])):
            prune.ln_structured(lin, "weight", amount=1, n="nuc", dim=0)
        assert [n for n, _ in lin.named_parameters()] == ["weight"]
