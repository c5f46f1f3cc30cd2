"""Ops linear in their input (pad, interpolate), written as compositions of slices,
cats and tap sums, recorded as one node each under PyTorch's name for the op
(ConstantPadNdBackward0, ReflectionPad2DBackward0, UpsampleBilinear2DBackward0, ...;
composed, their grad_fn was the last piece's: CatBackward0, AddBackward0, ...).

Note [linear ops as one node]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``linear_map(name, link, fn, x, *args)`` runs ``fn(x, *args)`` with grad mode off (no
recording: the forward costs what it costs without autograd) and records it as one
``name`` node.  fn is linear in x, so its gradient is the transpose of the map, the
same for every x, which fn carries as ``fn.adjoint(g, (shape, dtype, device) of x,
*args)``: constant padding's crops g by the negated pads; reflect and replicate
padding's and interpolate's index_add g back onto the cells each output cell read.
Written in recorded ops, the gradient is recorded under create_graph (linear in g:
double backward and forward mode work); with ``link`` (reflect and replicate padding,
whose PyTorch backward takes the input) it also requires grad where x does, its
derivative in x zeros (Note [linear inputs] in autograd/node.py).
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node, ZeroLinkBackward, _view_with_node, edge_of

_classes = {}


def _node_class(name):
    """The LinearBackward subclass called name (made once)."""
    cls = _classes.get(name)
    if cls is None:
        cls = _classes[name] = type(name, (LinearBackward,), {"__module__": __name__})
    return cls


@recorded("linear_in_input")
def linear_map(name, link, fn, x, *args):
    """fn(x, *args), recorded as one node called name when x requires grad (Note
    [linear ops as one node]; fn has an adjoint); link: its gradient is linked to x under
    create_graph."""
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
        dx = self.fn.adjoint(g, self.meta, *self.args)
        if self.link and _C.is_grad_enabled():
            dx = _view_with_node(ZeroLinkBackward, dx, (edge_of(dx), self.next_functions[0]),
                                 metas=[self.meta])
        return (dx,)
