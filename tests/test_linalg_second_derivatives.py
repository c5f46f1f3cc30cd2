"""Second derivatives through linalg's decompositions (Note [decomposition
derivatives] in pydevtensor/autograd/derivatives_linalg_decomp.py) and what is built on
them: each Hessian from grad(grad(f, create_graph=True)) against float64 central
differences of the first gradient, on every device.  The saved eigenvectors, singular
vectors and Q, R were detached, so a second derivative missed their dependence on A
and came out wrong without an error; det's at a singular matrix was nan."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

L = pdt.linalg
H = 1e-5
TOL = 1e-6  # relative to the Hessian's largest entry: central differences of h = 1e-5


def _sym(a):
    # eigh reads one triangle: a function of the symmetric part has a plain Hessian
    return (a + a.mT) / 2


CASES = {
    "eigvalsh": (lambda a: (L.eigvalsh(_sym(a)) ** 3).sum(), "sym"),
    "eigh": (lambda a: (L.eigh(_sym(a))[1][:, 0] ** 4).sum()
             + (L.eigh(_sym(a))[0] ** 2).sum(), "sym"),
    "svdvals": (lambda a: (L.svdvals(a) ** 3).sum(), "tall"),
    "svd": (lambda a: L.svd(a, full_matrices=False)[1].sum()
            + (L.svd(a, full_matrices=False)[0][:, 0] ** 4).sum(), "tall"),
    "svd full, wide": (lambda a: L.svd(a)[1].sum() + (L.svd(a)[2][0] ** 4).sum(), "wide"),
    "qr": (lambda a: (L.qr(a)[1] ** 2).sum() + (L.qr(a)[0] ** 3).sum(), "tall"),
    "nuclear norm": (lambda a: L.matrix_norm(a, "nuc"), "tall"),
    "pinv": (lambda a: (L.pinv(a) ** 2).sum(), "tall"),
    "cond": (lambda a: L.cond(a), "sym"),
    "det, singular": (lambda a: L.det(a), "singular"),
    "det, batch of singular and not": (lambda a: L.det(a).sum(), "batch"),
}


def _matrix(kind):
    rng = np.random.default_rng(11)
    if kind == "sym":
        s = rng.standard_normal((3, 3))
        return s + s.T
    if kind == "tall":
        return rng.standard_normal((4, 3))
    if kind == "wide":
        return rng.standard_normal((3, 4))
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    if kind == "singular":
        return singular
    return np.stack([singular, rng.standard_normal((3, 3))])


def _grad(f, a0, device, create_graph=False):
    a = pdt.tensor(a0, dtype=pdt.float64, device=device, requires_grad=True)
    g, = pdt.autograd.grad(f(a), a, create_graph=create_graph)
    return a, g


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("device", DEVICES)
def test_second_derivative_matches_central_differences(case, device):
    f, kind = CASES[case]
    a0 = _matrix(kind)
    a, g = _grad(f, a0, device, create_graph=True)
    assert g.requires_grad
    got, want = [], []
    for i in range(a0.size):
        row, = pdt.autograd.grad(g.reshape(-1)[i], a, retain_graph=True)
        got.append(row.detach().cpu().numpy().ravel())
        e = np.zeros(a0.size)
        e[i] = H
        e = e.reshape(a0.shape)
        plus = _grad(f, a0 + e, device)[1].cpu().numpy()
        minus = _grad(f, a0 - e, device)[1].cpu().numpy()
        want.append(((plus - minus) / (2 * H)).ravel())
    got, want = np.array(got), np.array(want)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, atol=TOL * np.abs(want).max())
