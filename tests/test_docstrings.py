"""The docstrings are the API reference (issue 15): every public function, class and
Tensor method or property says what it takes (a numpydoc ``Parameters`` section when it
takes anything), what it gives (``Returns``) and shows it (``Examples``), and every
example runs here as a doctest on the CPU, so none can rot.

Examples assume ``import pydevtensor`` and nothing else; a line that needs a GPU carries
``# doctest: +SKIP`` and the text before it says so.
"""
import doctest
import importlib
import inspect
import re

import pytest

import pydevtensor

SUBMODULES = ("nn", "optim", "linalg", "config", "config.threading", "cuda", "autograd",
              "autograd.functional", "autograd.graph", "autograd.forward_ad",
              "autograd.function", "distribute", "nn.utils", "nn.utils.rnn", "optim.lr_scheduler",
              "optim.swa_utils",
              "utils.data", "utils.checkpoint", "func", "nn.utils.stateless",
              "nn.utils.parametrize", "nn.utils.parametrizations", "nn.utils.prune",
              "special", "jit", "random", "distributions", "testing", "backends.cudnn",
              "backends.mps", "amp", "cuda.amp", "cuda.nvtx", "cuda.nccl", "cpu", "cpu.amp",
              "nn.parallel.comm",
              "accelerator", "distributions.relaxed_bernoulli",
              "distributions.relaxed_categorical", "nn.modules.lazy", "quasirandom",
              "signal.windows")
# Modules whose public names are not all documented yet: only these names are checked.
NAMED = {"nn.functional": ("one_hot", "l1_loss", "huber_loss", "smooth_l1_loss", "nll_loss",
                           "cross_entropy", "leaky_relu", "binary_cross_entropy_with_logits",
                           "binary_cross_entropy",
                           "kl_div", "gelu", "silu", "elu", "softplus", "mish", "logsigmoid",
                           "hardtanh", "relu6", "layer_norm", "batch_norm", "embedding",
                           "normalize", "cosine_similarity", "pairwise_distance", "unfold", "fold",
                           "conv1d", "conv2d", "max_pool2d", "avg_pool2d",
                           "adaptive_avg_pool2d", "adaptive_max_pool2d", "pad",
                           "conv_transpose1d", "conv_transpose2d", "dropout1d", "dropout2d",
                           "group_norm", "instance_norm",
                           # more activations, losses and layers
                           "hardswish", "hardsigmoid", "hardshrink", "softshrink", "threshold",
                           "selu", "celu", "softsign", "tanhshrink", "rrelu", "prelu", "glu",
                           "softmin", "relu", "margin_ranking_loss", "hinge_embedding_loss",
                           "soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
                           "multi_margin_loss", "multilabel_margin_loss",
                           "multilabel_soft_margin_loss", "poisson_nll_loss",
                           "gaussian_nll_loss", "bilinear", "channel_shuffle",
                           # attention (D2L chapter 11)
                           "scaled_dot_product_attention",
                           "fractional_max_pool2d", "fractional_max_pool3d",
                           # the *_with_indices pools (_functional_with_indices.py)
                           "max_pool1d_with_indices", "max_pool2d_with_indices",
                           "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
                           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices",
                           "fractional_max_pool2d_with_indices",
                           "fractional_max_pool3d_with_indices"),
         "nn.init": ("trunc_normal_", "eye_", "orthogonal_", "dirac_", "sparse_",
                     # PyTorch's deprecated names
                     "uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
                     "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse", "eye",
                     "dirac"),
         "nn.modules.module": ("register_module_forward_pre_hook",
                               "register_module_forward_hook",
                               "register_module_full_backward_pre_hook",
                               "register_module_full_backward_hook",
                               "register_module_buffer_registration_hook",
                               "register_module_parameter_registration_hook",
                               "register_module_module_registration_hook"),
         "nn.parallel": ("scatter", "scatter_kwargs", "gather", "replicate", "parallel_apply",
                         "data_parallel"),
         "optim.optimizer": ("register_optimizer_step_pre_hook",
                             "register_optimizer_step_post_hook")}

# layers2: 1-d and power-average pools, resampling, pixel shuffle, LRN and RMSNorm
NAMED["nn.functional"] += ("max_pool1d", "avg_pool1d", "adaptive_avg_pool1d",
                           "adaptive_max_pool1d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
                           "max_unpool1d",
                           "max_unpool2d", "max_unpool3d",
                           "interpolate", "upsample", "upsample_nearest",
                           "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
                           "local_response_norm", "rms_norm",
                           "triplet_margin_with_distance_loss", "ctc_loss",
                           "affine_grid", "grid_sample")


def _public(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return names


def _objects():
    """(qualified name, object, kind) for every documented public object."""
    seen = set()
    out = []

    def add(qual, obj, kind):
        if id(obj) in seen and kind != "property":
            return  # an alias (clip = clamp) is documented once, under its first name
        seen.add(id(obj))
        out.append((qual, obj, kind))

    def add_class(qual, cls):
        add(qual, cls, "class")
        for n, member in sorted(vars(cls).items()):
            if n.startswith("_"):
                continue
            if isinstance(member, (property,)) or type(member).__name__ == "getset_descriptor":
                add(f"{qual}.{n}", member, "property")
            elif callable(member) or isinstance(member, (staticmethod, classmethod)):
                add(f"{qual}.{n}", getattr(cls, n), "function")

    def add_module(prefix, module, names=None):
        for n in names or _public(module):
            obj = getattr(module, n)
            if inspect.ismodule(obj) or isinstance(obj, pydevtensor.dtype):
                continue
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    add(f"{prefix}.{n}", obj, "exception")
                elif obj is pydevtensor.Tensor or obj.__module__.startswith("pydevtensor"):
                    add_class(f"{prefix}.{n}", obj)
            elif callable(obj):
                add(f"{prefix}.{n}", obj, "function")

    add_module("pydevtensor", pydevtensor)
    for sub in SUBMODULES:
        add_module(f"pydevtensor.{sub}", importlib.import_module(f"pydevtensor.{sub}"))
    for sub, names in NAMED.items():
        add_module(f"pydevtensor.{sub}", importlib.import_module(f"pydevtensor.{sub}"), names)
    return out


OBJECTS = _objects()


def _takes_arguments(obj, kind):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return True  # no signature to read: say what it takes
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    return bool(params)


def _sections(doc):
    return set(re.findall(r"^\s*([A-Z][a-z]+)\n\s*-{3,}\s*$", doc, re.M))


def _missing(qual, obj, kind):
    doc = inspect.getdoc(obj) or ""
    have = _sections(doc)
    need = {"Examples"}
    if kind == "function":
        need.add("Returns")
    if kind in ("function", "class") and _takes_arguments(obj, kind):
        need.add("Parameters")
    return sorted(need - have)


def test_every_public_name_has_parameters_returns_and_examples():
    lacking = {qual: _missing(qual, obj, kind) for qual, obj, kind in OBJECTS}
    lacking = sorted(f"{q}: no {', '.join(m)}" for q, m in lacking.items() if m)
    assert not lacking, "docstrings lacking numpydoc sections:\n" + "\n".join(lacking)


# Two call forms (randint(high, size) / randint(low, high, size); arange's text signature
# is its longer form) or a keyword named `from`: no text signature can say these; their docstring's first line names the call forms instead.
NO_TEXT_SIGNATURE = {"pydevtensor.randint", "pydevtensor.Tensor.uniform_"}


def test_the_signature_line_of_c_functions_is_read_by_inspect():
    """The C functions carry CPython's text signature ("name(args)\\n--\\n\\n")."""
    unreadable = []
    for qual, obj, kind in OBJECTS:
        if qual in NO_TEXT_SIGNATURE:
            assert inspect.getdoc(obj).startswith(qual.rsplit(".", 1)[1] + "(")
        elif kind == "function" and type(obj).__name__ in ("builtin_function_or_method",
                                                            "method_descriptor"):
            try:
                inspect.signature(obj)
            except (TypeError, ValueError):
                unreadable.append(qual)
    assert not unreadable, f"no text signature: {unreadable}"


_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


# An override without a docstring (Linear.forward) inherits its base's (inspect.getdoc),
# whose examples already run under the base's name.
_WITH_EXAMPLES = {q: inspect.getdoc(o) for q, o, _ in OBJECTS
                  if ">>>" in (getattr(o, "__doc__", None) or "")}


@pytest.mark.parametrize("qual", sorted(_WITH_EXAMPLES))
def test_examples_run(qual):
    doc = _WITH_EXAMPLES[qual]
    test = doctest.DocTestParser().get_doctest(doc, {"pydevtensor": pydevtensor}, qual,
                                               None, 0)
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    previous = pydevtensor.get_default_device()
    report = []
    try:
        runner.run(test, out=report.append)
    finally:
        pydevtensor.set_default_device(previous)
    assert runner.failures == 0, "".join(report)


# docutils reads a word ending in an underscore (fill_, clip_grad_norm_) as a link to a
# target of that name, and Sphinx -W (CI's wheel stage) refuses the missing target; the
# text must quote it (``fill_``).  Inline literals, doctest lines, literal blocks and
# numpydoc field names (napoleon escapes their underscore) are not read so.
_INLINE_LITERAL = re.compile(r"``.*?``|`[^`]*`")
_REFERENCE = re.compile(r"(?<![\w`*.\-/\\])[A-Za-z0-9]+(?:[-.+:][A-Za-z0-9]+)*(?:_[A-Za-z0-9]+)*"
                        r"__?(?=[\s.,;:!?)\]'\"]|$)")
_FIELD = re.compile(r"^\*{0,2}\w+(, \*{0,2}\w+)*( : .*)?$")
_FIELD_SECTIONS = {"Parameters", "Other Parameters", "Attributes", "Returns", "Yields",
                   "Raises", "Warns"}


def _references(doc):
    """The words of doc that docutils would read as references to link targets."""
    found, block, section = [], None, None
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        text = line.strip()
        indent = len(line) - len(line.lstrip())
        if block is not None:  # inside a literal block (after a line ending in ::)
            if not text or indent > block:
                continue
            block = None
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1].strip()):
            section = text
        if text.startswith((">>>", "...")) or (
                indent == 0 and section in _FIELD_SECTIONS and _FIELD.match(text)):
            continue
        found += _REFERENCE.findall(_INLINE_LITERAL.sub("", line))
        if text.endswith("::"):
            block = indent
    return found


def test_no_docstring_names_a_link_target_by_accident():
    assert _references("a number fills it, as fill_.\n") == ["fill_"]  # the check can fail
    assert _references("as ``fill_``; see `clip_grad_norm_`\n>>> x.fill_(1)\n") == []
    bad = {qual: refs for qual, obj, _ in OBJECTS
           if (refs := _references(inspect.getdoc(obj) or ""))}
    assert not bad, ("words docutils reads as link targets (quote them as ``name_``): "
                     f"{bad}")
