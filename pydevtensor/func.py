"""pydevtensor.func: of ``torch.func``, functional_call (a module run with other tensors
in place of its parameters and buffers; nn/utils/stateless.py) and the transforms grad,
grad_and_value, vjp, jvp, jacrev, jacfwd and hessian for functions of unbatched inputs
(_func_transforms.py; they compose: ``grad(grad(f))``), vmap, which calls the function
once per example (_func_vmap.py), and stack_module_state (_func_stack.py).  jacfwd and jvp
compute by reverse mode.
``pydevtensor.autograd.functional`` has jacobian, hessian, vjp, jvp, hvp and vhp.
"""
from ._func_transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._func_stack import stack_module_state
from ._func_vmap import vmap
from .nn.utils.stateless import functional_call

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "stack_module_state", "vjp", "vmap"]
