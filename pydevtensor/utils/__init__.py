"""pydevtensor.utils: ``utils.data`` (Dataset, TensorDataset, DataLoader, random_split),
as ``torch.utils``; ``from pydevtensor.utils import data`` gives Dive into Deep
Learning's ``data.DataLoader(data.TensorDataset(X, y), batch_size, shuffle=True)``;
``utils.dlpack`` (from_dlpack, to_dlpack) and ``utils.checkpoint``."""
from . import checkpoint, data, dlpack

__all__ = ["checkpoint", "data", "dlpack"]
