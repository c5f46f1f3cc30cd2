"""PyTorch's top-level dropout functions, ``pydevtensor.dropout(input, p, train)`` and
its kin, and their in-place forms (``dropout_``, ...): nn.functional's, with torch's
positional signature (p and train required, train a bool)."""
from . import _C
from ._args import flag

_DOC = """nn.functional's {functional}(input, p, training=train{inplace}), as PyTorch's
    top-level ``torch.{name}`` (p and train have no defaults).{more}

    Parameters
    ----------
    input : Tensor
        Floating point{shape}.
    p : float
        The probability of dropping, in [0, 1].
    train : bool
        Drops in training; gives input itself otherwise.

    Returns
    -------
    Tensor
        Of input's shape{returns}.

    Raises
    ------
    TypeError
        When input is not a Tensor or train is not a bool.
    ValueError
        When p is not in [0, 1].
    RuntimeError
        For fewer than 2 dimensions (the feature forms).

    Examples
    --------
    >>> x = pydevtensor.ones(2, 3)
    >>> pydevtensor.{name}(x, 0.5, False) is x
    True
    """


def _form(name, functional, features, more="", shape="", inplace=False):
    def fn(input, p, train):
        train = flag(train, name, "train")
        if features and isinstance(input, _C.Tensor) and input.ndim < 2:
            raise RuntimeError(f"Feature dropout requires at least 2 dimensions in the input "
                               f"(got shape {tuple(input.shape)}, on {input.device})")
        from .nn import _functional_dropout, functional as F
        if functional == "feature_dropout":  # nn.functional has only its 1-3 d forms
            _functional_dropout._checked(input, p, "feature_dropout()", train)
            return _functional_dropout._feature_dropout(input, p, train, inplace,
                                                        "feature_dropout()")
        return getattr(F, functional)(input, p, train, inplace)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _DOC.format(name=name, functional=functional, more=more, shape=shape,
                             inplace=", inplace=True" if inplace else "",
                             returns=": input itself, written in place" if inplace else "")
    return fn


_FEATURES = ("  Whole channels ``input[n, c]`` are dropped.", ", (N, C, ...)")
dropout = _form("dropout", "dropout", False)
alpha_dropout = _form("alpha_dropout", "alpha_dropout", False)
feature_dropout = _form("feature_dropout", "feature_dropout", True, *_FEATURES)
feature_alpha_dropout = _form("feature_alpha_dropout", "feature_alpha_dropout", True,
                              *_FEATURES)
dropout_ = _form("dropout_", "dropout", False, inplace=True)
alpha_dropout_ = _form("alpha_dropout_", "alpha_dropout", False, inplace=True)
feature_dropout_ = _form("feature_dropout_", "feature_dropout", True, *_FEATURES, inplace=True)
feature_alpha_dropout_ = _form("feature_alpha_dropout_", "feature_alpha_dropout", True,
                               *_FEATURES, inplace=True)

__all__ = ["alpha_dropout", "dropout", "feature_alpha_dropout", "feature_dropout",
           "alpha_dropout_", "dropout_", "feature_alpha_dropout_", "feature_dropout_"]
