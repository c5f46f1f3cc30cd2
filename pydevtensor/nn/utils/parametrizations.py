"""The parametrizations of ``torch.nn.utils.parametrizations``, registered with
nn.utils.parametrize: weight_norm (``g * v / ||v||``, kept as ``original0`` = g and
``original1`` = v), orthogonal (a matrix kept orthogonal through the matrix exponential,
the Cayley map or Householder reflections of a free matrix) and spectral_norm (the
weight divided by its largest singular value, estimated by power iteration).

orthogonal without trivialization (``use_trivialization=False``) takes an assigned
value for the householder map only, as PyTorch: X is the value's geqrf (its Householder
reflectors), the weight the Q of its QR factorization whose R has a positive diagonal.
"""
from __future__ import annotations

from ... import _C
from ... import linalg as _linalg
from ..._dtype_info import finfo as _finfo
from ..._linalg_decomp import _geqrf
from ..._linalg_exp import matrix_exp as _matrix_exp
from ..._ops_join import cat as _cat
from ..._ops_stats import allclose as _allclose
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..module import Module
from . import parametrize
from .weight_norm import _norm_except_dim, weight_norm_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

_MAPS = ("matrix_exp", "cayley", "householder")


def _tensor_named(module, name):
    """module's tensor (parameter or buffer) called name; ValueError when it has none."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _C.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return weight


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eye = _C.eye(k, dtype=q.dtype, device=q.device)
    return bool(_allclose(q.mT.conj() @ q, eye.expand(q.shape[:-2] + (k, k)),
                            atol=10.0 * n * _finfo(q.dtype).eps))


def _make_orthogonal(a):
    """The Q of a's QR factorization whose R has a positive diagonal."""
    q, r = _linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _householder_product(a, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i column i
    of a below the diagonal and 1 on it (LAPACK's orgqr, linalg.householder_product)."""
    n, k = a.shape[-2], a.shape[-1]
    q = _C.eye(n, k, dtype=a.dtype, device=a.device).expand(a.shape[:-2] + (n, k))
    below = a.tril(-1) + _C.eye(n, k, dtype=a.dtype, device=a.device)
    for i in reversed(range(k)):
        v = below[..., :, i:i + 1]
        q = q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mT.conj() @ q))
    return q


class _Orthogonal(Module):
    """orthogonal's parametrization (PyTorch's _Orthogonal)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = _cat([X, X.new_zeros((n, n - k)).expand(X.shape[:-2] + (n, n - k))], -1)
            A = X - X.mT.conj()
            if self.orthogonal_map == "matrix_exp":
                Q = _matrix_exp(A)
            else:
                eye = _C.eye(n, dtype=A.dtype, device=A.device)
                Q = _linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if "base" in self._buffers:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        if tuple(Q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape "
                             f"{self.shape}. Got a tensor of shape {tuple(Q.shape)}.")
        with no_grad():
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transposed = n < k
            if transposed:
                Q, n, k = Q.mT, k, n
            if "base" not in self._buffers:
                if self.orthogonal_map != "householder":
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the "
                        "Cayley parametrizations when use_trivialization=False.")
                # X is Q's geqrf (the reflectors below the diagonal), the diagonal the
                # signs of R's (forward's X.diagonal().int()), flipped where LAPACK
                # skipped the reflection (tau == 0: forward's reflection is never I)
                a, tau = _geqrf(Q)
                A = a.mT
                d = A.diagonal(dim1=-2, dim2=-1)
                d.sign_()
                d[tau == 0.0] *= -1
                return A.mT if transposed else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = _C.randn(tuple(Q.shape[:-2]) + (n, n - k), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(_cat([Q, N], -1))
            self.base = Q
            neg_eye = _C.zeros_like(Q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Keeps ``module.<name>`` (a matrix or batch of matrices) orthogonal (orthonormal
    columns, or rows when it is wide), as PyTorch's
    ``nn.utils.parametrizations.orthogonal``.

    The parametrized weight is ``base @ map(X)`` with map the matrix exponential or
    the Cayley transform of the skew-symmetric part of X's lower triangle, or a
    product of Householder reflections from X's columns.  With trivialization
    (default) the weight keeps its value at registration (``base`` is its
    orthogonalized value, X starts at -I) and assigning to it sets base again.

    Parameters
    ----------
    module : Module
    name : str, optional
        The tensor (default 'weight').
    orthogonal_map : str, optional
        'matrix_exp', 'cayley' or 'householder'; default 'matrix_exp' for a square
        or complex matrix, 'householder' otherwise.
    use_trivialization : bool, optional
        Keep a base (default True).

    Returns
    -------
    Module
        module, parametrized.

    Raises
    ------
    ValueError
        When module has no such tensor, it has fewer than 2 dimensions, or
        orthogonal_map is unknown.
    NotImplementedError
        When the tensor is float16 or bfloat16 (as PyTorch's).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils.parametrizations import orthogonal
    >>> m = orthogonal(nn.Linear(3, 3))
    >>> bool(pydevtensor.allclose(m.weight @ m.weight.T, pydevtensor.eye(3), atol=1e-5))
    True
    """
    weight = _tensor_named(module, name)
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] or \
            weight.is_complex() else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    if weight.dtype in (_C.float16, _C.bfloat16):
        # its right_inverse needs linalg.qr / geqrf, which have no low-precision dtypes
        # (PyTorch's raises NotImplementedError too; here forward failed on a missing base)
        raise NotImplementedError(f"orthogonal(): {name} of {weight.dtype} is not supported "
                                  f"(no QR in low precision); make the module float32 or "
                                  f"float64 first")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    return parametrize.register_parametrization(module, name, orth, unsafe=True)


class _WeightNorm(Module):
    """weight_norm's parametrization: ``g * v / ||v||`` (norm over all but dim)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalization by a parametrization, as PyTorch's
    ``nn.utils.parametrizations.weight_norm``: ``module.<name>`` is ``g * v / ||v||``,
    the norm taken over every dimension but dim, g kept as
    ``parametrizations.<name>.original0`` and v as ``original1``.  A state dict of
    ``nn.utils.weight_norm`` (``<name>_g``, ``<name>_v``) loads into it.

    Parameters
    ----------
    module : Module
    name : str, optional
        The tensor (default 'weight').
    dim : int or None, optional
        The dimension with a magnitude per index (default 0); None: one magnitude
        for the whole tensor.

    Returns
    -------
    Module
        module, parametrized.

    Raises
    ------
    ValueError
        When module has no such tensor.
    IndexError
        When dim is out of range for it (-1 is the whole tensor, as None).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils.parametrizations import weight_norm
    >>> m = weight_norm(nn.Linear(3, 2))
    >>> sorted(m.state_dict())
    ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    >>> tuple(m.parametrizations.weight.original0.shape)
    (2, 1)
    """
    weight = getattr(module, name, None)  # none: register_parametrization says so
    if isinstance(weight, _C.Tensor):
        dim = weight_norm_dim(weight, dim)
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def old_keys(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs):
        # a state dict of nn.utils.weight_norm (<name>_g, <name>_v) loads, as in PyTorch
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)
    module._register_load_state_dict_pre_hook(old_keys)
    return module


class _SpectralNorm(Module):
    """spectral_norm's parametrization, with its power-iteration vectors _u and _v."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._matrix(weight)
            h, w = mat.shape
            self.register_buffer("_u", F.normalize(mat.new_empty((h,)).normal_(0, 1), dim=0,
                                                   eps=eps))
            self.register_buffer("_v", F.normalize(mat.new_empty((w,)).normal_(0, 1), dim=0,
                                                   eps=eps))
            self._power_method(mat, 15)

    def _matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, mat, iterations):
        with no_grad():
            for _ in range(iterations):
                self._u.copy_(F.normalize(mat @ self._v, dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mat.mT.conj() @ self._u, dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / (u.conj() * (mat @ v)).sum()

    def right_inverse(self, value):
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Spectral normalization by a parametrization, as PyTorch's
    ``nn.utils.parametrizations.spectral_norm``: ``module.<name>`` is the weight
    divided by sigma, its largest singular value (of the weight reshaped to a matrix
    with dimension dim first), estimated by power iteration with vectors kept as
    ``parametrizations.<name>.0._u`` and ``._v`` (15 steps at registration, then
    n_power_iterations before each use in training).  A 1-d weight is divided by its
    norm.

    Parameters
    ----------
    module : Module
    name : str, optional
        The tensor (default 'weight').
    n_power_iterations : int, optional
        Steps per use in training (default 1, > 0).
    eps : float, optional
        Guards the normalizations (default 1e-12).
    dim : int, optional
        Default 1 for the transposed convolutions, 0 otherwise.

    Returns
    -------
    Module
        module, parametrized.

    Raises
    ------
    ValueError
        When module has no such tensor or n_power_iterations is not positive.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils.parametrizations import spectral_norm
    >>> m = spectral_norm(nn.Linear(4, 3))
    >>> round(float(pydevtensor.linalg.matrix_norm(m.weight, 2)), 4)
    1.0
    """
    weight = _tensor_named(module, name)
    if dim is None:
        from ..conv_transpose import ConvTranspose1d, ConvTranspose2d
        from ..layers_3d import ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d,
                                       ConvTranspose3d)) else 0
    return parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
