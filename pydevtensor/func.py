"""pydevtensor.func: of ``torch.func``, functional_call (a module run with other tensors
in place of its parameters and buffers; nn/utils/stateless.py).  The transforms
(grad, vmap, jacrev, ...) are not here: ``pydevtensor.autograd.functional`` has
jacobian, hessian, vjp, jvp, hvp and vhp.
"""
from .nn.utils.stateless import functional_call

__all__ = ["functional_call"]
