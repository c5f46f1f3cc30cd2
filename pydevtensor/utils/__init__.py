"""pydevtensor.utils: ``utils.data`` (Dataset, TensorDataset, DataLoader, random_split),
as ``torch.utils``; ``from pydevtensor.utils import data`` gives Dive into Deep
Learning's ``data.DataLoader(data.TensorDataset(X, y), batch_size, shuffle=True)``."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
