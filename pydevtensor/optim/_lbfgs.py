"""LBFGS, PyTorch's limited-memory BFGS (re-exported by pydevtensor.optim), with its
optional strong-Wolfe line search (cubic interpolation, Nocedal and Wright's
algorithms 3.5 and 3.6).

Unlike the other optimizers, LBFGS reads scalars back to the host, as PyTorch's does:
the loss of every evaluation, the dot products of the two-loop recursion and the
line search's tests are Python floats, so on an accelerator each iteration
synchronises with it several times.  The parameters, the gradients and the history
(the last history_size pairs of steps and gradient changes) stay on the device, as
flat vectors of the parameters' dtype."""
from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable, Iterable
from typing import Any

from .. import _C
from .._args import size as _size
from .._ops_join import cat as _cat
from ..autograd.grad_mode import enable_grad as _enable_grad
from ..autograd.grad_mode import no_grad as _no_grad
from .optimizer import Optimizer, _check_bool, _check_lr, _nonnegative


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser, within bounds (default: between x1 and x2), of the cubic through
    (x1, f1) and (x2, f2) with slopes g1 and g2; the middle of the bounds when the cubic
    has no minimum there (or the points coincide)."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    if x1 == x2:
        return (lo + hi) / 2.0
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = math.sqrt(disc)
    (a, ga), (b, gb) = ((x1, g1), (x2, g2)) if x1 <= x2 else ((x2, g2), (x1, g1))
    # from the right end b, back towards a
    denominator = gb - ga + 2 * d2
    if denominator == 0:
        return (lo + hi) / 2.0
    return min(max(b - (b - a) * ((gb + d2 - d1) / denominator), lo), hi)


class _Point:
    """A point of the line search: step t, loss f, flat gradient g, slope gtd."""
    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step t along d satisfying the strong Wolfe conditions (sufficient decrease c1,
    curvature c2), from the loss f, gradient g and slope gtd at t = 0; evaluate(t) gives
    (loss, flat gradient) there.  Returns (loss, gradient, t, evaluations)."""
    d_norm = float(d.abs().max())
    start = _Point(0.0, f, g, gtd)
    f_new, g_new = evaluate(t)
    evals, it = 1, 0
    new = _Point(t, f_new, g_new, float(g_new.dot(d)))
    prev = start
    bracket, done = None, False
    # bracketing: grow t until an interval holds a point of the conditions
    while it < max_ls:
        if new.f > f + c1 * new.t * gtd or (it > 1 and new.f >= prev.f):
            bracket = [prev, new]
            break
        if abs(new.gtd) <= -c2 * gtd:
            bracket, done = [new], True
            break
        if new.gtd >= 0:
            bracket = [prev, new]
            break
        t = _cubic_min(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                       bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev = new
        f_new, g_new = evaluate(t)
        evals, it = evals + 1, it + 1
        new = _Point(t, f_new, g_new, float(g_new.dot(d)))
    if it == max_ls:
        bracket = [_Point(0.0, f, g, None), new]
    # zoom: shrink the interval by cubic interpolation (kept off its ends)
    insufficient = False
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    while not done and it < max_ls:
        a, b = bracket[0].t, bracket[1].t
        if abs(b - a) * d_norm < tolerance_change:
            break
        t = _cubic_min(a, bracket[0].f, bracket[0].gtd, b, bracket[1].f, bracket[1].gtd)
        top, bottom = max(a, b), min(a, b)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals, it = evals + 1, it + 1
        new = _Point(t, f_new, g_new, float(g_new.dot(d)))
        if new.f > f + c1 * t * gtd or new.f >= bracket[low].f:
            bracket[high] = new
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(new.gtd) <= -c2 * gtd:
                done = True
            elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = new
    best = bracket[low]
    return best.f, best.g, best.t, evals


def _to_device(value, p):
    """A loaded state entry: tensors copied onto p's device in p's dtype, lists entry
    by entry, numbers as they are."""
    if isinstance(value, _C.Tensor):
        return value.detach().to(device=p.device, dtype=p.dtype, copy=True)
    if isinstance(value, (list, tuple)):
        return [_to_device(v, p) for v in value]
    return copy.deepcopy(value)


class LBFGS(Optimizer):
    """Limited-memory BFGS, PyTorch's LBFGS: each ``step(closure)`` runs up to max_iter
    iterations, each a quasi-Newton direction from the last history_size pairs of
    steps and gradient changes (the two-loop recursion, scaled by ``y.s / y.y``), then a
    step of lr along it (the first iteration's at most ``lr / sum|g|``), or, with
    line_search_fn='strong_wolfe', a step found by a line search.  It stops early when
    the largest gradient element is at most tolerance_grad, the loss or the step
    changes by less than tolerance_change, or max_eval evaluations are spent.

    The closure re-evaluates the model: it zeroes the gradients, computes the loss,
    calls backward and returns the loss; it is called with grad enabled, several
    times per step.  Every parameter is in one group (flattened into one vector).

    Parameters
    ----------
    params : iterable of Tensor
        The parameters (one group only).
    lr : float, optional
        The step length (default 1).
    max_iter : int, optional
        Iterations per step (default 20).
    max_eval : int, optional
        Closure evaluations per step (default max_iter * 5 // 4).
    tolerance_grad : float, optional
        Stop when the largest gradient element is at most this (default 1e-7).
    tolerance_change : float, optional
        Stop when the loss or the step changes less (default 1e-9).
    history_size : int, optional
        The pairs kept (default 100).
    line_search_fn : {None, 'strong_wolfe'}, optional
        The line search (default None: a fixed step of lr).
    maximize : bool, optional
        Maximise the closure's value instead (default False).

    Raises
    ------
    ValueError
        For a negative lr, counts below 1, an unknown line_search_fn, or several
        parameter groups.
    TypeError
        When a count is not an int, a tolerance not a number, or step() gets no
        closure.

    Notes
    -----
    It reads scalars to the host every iteration, as PyTorch's does (see the module's
    docstring).  The state (of the first parameter, as PyTorch's) holds 'func_evals',
    'n_iter', 'd', 't', 'old_dirs', 'old_stps', 'ro', 'H_diag', 'prev_flat_grad',
    'prev_loss' and 'al'; 't' and 'prev_loss' are Python floats, 'ro', 'al' and
    'H_diag' 0-d tensors (of the parameters' dtype, on their device).

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([3., -2.]))
    >>> opt = optim.LBFGS([w], line_search_fn='strong_wolfe')
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - pydevtensor.tensor([1., 2.])) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> opt.step(closure)
    tensor(20., grad_fn=<SumBackward0>)
    >>> [round(v, 4) for v in w.tolist()]
    [1.0, 2.0]
    """

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1,
                 max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn: str | None = None, *,
                 maximize: bool = False) -> None:
        if max_eval is None and isinstance(max_iter, numbers.Integral):
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad,
                                  "tolerance_change": tolerance_change,
                                  "history_size": history_size,
                                  "line_search_fn": line_search_fn, "maximize": maximize})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups): "
                             f"got {len(self.param_groups)} groups")
        self._params = self.param_groups[0]["params"]

    def _add_group(self, group: dict[str, Any], seen: set[int]) -> None:
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super()._add_group(group, seen)

    def _check_group(self, group):
        where = "LBFGS"
        group["lr"] = _check_lr(group["lr"], where)
        for name in ("max_iter", "max_eval", "history_size"):
            group[name] = _size(group[name], where, name, 1)  # a NumPy integer as an int
        for name in ("tolerance_grad", "tolerance_change"):
            group[name] = _nonnegative(group[name], name, where)
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise ValueError(f"{where}: only 'strong_wolfe' is supported as line_search_fn "
                             f"(or None), got {group['line_search_fn']!r:.40}")
        _check_bool(group["maximize"], "maximize", where)

    def _loaded_state(self, entry, p, where, group):
        if not isinstance(entry, dict):
            raise TypeError(f"{where} is a {type(entry).__name__}, not a dict")
        return {k: _to_device(v, p) for k, v in entry.items()}

    # ---- the parameters as one flat vector

    def _flat_grad(self):
        views = [p.grad.reshape(-1) if p.grad is not None else _C.zeros(
            p.numel(), dtype=p.dtype, device=p.device) for p in self._params]
        flat = _cat(views) if len(views) > 1 else views[0].clone()
        return flat.neg_() if self.param_groups[0]["maximize"] else flat

    def _move(self, t, d):
        """Every parameter += t * its part of d."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p.detach().add_(d[offset:offset + n].reshape(p.shape), alpha=t)
            offset += n

    def _loss(self, closure):
        with _enable_grad():
            loss = closure()
        # Read detached, as PyTorch's float(closure()) under its own no_grad: the loss
        # requires grad, and float() of it would warn on every evaluation.
        value = float(loss.detach() if hasattr(loss, "detach") else loss)
        return loss, (-value if self.param_groups[0]["maximize"] else value)

    def _step_each_place(self, step, args, kwargs) -> Any:
        """step itself: it works on the flat vector of every place's entries, a
        parameter twice in its group twice there, as PyTorch's."""
        return step(*args, **kwargs)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # type: ignore[override]
        """Runs up to max_iter iterations (see the class's docstring).

        Parameters
        ----------
        closure : callable
            Zeroes the gradients, computes the loss, calls backward and returns the
            loss (required).

        Returns
        -------
        The closure's loss at the first evaluation (before this step).

        Raises
        ------
        TypeError
            When closure is missing or not callable.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> w = nn.Parameter(pydevtensor.tensor([0.5]))
        >>> opt = optim.LBFGS([w], lr=0.5, max_iter=3)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w * w).sum()
        ...     loss.backward()
        ...     return loss
        >>> float(opt.step(closure))
        0.25
        """
        if closure is None or not callable(closure):
            raise TypeError("LBFGS.step() needs a closure (it re-evaluates the model and "
                            f"returns the loss), got {type(closure).__name__}")
        with _no_grad():
            return self._iterate(closure)

    def _iterate(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        first_loss, loss = self._loss(closure)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(flat_grad.abs().max()) <= tol_grad:
            return first_loss
        d, t = state.get("d"), state.get("t")
        dirs, steps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, dirs, steps, ro, h_diag = flat_grad.neg(), [], [], [], 1.0
            else:
                y, s = flat_grad.sub(prev_grad), d.mul(t)
                ys = y.dot(s)  # 0-d tensors in the parameters' dtype, as PyTorch's
                if float(ys) > 1e-10:  # a pair of positive curvature joins the history
                    if len(dirs) == history:
                        del dirs[0], steps[0], ro[0]
                    dirs.append(y)
                    steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                al = state.setdefault("al", [None] * history)
                q = flat_grad.neg()
                for i in range(len(dirs) - 1, -1, -1):
                    al[i] = steps[i].dot(q) * ro[i]
                    q.add_(dirs[i], alpha=-float(al[i]))
                d = q.mul(h_diag)
                for i in range(len(dirs)):
                    d.add_(steps[i], alpha=float(al[i] - dirs[i].dot(d) * ro[i]))
            if prev_grad is None:
                prev_grad = flat_grad.clone()
            else:
                prev_grad.copy_(flat_grad)
            prev_loss = loss
            if state["n_iter"] == 1:
                inverse = 1.0 / flat_grad.abs().sum()
                t = float(inverse * lr) if float(inverse) < 1.0 else lr
            else:
                t = lr
            gtd = float(flat_grad.dot(d))
            if gtd > -tol_change:  # not a descent direction
                break
            spent = 0
            if group["line_search_fn"] == "strong_wolfe":
                start = [p.detach().clone() for p in self._params]

                def evaluate(step, d=d, start=start):
                    self._move(step, d)
                    value = self._loss(closure)[1]
                    g = self._flat_grad()
                    for p, x in zip(self._params, start):
                        p.detach().copy_(x)
                    return value, g

                loss, flat_grad, t, spent = _strong_wolfe(evaluate, t, d, loss, flat_grad, gtd,
                                                          max_ls=max_eval - evals)
                self._move(t, d)
                converged = float(flat_grad.abs().max()) <= tol_grad
            else:
                self._move(t, d)
                converged = False
                if n_iter != max_iter:  # the last iteration's loss is the next step's
                    loss = self._loss(closure)[1]
                    flat_grad = self._flat_grad()
                    converged = float(flat_grad.abs().max()) <= tol_grad
                    spent = 1
            evals += spent
            state["func_evals"] += spent
            if (n_iter == max_iter or evals >= max_eval or converged
                    or float(d.mul(t).abs().max()) <= tol_change
                    or abs(loss - prev_loss) < tol_change):
                break
        state.update({"d": d, "t": t, "old_dirs": dirs, "old_stps": steps, "ro": ro,
                      "H_diag": h_diag, "prev_flat_grad": prev_grad, "prev_loss": prev_loss})
        return first_loss
