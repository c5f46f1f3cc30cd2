"""pydevtensor.utils.data: datasets, samplers and the loader that batches them, as
``torch.utils.data`` (Dive into Deep Learning's ``load_array``:
``data.DataLoader(data.TensorDataset(X, y), batch_size, shuffle=is_train)``).

``num_workers > 0`` loads in worker processes, as PyTorch's (see ``DataLoader``).

PyTorch's submodule paths import the same objects: ``utils.data.dataloader``
(``DataLoader``, ``default_collate``, ...), ``utils.data.dataset`` and
``utils.data.sampler``.
"""
from ._collate import default_collate, default_convert
from ._dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                       Subset, TensorDataset, random_split)
from ._loader import DataLoader, get_worker_info
from ._sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                       SubsetRandomSampler, WeightedRandomSampler)
from .distributed import DistributedSampler
from . import dataloader, dataset, sampler  # torch's submodule paths

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
           "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
