"""Flags of the functions written in Python (keepdim=, descending=, upper=, align_corners=,
...) take a bool or NumPy's, as the C bindings' do (pydevtensor._args.flag): anything
else is a TypeError naming the function and the argument, "sort(): argument
'descending' must be bool, not str", as PyTorch's, rather than read by its truth
(descending="no" sorted largest first)."""
import numpy as np
import pytest

import pydevtensor as pdt
import pydevtensor.nn.functional as F
from pydevtensor._args import flag

# (name, the call with the flag given as v, the message's function name, the argument)
CALLS = [
    ("sort", lambda x, v: pdt.sort(x, descending=v), "sort", "descending"),
    ("sort-stable", lambda x, v: pdt.sort(x, stable=v), "sort", "stable"),
    ("Tensor.sort", lambda x, v: x.sort(-1, v), "sort", "descending"),
    ("argsort", lambda x, v: pdt.argsort(x, 1, v), "argsort", "descending"),
    ("topk", lambda x, v: pdt.topk(x, 2, largest=v), "topk", "largest"),
    ("topk-sorted", lambda x, v: x.topk(2, sorted=v), "topk", "sorted"),
    ("fill_diagonal_", lambda x, v: x.clone().fill_diagonal_(1.0, wrap=v), "fill_diagonal_",
     "wrap"),
    ("unique", lambda x, v: pdt.unique(x, sorted=v), "unique", "sorted"),
    ("unique-inverse", lambda x, v: x.unique(return_inverse=v), "unique", "return_inverse"),
    ("unique-counts", lambda x, v: pdt.unique(x, return_counts=v, dim=0), "unique",
     "return_counts"),
    ("unique_consecutive", lambda x, v: pdt.unique_consecutive(x, return_counts=v),
     "unique_consecutive", "return_counts"),
    ("median", lambda x, v: pdt.median(x, 0, keepdim=v), "median", "keepdim"),
    ("nanmedian", lambda x, v: x.nanmedian(0, v), "nanmedian", "keepdim"),
    ("kthvalue", lambda x, v: pdt.kthvalue(x, 1, 0, v), "kthvalue", "keepdim"),
    ("mode", lambda x, v: pdt.mode(x, 0, keepdim=v), "mode", "keepdim"),
    ("aminmax", lambda x, v: pdt.aminmax(x, dim=0, keepdim=v), "aminmax", "keepdim"),
    ("logsumexp", lambda x, v: pdt.logsumexp(x, 0, v), "logsumexp", "keepdim"),
    ("nansum", lambda x, v: pdt.nansum(x, 0, keepdim=v), "nansum", "keepdim"),
    ("nanmean", lambda x, v: x.nanmean(0, keepdim=v), "nanmean", "keepdim"),
    ("quantile", lambda x, v: pdt.quantile(x, 0.5, 0, keepdim=v), "quantile", "keepdim"),
    ("nanquantile", lambda x, v: x.nanquantile(0.5, 0, v), "nanquantile", "keepdim"),
    ("var", lambda x, v: pdt.var(x, 0, unbiased=v), "var", "unbiased"),
    ("std-keepdim", lambda x, v: x.std(0, keepdim=v), "std", "keepdim"),
    ("var_mean", lambda x, v: pdt.var_mean(x, 0, keepdim=v), "var_mean", "keepdim"),
    ("std_mean", lambda x, v: pdt.std_mean(x, 0, True, v), "std_mean", "keepdim"),
    ("searchsorted", lambda x, v: pdt.searchsorted(x[0], x[1], right=v), "searchsorted",
     "right"),
    ("searchsorted-int32", lambda x, v: pdt.searchsorted(x[0], x[1], out_int32=v),
     "searchsorted", "out_int32"),
    ("bucketize", lambda x, v: pdt.bucketize(x, x[0], right=v), "bucketize", "right"),
    ("isin", lambda x, v: pdt.isin(x, x[0], invert=v), "isin", "invert"),
    ("isin-unique", lambda x, v: pdt.isin(x, x[0], assume_unique=v), "isin", "assume_unique"),
    ("isclose", lambda x, v: pdt.isclose(x, x, equal_nan=v), "isclose", "equal_nan"),
    ("allclose", lambda x, v: pdt.allclose(x, x, equal_nan=v), "allclose", "equal_nan"),
    ("histogram", lambda x, v: pdt.histogram(x.cpu(), 3, density=v), "histogram", "density"),
    ("nonzero", lambda x, v: pdt.nonzero(x, as_tuple=v), "nonzero", "as_tuple"),
    ("Tensor.nonzero", lambda x, v: x.nonzero(as_tuple=v), "nonzero", "as_tuple"),
]


def _sq(device):
    return pdt.eye(3, device=device) * 2 + 0.1


def _lu(x, v, **kw):
    LU, piv = pdt.linalg.lu_factor(_sq(x.device))
    return pdt.linalg.lu_solve(LU, piv, _sq(x.device), **{k: v for k in kw})


# the linear algebra's (their messages name the function as pydevtensor.linalg's: PyTorch's
# say linalg_solve(), the name of its native function)
LINALG_CALLS = [
    ("linalg.svd", lambda x, v: pdt.linalg.svd(_sq(x.device), full_matrices=v), "linalg.svd",
     "full_matrices"),
    ("svd-some", lambda x, v: pdt.svd(_sq(x.device), some=v), "svd", "some"),
    ("svd-compute_uv", lambda x, v: pdt.svd(_sq(x.device), compute_uv=v), "svd", "compute_uv"),
    ("linalg.solve", lambda x, v: pdt.linalg.solve(_sq(x.device), x[:, :3], left=v),
     "linalg.solve", "left"),
    ("linalg.solve_ex", lambda x, v: pdt.linalg.solve_ex(_sq(x.device), x[:, :3],
                                                         check_errors=v),
     "linalg.solve_ex", "check_errors"),
    ("linalg.inv_ex", lambda x, v: pdt.linalg.inv_ex(_sq(x.device), check_errors=v),
     "linalg.inv_ex", "check_errors"),
    ("linalg.cholesky", lambda x, v: pdt.linalg.cholesky(_sq(x.device), upper=v),
     "linalg.cholesky", "upper"),
    ("linalg.cholesky_ex", lambda x, v: pdt.linalg.cholesky_ex(_sq(x.device), check_errors=v),
     "linalg.cholesky_ex", "check_errors"),
    ("cholesky_solve", lambda x, v: pdt.cholesky_solve(x[:, :3], _sq(x.device), upper=v),
     "cholesky_solve", "upper"),
    ("cholesky_inverse", lambda x, v: _sq(x.device).cholesky_inverse(v), "cholesky_inverse",
     "upper"),
    ("solve_triangular", lambda x, v: pdt.linalg.solve_triangular(_sq(x.device), x[:, :3],
                                                                  upper=v),
     "linalg.solve_triangular", "upper"),
    ("solve_triangular-left", lambda x, v: pdt.linalg.solve_triangular(
        _sq(x.device), x[:, :3], upper=True, left=v), "linalg.solve_triangular", "left"),
    ("solve_triangular-unit", lambda x, v: pdt.linalg.solve_triangular(
        _sq(x.device), x[:, :3], upper=False, unitriangular=v), "linalg.solve_triangular",
     "unitriangular"),
    ("linalg.lu_factor", lambda x, v: pdt.linalg.lu_factor(_sq(x.device), pivot=v),
     "linalg.lu_factor", "pivot"),
    ("linalg.lu_factor_ex", lambda x, v: pdt.linalg.lu_factor_ex(_sq(x.device),
                                                                 check_errors=v),
     "linalg.lu_factor_ex", "check_errors"),
    ("linalg.ldl_factor", lambda x, v: pdt.linalg.ldl_factor(_sq(x.device), hermitian=v),
     "linalg.ldl_factor", "hermitian"),
    ("linalg.ldl_factor_ex", lambda x, v: pdt.linalg.ldl_factor_ex(_sq(x.device),
                                                                   check_errors=v),
     "linalg.ldl_factor_ex", "check_errors"),
    ("lu_unpack", lambda x, v: pdt.lu_unpack(*pdt.linalg.lu_factor(_sq(x.device)),
                                             unpack_data=v), "lu_unpack", "unpack_data"),
    ("linalg.lu_solve", lambda x, v: _lu(x, v, left=1), "linalg.lu_solve", "left"),
    ("linalg.lu_solve-adjoint", lambda x, v: _lu(x, v, adjoint=1), "linalg.lu_solve",
     "adjoint"),
    ("linalg.pinv", lambda x, v: pdt.linalg.pinv(_sq(x.device), hermitian=v), "linalg.pinv",
     "hermitian"),
    ("linalg.matrix_rank", lambda x, v: pdt.linalg.matrix_rank(_sq(x.device), hermitian=v),
     "linalg.matrix_rank", "hermitian"),
]
CALLS += LINALG_CALLS


def _img(x):
    return x.reshape(1, 1, 3, 4)


# nn.functional's and nn.utils' (those PyTorch refuses: it reads F.relu's inplace=,
# max_pool2d's return_indices= and gumbel_softmax's hard= by truth, and so does this)
NN_CALLS = [
    ("F.dropout", lambda x, v: F.dropout(x, 1.0, training=v), "dropout", "training"),
    ("F.dropout2d", lambda x, v: F.dropout2d(_img(x), 1.0, v), "dropout2d", "training"),
    ("F.dropout1d", lambda x, v: F.dropout1d(x[None], 1.0, v), "dropout1d", "training"),
    ("F.alpha_dropout", lambda x, v: F.alpha_dropout(x, 1.0, v), "alpha_dropout", "training"),
    ("F.rrelu", lambda x, v: F.rrelu(-x, 0.2, 0.2, training=v), "rrelu", "training"),
    ("F.interpolate", lambda x, v: F.interpolate(_img(x), scale_factor=2, mode="bilinear",
                                                 align_corners=v), "interpolate",
     "align_corners"),
    ("F.grid_sample", lambda x, v: F.grid_sample(_img(x), x[None, :2, :, None].expand(
        1, 2, 4, 2) / 8, align_corners=v), "grid_sample", "align_corners"),
    ("F.affine_grid", lambda x, v: F.affine_grid(x[None, :2, :3], [1, 1, 2, 2],
                                                 align_corners=v), "affine_grid",
     "align_corners"),
    ("F.max_pool2d", lambda x, v: F.max_pool2d(_img(x), 2, ceil_mode=v), "max_pool2d",
     "ceil_mode"),
    ("F.max_pool1d", lambda x, v: F.max_pool1d(x[None], 3, ceil_mode=v), "max_pool1d",
     "ceil_mode"),
    ("F.max_pool3d", lambda x, v: F.max_pool3d(_img(x)[None], 2, ceil_mode=v), "max_pool3d",
     "ceil_mode"),
    ("F.avg_pool2d", lambda x, v: F.avg_pool2d(_img(x), 2, padding=1, count_include_pad=v),
     "avg_pool2d", "count_include_pad"),
    ("F.avg_pool1d", lambda x, v: F.avg_pool1d(x[None], 3, ceil_mode=v), "avg_pool1d",
     "ceil_mode"),
    ("F.avg_pool3d", lambda x, v: F.avg_pool3d(_img(x)[None], 2, ceil_mode=v), "avg_pool3d",
     "ceil_mode"),
    ("F.lp_pool2d", lambda x, v: F.lp_pool2d(_img(x), 2, 2, ceil_mode=v), "lp_pool2d",
     "ceil_mode"),
    ("F.batch_norm", lambda x, v: F.batch_norm(_img(x), pdt.zeros(1, device=x.device),
                                               pdt.ones(1, device=x.device), training=v),
     "batch_norm", "training"),
    ("F.instance_norm", lambda x, v: F.instance_norm(_img(x), pdt.zeros(1, device=x.device),
                                                     pdt.ones(1, device=x.device),
                                                     use_input_stats=v),
     "instance_norm", "use_input_stats"),
    ("F.poisson_nll_loss", lambda x, v: F.poisson_nll_loss(x, x, log_input=v),
     "poisson_nll_loss", "log_input"),
    ("F.poisson_nll_loss-full", lambda x, v: F.poisson_nll_loss(x, x, full=v),
     "poisson_nll_loss", "full"),
    ("F.triplet_margin_loss", lambda x, v: F.triplet_margin_loss(x, x.flip(0), x, swap=v),
     "triplet_margin_loss", "swap"),
    ("F.pairwise_distance", lambda x, v: F.pairwise_distance(x, x.flip(0), keepdim=v),
     "pairwise_distance", "keepdim"),
    ("F.kl_div", lambda x, v: F.kl_div(x, x, reduction="sum", log_target=v), "kl_div",
     "log_target"),
    ("F.ctc_loss", lambda x, v: F.ctc_loss(
        pdt.zeros(2, 1, 3, device=x.device).log_softmax(2),
        pdt.tensor([[1, 1]], device=x.device), [2], [2], zero_infinity=v), "ctc_loss",
     "zero_infinity"),
    ("F.embedding", lambda x, v: F.embedding(pdt.tensor([0, 2], device=x.device), x,
                                             scale_grad_by_freq=v), "embedding",
     "scale_grad_by_freq"),
    ("F.embedding_bag", lambda x, v: F.embedding_bag(pdt.tensor([0, 2], device=x.device), x,
                                                     pdt.tensor([0, 2], device=x.device),
                                                     include_last_offset=v),
     "embedding_bag", "include_last_offset"),
    ("F.scaled_dot_product_attention", lambda x, v: F.scaled_dot_product_attention(
        x[None], x[None], x[None], is_causal=v), "scaled_dot_product_attention", "is_causal"),
    ("pad_sequence", lambda x, v: pdt.nn.utils.rnn.pad_sequence([x, x[:1]], batch_first=v),
     "pad_sequence", "batch_first"),
    ("pack_padded_sequence", lambda x, v: tuple(pdt.nn.utils.rnn.pack_padded_sequence(
        x, [3, 2, 2, 1], batch_first=False if v is False else v)), "pack_padded_sequence",
     "batch_first"),
    ("pad_packed_sequence", lambda x, v: pdt.nn.utils.rnn.pad_packed_sequence(
        pdt.nn.utils.rnn.pack_padded_sequence(x, [3, 2, 2, 1]), batch_first=v),
     "pad_packed_sequence", "batch_first"),
    ("Parameter", lambda x, v: pdt.nn.Parameter(x, requires_grad=v).requires_grad,
     "Parameter", "requires_grad"),
]
CALLS += NN_CALLS


def _backward(x, **kw):
    x.requires_grad_()
    (x * x).sum().backward(**kw)
    return x.grad.detach()


CALLS += [
    ("backward-retain_graph", lambda x, v: _backward(x, retain_graph=v), "backward",
     "retain_graph"),
    ("backward-create_graph", lambda x, v: _backward(x, create_graph=v), "backward",
     "create_graph"),
    ("grad-allow_unused", lambda x, v: pdt.autograd.grad(
        (x.requires_grad_() * 3).sum(), x, allow_unused=v)[0], "grad", "allow_unused"),
    ("grad-create_graph", lambda x, v: pdt.autograd.grad(
        (x.requires_grad_() ** 2).sum(), x, create_graph=v)[0].detach(), "grad",
     "create_graph"),
]


# creation's requires_grad= and the like (the C-level creations already refuse)
CALLS += [
    ("asarray", lambda x, v: pdt.asarray(x, requires_grad=v).requires_grad, "asarray",
     "requires_grad"),
    ("asarray-copy", lambda x, v: pdt.asarray(x, copy=v).data_ptr() == x.data_ptr(),
     "asarray", "copy"),
    ("frombuffer", lambda x, v: pdt.frombuffer(bytearray(8), dtype=pdt.float32,
                                               requires_grad=v).requires_grad,
     "frombuffer", "requires_grad"),
    ("scalar_tensor", lambda x, v: pdt.scalar_tensor(2.0, device=x.device,
                                                     requires_grad=v).requires_grad,
     "scalar_tensor", "requires_grad"),
    ("hann_window", lambda x, v: pdt.hann_window(5, periodic=v, device=x.device),
     "hann_window", "periodic"),
    ("kaiser_window", lambda x, v: pdt.kaiser_window(5, v, device=x.device), "kaiser_window",
     "periodic"),
    ("logspace", lambda x, v: pdt.logspace(0, 1, 3, device=x.device,
                                           requires_grad=v).requires_grad,
     "logspace", "requires_grad"),
    ("vander", lambda x, v: pdt.vander(x[0], increasing=v), "vander", "increasing"),
    ("randn_like", lambda x, v: pdt.randn_like(x, requires_grad=v).requires_grad,
     "randn_like", "requires_grad"),
    ("randperm", lambda x, v: pdt.randperm(3, dtype=pdt.float32, device=x.device,
                                           requires_grad=v).requires_grad,
     "randperm", "requires_grad"),
    ("empty_strided", lambda x, v: pdt.empty_strided((2,), (1,), device=x.device,
                                                     requires_grad=v).requires_grad,
     "empty_strided", "requires_grad"),
    ("any", lambda x, v: pdt.any(x, 0, keepdim=v), "any", "keepdim"),
    ("all", lambda x, v: x.all(1, v), "all", "keepdim"),
    ("combinations", lambda x, v: pdt.combinations(x[0], 2, with_replacement=v),
     "combinations", "with_replacement"),
]


# the index writes' and reductions'
CALLS += [
    ("put", lambda x, v: pdt.put(x, pdt.tensor([0, 0], device=x.device),
                                 pdt.tensor([1., 2.], device=x.device), accumulate=v),
     "put", "accumulate"),
    ("Tensor.put_", lambda x, v: x.put_(pdt.tensor([1], device=x.device),
                                        pdt.tensor([1.], device=x.device), v),
     "put_", "accumulate"),
    ("index_put", lambda x, v: pdt.index_put(x, (pdt.tensor([0, 0], device=x.device),),
                                             pdt.tensor(1., device=x.device), accumulate=v),
     "index_put", "accumulate"),
    ("Tensor.index_put_", lambda x, v: x.index_put_((pdt.tensor([2], device=x.device),),
                                                    pdt.tensor(1., device=x.device), v),
     "index_put_", "accumulate"),
    ("scatter_reduce", lambda x, v: x.scatter_reduce(
        0, pdt.zeros(1, 4, dtype=pdt.int64, device=x.device), x[:1], "sum", include_self=v),
     "scatter_reduce", "include_self"),
    ("index_reduce", lambda x, v: x.index_reduce(
        0, pdt.tensor([0], device=x.device), x[1:2], "prod", include_self=v),
     "index_reduce", "include_self"),
    ("multinomial", lambda x, v: (x[0] == 3).float().multinomial(1, v), "multinomial",
     "replacement"),
    ("gather", lambda x, v: pdt.gather(x, 1, pdt.tensor([[0], [1], [3]], device=x.device),
                                       sparse_grad=v), "gather", "sparse_grad"),
    ("expand_copy", lambda x, v: pdt.expand_copy(x[:1], (2, 4), implicit=v), "expand_copy",
     "implicit"),
    ("autograd.Variable", lambda x, v: pdt.autograd.Variable(x, requires_grad=v).requires_grad,
     "Variable", "requires_grad"),
]


def _x(device):
    return pdt.tensor([[3., 1., 2., 2.], [0., 5., 4., 1.], [7., 6., 5., 4.]], device=device)


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("bad", ["no", 1, 0, None, 1.0])
def test_non_bool_flag_is_refused(device, call, bad):
    _, fn, op, name = call
    if bad is None and (name in ("unbiased", "align_corners", "retain_graph", "allow_unused",
                                 "copy") or call[0] == "sort-stable"):
        pytest.skip("None is its default")
    with pytest.raises(TypeError) as info:
        fn(_x(device), bad)
    assert str(info.value) == (f"{op}(): argument '{name}' must be bool, not "
                               f"{type(bad).__name__}")


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for u, w in zip(a, b):
            _same(u, w)
    elif isinstance(a, pdt.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    else:
        assert a == b


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("value", [True, False])
def test_numpy_bool_flag_is_the_bool(device, call, value):
    # NumPy's bool is taken as the C bindings take it, with its value (not its truth
    # as an object: np.False_ is False)
    fn = call[1]
    _same(_outcome(fn, _x(device), np.bool_(value)), _outcome(fn, _x(device), value))


def _outcome(fn, *args):
    try:
        return fn(*args)
    except RuntimeError as e:  # as pivot=False, not implemented: the same refusal
        return (type(e).__name__, str(e))


def test_flag_values_are_read(device):
    x = _x(device)
    assert pdt.sort(x[0], descending=np.True_).values.tolist() == [3., 2., 2., 1.]
    assert pdt.sort(x[0], descending=False).values.tolist() == [1., 2., 2., 3.]
    assert pdt.topk(x[0], 1, largest=np.False_).values.tolist() == [1.]
    assert pdt.median(x, 0, keepdim=True).values.shape == (1, 4)


def test_sort_stable_none_is_false(device):
    # PyTorch's sort takes stable=None (a bool? there) as False; every sort here is stable
    x = _x(device)
    for got, want in ((pdt.sort(x, stable=None), pdt.sort(x)),
                      (x.sort(dim=0, stable=None), x.sort(dim=0, stable=True))):
        assert pdt.equal(got.values, want.values) and pdt.equal(got.indices, want.indices)
    with pytest.raises(TypeError, match=r"^argsort\(\): argument 'stable' must be bool, not "
                       r"NoneType$"):
        pdt.argsort(x, stable=None)  # PyTorch's argsort refuses it


def test_flag_helper():
    assert flag(True, "f", "a") is True
    assert flag(np.False_, "f", "a") is False
    with pytest.raises(TypeError, match=r"^f\(\): argument 'a' must be bool, not int$"):
        flag(1, "f", "a")
    with pytest.raises(TypeError, match=r"must be bool, not ndarray$"):
        flag(np.array([True]), "f", "a")


# The switches PyTorch's own bindings take only a Python bool for (its "set_grad_enabled():
# argument 'enabled' (position 1) must be bool, not numpy.bool"): _args.flag(numpy=False).
# (name, the call with v, the message's start, what must stay as it was)
SWITCHES = [
    ("set_grad_enabled", lambda v: pdt.set_grad_enabled(v),
     "set_grad_enabled(): argument 'mode' (position 1)", pdt.is_grad_enabled),
    ("inference_mode", lambda v: pdt.inference_mode(v),
     "inference_mode(): argument 'mode' (position 1)", pdt.is_inference_mode_enabled),
    ("set_multithreading_enabled", lambda v: pdt.autograd.set_multithreading_enabled(v),
     "set_multithreading_enabled(): argument 'mode' (position 1)",
     pdt.autograd.is_multithreading_enabled),
    ("_force_original_view_tracking", lambda v: pdt.autograd._force_original_view_tracking(v),
     "_force_original_view_tracking(): argument 'mode' (position 1)",
     pdt.autograd.is_view_replay_enabled),
    ("set_detect_anomaly", lambda v: pdt.autograd.set_detect_anomaly(v),
     "set_detect_anomaly(): argument 'mode' (position 1)", pdt.is_anomaly_enabled),
    ("set_detect_anomaly-check_nan", lambda v: pdt.autograd.set_detect_anomaly(True, v),
     "set_detect_anomaly(): argument 'check_nan' (position 2)",
     lambda: (pdt.is_anomaly_enabled(), pdt.is_anomaly_check_nan_enabled())),
    ("set_warn_always", lambda v: pdt.set_warn_always(v), "set_warn_always(): argument 'b'",
     pdt.is_warn_always_enabled),
    ("set_flush_denormal", lambda v: pdt.set_flush_denormal(v),
     "set_flush_denormal(): argument 'mode'", lambda: pdt.tensor(1e-310).mul(1.0).item()),
    ("triangular_solve", lambda v: pdt.triangular_solve(pdt.eye(2), pdt.eye(2), v),
     "triangular_solve(): argument 'upper' (position 3)", lambda: None),
    ("batch_norm", lambda v: pdt.batch_norm(pdt.ones(2, 3), None, None, None, None, v, 0.1,
                                            1e-5, True),
     "batch_norm(): argument 'training' (position 6)", lambda: None),
    ("instance_norm", lambda v: pdt.instance_norm(pdt.ones(2, 3, 4), None, None, None, None,
                                                  True, 0.1, 1e-5, v),
     "instance_norm(): argument 'cudnn_enabled' (position 9)", lambda: None),
]


@pytest.mark.filterwarnings("ignore:pydevtensor.triangular_solve")
@pytest.mark.parametrize("call", SWITCHES, ids=[c[0] for c in SWITCHES])
@pytest.mark.parametrize("bad", [1, 0, None, "no", np.True_, pdt.tensor(True)],
                         ids=["1", "0", "None", "str", "numpy-bool", "tensor"])
def test_switch_takes_only_a_python_bool(call, bad):
    _, fn, start, state = call
    before = state()
    kind = "numpy.bool" if isinstance(bad, np.bool_) else type(bad).__name__
    with pytest.raises(TypeError) as info:
        fn(bad)
    assert str(info.value) == f"{start} must be bool, not {kind}"
    assert state() == before  # refused before anything was set


def test_lobpcg_largest_is_a_flag():
    # PyTorch's lobpcg reads largest by its truth; here a bool or NumPy's (its value), as
    # every other flag: "largest='no'" is refused, not the largest eigenvalues
    a = np.diag(np.arange(1.0, 10.0))
    A = pdt.tensor(a)
    want = np.linalg.eigvalsh(a)
    for largest, expect in ((np.False_, want[:2]), (np.True_, want[::-1][:2]),
                            (None, want[::-1][:2])):
        E = pdt.lobpcg(A, k=2, largest=largest)[0]
        np.testing.assert_allclose(E.numpy(), expect, rtol=1e-8)
    for bad in (1, "no", 0.0):
        with pytest.raises(TypeError, match=rf"^lobpcg\(\): argument 'largest' must be bool, "
                           rf"not {type(bad).__name__}$"):
            pdt.lobpcg(A, k=2, largest=bad)


def test_flag_helper_position_and_numpy():
    assert flag(np.True_, "f", "a", position=2) is True
    with pytest.raises(TypeError, match=r"^f\(\): argument 'a' \(position 2\) must be bool, "
                       r"not int$"):
        flag(1, "f", "a", position=2)
    with pytest.raises(TypeError, match=r"^f\(\): argument 'a' must be bool, not numpy.bool$"):
        flag(np.False_, "f", "a", numpy=False)
    assert flag(False, "f", "a", numpy=False) is False
