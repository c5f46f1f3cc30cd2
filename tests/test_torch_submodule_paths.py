"""The submodule paths of torch that everyday code imports names from
(torch.utils.data.dataloader / dataset / sampler, torch.nn.utils.clip_grad): each exists
in pydevtensor with torch's ``__all__`` and gives the very objects of its package."""
import importlib

import numpy as np
import pytest

import pydevtensor as pdt

PATHS = {
    "utils.data.dataloader": ("utils.data", ["DataLoader", "get_worker_info",
                                             "default_collate", "default_convert"]),
    "utils.data.dataset": ("utils.data", ["Dataset", "IterableDataset", "TensorDataset",
                                          "StackDataset", "ConcatDataset", "ChainDataset",
                                          "Subset", "random_split"]),
    "utils.data.sampler": ("utils.data", ["BatchSampler", "RandomSampler", "Sampler",
                                          "SequentialSampler", "SubsetRandomSampler",
                                          "WeightedRandomSampler"]),
    "nn.utils.clip_grad": ("nn.utils", ["clip_grad_norm", "clip_grad_norm_",
                                        "clip_grad_value_", "clip_grads_with_norm_",
                                        "get_total_norm"]),
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_submodule_gives_its_packages_objects(path):
    parent, names = PATHS[path]
    mod = importlib.import_module(f"pydevtensor.{path}")
    pkg = importlib.import_module(f"pydevtensor.{parent}")
    assert sorted(mod.__all__) == sorted(names)
    for n in names:
        assert getattr(mod, n) is getattr(pkg, n), n
    # the attribute path works too (torch.utils.data.sampler.Sampler)
    head, tail = path.rsplit(".", 1)
    assert getattr(pkg, tail) is mod


def test_loading_through_the_submodule_paths(device):
    from pydevtensor.nn.utils.clip_grad import clip_grad_norm_
    from pydevtensor.utils.data.dataloader import DataLoader, default_collate
    from pydevtensor.utils.data.dataset import TensorDataset
    from pydevtensor.utils.data.sampler import SequentialSampler
    x = np.arange(12.0).reshape(6, 2)
    ds = TensorDataset(pdt.tensor(x, device=device))
    batches = list(DataLoader(ds, batch_size=4, sampler=SequentialSampler(ds)))
    assert [b[0].shape[0] for b in batches] == [4, 2]
    np.testing.assert_array_equal(batches[0][0].cpu().numpy(), x[:4])
    np.testing.assert_array_equal(default_collate([ds[0], ds[1]])[0].cpu().numpy(), x[:2])
    p = pdt.nn.Parameter(pdt.zeros(2, device=device))
    p.grad = pdt.tensor([3.0, 4.0], device=device)
    total = clip_grad_norm_([p], 1.0)
    assert abs(float(total) - 5.0) < 1e-6
    np.testing.assert_allclose(p.grad.cpu().numpy(), [0.6, 0.8], rtol=1e-5)
