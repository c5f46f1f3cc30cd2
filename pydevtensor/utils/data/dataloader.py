"""``torch.utils.data.dataloader``'s public names, for code that imports them from there
(``from torch.utils.data.dataloader import default_collate``): the same objects as
``pydevtensor.utils.data``'s."""
from ._collate import default_collate, default_convert
from ._loader import DataLoader, get_worker_info

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]
