"""The fused pointwise steps of the LSTM and GRU cells, differentiable: one kernel and
one autograd node per step where the composition in _functional_rnn.py records about
ten ops (the kernels: _C._lstm_cell, _C._gru_cell and their backward, csrc/core/pdt_rnn.h
for the equations and the workspaces).

    lstm_cell(igates, hgates, cx) -> (hy, cy)    igates, hgates (N, 4 H); cx (N, H)
    gru_cell(igates, hgates, hx) -> hy           igates, hgates (N, 3 H); hx (N, H)
    hidden_projection(h, w_hh, b_hh, collected, t) -> h @ W_hh^T + b_hh of a layer's
        step t, whose W_hh and b_hh gradients come as one GEMM and one sum for all
        the steps (Note [one GEMM for W_hh's gradient])

igates is the input's projection x @ W_ih^T + b_ih and hgates the state's h @ W_hh^T +
b_hh (the biases already added, as F.linear adds them): the kernels add igates + hgates
as the composition does, so the forward gives its bits on every device.  float32 and
float64 only (``fusable``); the layers use the composition for the half types.
With create_graph=True the backward is written with recorded ops instead of the
kernels, differentiable again (Note [the fused cells' double backward]).
"""
from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.engine import current_pass
from .._ops_join import cat
from ..autograd.node import Node, edge_of

FUSED_DTYPES = (_C.float32, _C.float64)


def fusable(x):
    """Whether the fused kernels take x's dtype."""
    return x.dtype in FUSED_DTYPES


def _contiguous(x):
    return x if x is None or x.is_contiguous() else x.contiguous()


@recorded("_lstm_cell")
def _lstm_cell(igates, hgates, cx):
    """(hy, cy, workspace): the kernel's three results (the node keeps the workspace)."""
    return _C._lstm_cell(_contiguous(igates), _contiguous(hgates), _contiguous(cx))


@recorded("_gru_cell")
def _gru_cell(igates, hgates, hx):
    """(hy, workspace)."""
    return _C._gru_cell(_contiguous(igates), _contiguous(hgates), _contiguous(hx))


def lstm_cell(igates, hgates, cx):
    """One LSTM step's pointwise part (module docstring): (hy, cy)."""
    hy, cy, _ = _lstm_cell(igates, hgates, cx)
    return hy, cy


def gru_cell(igates, hgates, hx):
    """One GRU step's pointwise part (module docstring): hy."""
    return _gru_cell(igates, hgates, hx)[0]


@derivative("_lstm_cell")
class LstmCellBackward0(Node):
    """The fused LSTM step: the gates' gradient (the same for igates and hgates) and
    cx's, from the saved workspace, by one kernel (_C._lstm_cell_backward); with
    create_graph=True by recorded ops (Note [the fused cells' double backward])."""
    num_outputs = 2  # hy, cy (the workspace gets no gradient)

    def save(self, out, igates, hgates, cx):
        self.save_tensors(_contiguous(cx), out[2])
        return (igates, hgates, cx)

    def apply(self, grads):
        cx, ws = self.saved_tensors
        if _C.is_grad_enabled():
            dgates, dcx = _lstm_backward_recorded(self, grads, cx, ws)
        else:
            dgates, dcx = _C._lstm_cell_backward(_contiguous(grads[0]),
                                                 _contiguous(grads[1]), cx, ws)
        need = self.needs_input_grad
        return (dgates if need[0] else None, dgates if need[1] else None,
                dcx if need[2] else None)


@derivative("_gru_cell")
class GruCellBackward0(Node):
    """The fused GRU step: the gradients of igates, hgates and hx (through the
    pointwise part), from the saved workspace, by one kernel (_C._gru_cell_backward);
    with create_graph=True by recorded ops (Note [the fused cells' double backward])."""

    def save(self, out, igates, hgates, hx):
        self.save_tensors(_contiguous(hx), out[1])
        return (igates, hgates, hx)

    def backward(self, g):
        hx, ws = self.saved_tensors
        if _C.is_grad_enabled():
            d_ig, d_hg, dhx = _gru_backward_recorded(self, g, hx, ws)
        else:
            d_ig, d_hg, dhx = _C._gru_cell_backward(_contiguous(g), hx, ws)
        need = self.needs_input_grad
        return (d_ig if need[0] else None, d_hg if need[1] else None,
                dhx if need[2] else None)


# Note [the fused cells' double backward]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# With create_graph=True the cells' gradients are written with recorded ops, so that
# they can be differentiated again (gradient penalties, Hessian-vector products),
# without saving the pre-activations in the forward: the workspace's activated gates a
# = act(p) (p = igates + hgates, or the GRU's gi_n + r gh_n) become tensors in the
# graph by a GateBackward0 over the edges p depends on, whose backward is g act'(p)
# written through a (sigmoid' = a (1 - a), tanh' = 1 - a^2) on a read back with that
# node as grad_fn, as a saved output is (SigmoidBackward0's way): exact to every
# order.  The GRU's gh_n (kept in its workspace) is hgates' slice the same way.  The
# gradients are then the kernels' formulas (csrc/core/pdt_rnn.h) on these tensors and
# the saved state, which is the cell's input itself.  Only create_graph pays for it;
# the ordinary backward runs the kernels.

class GateBackward0(Node):
    """Makes a value the kernel already computed (a slice of a cell's workspace)
    a tensor in the graph: its backward is ``slope(out, g)`` split by ``split`` into
    one gradient per edge, out the value with this node as grad_fn when grad mode is
    on (Note [the fused cells' double backward])."""

    def backward(self, g):
        (out,) = self.saved_tensors  # with this node as grad_fn when grad mode is on
        grads = self.split(self.slope(out, g))
        return tuple(d if need else None for d, need in zip(grads, self.needs_input_grad))


def _gate(value, edges, slope, split):
    """value (detached) as the output of a GateBackward0 over edges (None for an input
    that needs no gradient); value itself when no edge is left."""
    needs = tuple(e is not None for e in edges)
    if True not in needs:
        return value
    node = GateBackward0.__new__(GateBackward0)
    node._saved = ()
    node.next_functions = edges
    node.needs_input_grad = needs
    prev = _C._set_grad_enabled(False)
    try:
        out = value.clone()  # its own storage: no view of the workspace in the graph
    finally:
        _C._set_grad_enabled(prev)
    node.save_tensors(out, outputs=(0,))  # packed by the saved tensors hooks
    node.slope, node.split = slope, split
    return out.detach()._set_grad_fn(node, 0)


def _sigmoid_slope(a, g):
    return g * a * (1.0 - a)


def _tanh_slope(a, g):
    return g * (1.0 - a * a)


def _lstm_slope(a, g):
    i, f, gg, o = a.chunk(4, 1)
    return g * cat([i * (1.0 - i), f * (1.0 - f), 1.0 - gg * gg, o * (1.0 - o)], 1)


def _edges(node):
    return tuple(None if e[0] is None else e for e in node.next_functions)


def _padded(d, before, after):
    """d (N, H) with zero blocks of before and after columns on either side."""
    def zeros(k):
        return _C.zeros((d.shape[0], k), dtype=d.dtype, device=d.device)
    return cat(([zeros(before)] if before else []) + [d] + ([zeros(after)] if after else []),
               1)


def _lstm_backward_recorded(node, grads, cx, ws):
    """(dgates, dcx) of LstmCellBackward0 by recorded ops."""
    e_ig, e_hg, _ = _edges(node)
    H = cx.shape[1]
    A = _gate(ws[:, :4 * H], (e_ig, e_hg), _lstm_slope, lambda d: (d, d))
    i, f, gg, o = A.chunk(4, 1)
    tc = (f * cx + i * gg).tanh()  # the workspace's tanh(c'), in the graph
    dh, dc = grads
    dh = _C.zeros_like(cx) if dh is None else dh
    dct = dh * o * (1.0 - tc * tc)
    dct = dct if dc is None else dc + dct
    dgates = _lstm_slope(A, cat([dct * gg, dct * cx, dct * i, dh * tc], 1))
    return dgates, dct * f


def _gru_backward_recorded(node, g, hx, ws):
    """(d_igates, d_hgates, dhx) of GruCellBackward0 by recorded ops."""
    e_ig, e_hg, _ = _edges(node)
    H = hx.shape[1]
    R, Z = _gate(ws[:, :2 * H], (e_ig, e_hg), _sigmoid_slope,
                 lambda d: (_padded(d, 0, H),) * 2).chunk(2, 1)
    gh_n = _gate(ws[:, 3 * H:], (e_hg,), lambda a, d: d, lambda d: (_padded(d, 2 * H, 0),))
    rg = R * gh_n
    N = _gate(ws[:, 2 * H:3 * H], (e_ig, edge_of(rg)), _tanh_slope,
              lambda d: (_padded(d, 2 * H, 0), d))
    d_z = _sigmoid_slope(Z, g * (hx - N))
    d_n = _tanh_slope(N, g * (1.0 - Z))
    d_r = _sigmoid_slope(R, d_n * gh_n)
    return cat([d_r, d_z, d_n], 1), cat([d_r, d_z, d_n * R], 1), g * Z


# Note [steps of an earlier pass]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The later steps' nodes hand their gradients to the first step's node, which uses and
# forgets them.  A pass that does not reach the first step's node (autograd.grad over
# the input: the first step's node leads only to W_hh, b_hh and an h0 that needs no
# gradient, so it does not run) leaves what its steps put; a later pass must not add
# it to W_hh's gradient.  It did: after grad(gru(x)[0].sum(), x, create_graph=True), a
# gradient penalty's backward summed the first pass's in-graph step gradients instead
# of its own (the GRU's, buffered: its own went to the rows, the stale ones were
# preferred), W_hh's and b_hh's gradients off by 0.1 from PyTorch's.  So each put
# checks the pass it runs in (the engine's current_pass(), a number no other pass
# has: holding the pass's current_run() entry instead would hold its inputs, and
# through a non-leaf input's graph this node, a cycle of tensors never collected) and
# forgets what an earlier one left.

class StepGradients:
    """What the hidden projections of one layer and direction hand to the first step's
    (Note [one GEMM for W_hh's gradient]) until its backward uses and drops them: each
    step's h, by step, and its gradient of h @ W_hh^T + b_hh.  With ``buffered`` the
    gradients are written into rows t N .. (t + 1) N of one (L N, G H) buffer
    (``rows``, made by the first step backward that runs), so that they are neither
    held apart nor concatenated: the GRU's (GRU L=100 N=16 H=128 on the CPU: the peak
    of forward and backward 10.3 -> 7.9 MiB).  Not the LSTM's: its step's gate
    gradient is also the input projection's, which that backward holds until every
    step's has come, so holding it here costs nothing and a buffer would add L N G H
    bytes early in the backward (9.6 -> 10.2 MiB).  ``grads`` keeps, by step, the
    gradients held apart (not buffered, or in the graph: create_graph=True).
    ``weight``: W_hh itself, which the later steps' nodes hold detached, for their
    h's gradient with create_graph=True.  ``run``: the number of the backward pass
    (autograd.engine.current_pass()) the kept steps came in; a step put in another
    pass first forgets them (Note [steps of an earlier pass])."""
    __slots__ = ("steps", "buffered", "weight", "rows", "grads", "states", "run")

    def __init__(self, steps, buffered, weight):
        self.steps, self.buffered, self.weight = steps, buffered, weight
        self.rows, self.grads, self.states, self.run = None, {}, {}, 0

    def put(self, t, g, h):
        """Keeps step t's gradient g (N, G H) and its state h."""
        run = current_pass()
        if run != self.run:  # Note [steps of an earlier pass]
            self.rows, self.grads, self.states, self.run = None, {}, {}, run
        self.states[t] = h
        if g.requires_grad or not self.buffered:
            self.grads[t] = g
            return
        n = g.shape[0]
        if self.rows is None:
            self.rows = _C.empty((self.steps * n, g.shape[1]), dtype=g.dtype,
                                 device=g.device)
        self.rows[t * n:(t + 1) * n].copy_(g)

    def take(self):
        """(G, S): the kept gradients and states, their rows in the same order, and
        forgets them."""
        from .._ops_join import cat  # imported late: _ops_join imports the recorder
        rows, grads, states = self.rows, self.grads, self.states
        self.rows, self.grads, self.states, self.run = None, {}, {}, 0
        order = sorted(states)
        S = cat([states[t] for t in order], 0)
        if rows is not None and not grads and len(order) == self.steps:  # all rows written
            return rows, S
        n = S.shape[0] // len(order)
        G = cat([grads[t] if t in grads else rows[t * n:(t + 1) * n] for t in order], 0)
        return G, S


@recorded("_hidden_projection")
def hidden_projection(h, w_hh, b_hh, collected, t):
    """h @ W_hh^T + b_hh of step t (0: the first of the direction), recorded so that
    only step 0's node differentiates W_hh and b_hh (the other steps get them
    detached)."""
    return _C.addmm(b_hh, h, w_hh.T) if b_hh is not None else _C.matmul(h, w_hh.T)


@derivative("_hidden_projection")
class HiddenProjectionBackward0(Node):
    """Note [one GEMM for W_hh's gradient]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A layer's steps share W_hh: its gradient is the sum over steps of dgh_t^T h_t.
    Per step that is L thin GEMMs (K = the batch) and L additions of a (G H, H)
    matrix; here each step's node passes dgh_t and h_t on (StepGradients), and the
    first step's node, whose backward runs after every later step's (its input's
    gradient depends on them all), makes W_hh's gradient as one GEMM over L N rows
    and b_hh's as one sum.  The steps' nodes but the first hold W_hh detached."""

    def save(self, out, h, w_hh, b_hh, collected, t):
        self.collected, self.t = collected, t
        self.save_tensors(h, w_hh)
        return (h, w_hh, b_hh)

    def backward(self, g):
        h, w = self.saved_tensors
        need, c = self.needs_input_grad, self.collected
        graph = _C.is_grad_enabled()  # create_graph=True: the ops below are recorded
        if graph and c is not None and self.t:
            w = c.weight  # dh's dependence on W_hh, which this step holds detached
        dh = _C.matmul(g, w) if need[0] else None
        if c is None:  # nothing collected (W_hh and b_hh need no gradient): this step's
            return (dh, _C.matmul(g.T, h) if need[1] else None,
                    g.sum(0) if need[2] else None)
        if self.t:
            # h without its place in the graph: with it, h -> this node's successors ->
            # collected -> h would be a cycle (tensors are not tracked by Python's
            # collector), kept for good when a backward stops before step 0's node.
            # Not with create_graph, where W_hh's gradient must depend on h (as g,
            # in the graph, makes that cycle anyway)
            c.put(self.t, g, h if graph else h.detach())
            return dh, None, None
        c.put(0, g, h)
        G, S = c.take()
        dw = _C.matmul(G.T, S) if need[1] else None
        db = G.sum(0) if need[2] else None
        return dh, dw, db
