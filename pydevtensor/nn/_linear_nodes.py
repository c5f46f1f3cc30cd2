"""Ops linear in their input (pad, interpolate), written as compositions of slices,
cats and tap sums, recorded as one node each under PyTorch's name for the op
(ConstantPadNdBackward0, ReflectionPad2DBackward0, UpsampleBilinear2DBackward0, ...;
composed, their grad_fn was the last piece's: CatBackward0, AddBackward0, ...).

Note [linear ops as one node]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``linear(name, fn, x, *args)`` runs ``fn(x, *args)`` with grad mode off and records
it as a ``name`` node.  fn is linear in x, so its gradient is the transpose of the
map, the same for every x: the backward runs fn again on a zeros leaf of x's shape
with grad mode on and takes the gradient of that composition at g
(``autograd.grad(fn(z), z, g)``), PyTorch's ``*_backward`` kernels' results.  Under
create_graph that gradient is recorded (linear in g: double backward and forward mode
work); with ``link`` (reflect and replicate padding, whose PyTorch backward takes the
input) it also requires grad where x does, its derivative in x zeros (Note [linear
inputs] in autograd/node.py).  The forward pays for no recording; the backward makes
the composition's graph once more (what the composed forward made before), unless fn
has an ``adjoint(g, (shape, dtype, device) of x, *args)``, the transpose written out
(constant padding's: g cropped by the negated pads; interpolate's: each axis's taps
added back by index_add).
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.grad_mode import enable_grad
from ..autograd.node import Node, ZeroLinkBackward, _view_with_node, edge_of

_classes = {}


def _node_class(name):
    """The LinearBackward subclass called name (made once)."""
    cls = _classes.get(name)
    if cls is None:
        cls = _classes[name] = type(name, (LinearBackward,), {"__module__": __name__})
    return cls


@recorded("linear_in_input")
def linear(name, link, fn, x, *args):
    """fn(x, *args), recorded as one node called name when x requires grad (Note
    [linear ops as one node]); link: its gradient is linked to x under create_graph."""
    return fn(x, *args)


@derivative("linear_in_input")
class LinearBackward(Node):
    """The transpose of a map linear in x, at g (Note [linear ops as one node])."""

    @staticmethod
    def pick(name, *args):
        return _node_class(name)

    def save(self, out, name, link, fn, x, *args):
        self.fn, self.args, self.link = fn, args, link
        self.meta = (tuple(x.shape), x.dtype, x.device)
        return (x,)

    def backward(self, g):
        from ..autograd import grad  # late: autograd imports the nn ops

        shape, dtype, device = self.meta
        create = _C.is_grad_enabled()
        adjoint = getattr(self.fn, "adjoint", None)
        if adjoint is not None:  # the transpose written out (recorded ops)
            return (adjoint(g, self.meta, *self.args),)
        with enable_grad():
            z = _C.zeros(shape, dtype=dtype, device=device).requires_grad_()
            y = self.fn(z, *self.args)
        (dx,) = grad(y, z, g, create_graph=create, allow_unused=True)
        if dx is None:  # an empty input: nothing reached
            dx = _C.zeros(shape, dtype=dtype, device=device)
        if create and self.link:
            dx = _view_with_node(ZeroLinkBackward, dx, (edge_of(dx), self.next_functions[0]),
                                 metas=[self.meta])
        return (dx,)
