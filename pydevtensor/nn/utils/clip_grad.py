"""``torch.nn.utils.clip_grad``'s public names, for code that imports them from there
(``from torch.nn.utils.clip_grad import clip_grad_norm_``): the same functions as
``pydevtensor.nn.utils``'s (defined in its __init__.py, which imports this module last)."""
from . import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
               get_total_norm)

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]
