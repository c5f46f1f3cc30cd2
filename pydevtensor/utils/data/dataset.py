"""``torch.utils.data.dataset``'s public names, for code that imports them from there
(``from torch.utils.data.dataset import Dataset``): the same objects as
``pydevtensor.utils.data``'s."""
from ._dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                       Subset, TensorDataset, random_split)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]
