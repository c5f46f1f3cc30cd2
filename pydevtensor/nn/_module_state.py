"""Module.state_dict() and load_state_dict() (a mixin of nn.Module, in a file of its
own), and IncompatibleKeys, what load_state_dict returns."""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .. import _C

if TYPE_CHECKING:
    from .._C import Tensor


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict() returns: (missing_keys, unexpected_keys), shown as
    PyTorch shows it, ``<All keys matched successfully>`` when both are empty."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class _StateMixin:
    """nn.Module's state dicts."""

    def state_dict(self, prefix: str = "") -> OrderedDict[str, Tensor]:
        """name -> plain Tensor sharing each parameter's storage, in registration order.

        Parameters
        ----------
        prefix : str, optional
            Put before every name.

        Returns
        -------
        OrderedDict of str to Tensor

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> list(net.state_dict())
        ['0.weight', '0.bias', '2.weight', '2.bias']
        """
        # detach(), as PyTorch's: sharing the parameter's version counter
        return OrderedDict((name, p.detach()) for name, p in self.named_parameters(prefix))

    def load_state_dict(self, state_dict: Mapping[str, Tensor],
                        strict: bool = True) -> IncompatibleKeys:
        """Copies the values of state_dict into the parameters (across devices and dtypes
        as needed; each copy is counted).  With strict, missing keys, unexpected keys and
        shape mismatches raise before anything is written.

        Parameters
        ----------
        state_dict : mapping of str to Tensor
            As state_dict() gives.
        strict : bool, optional
            Raise on missing or unexpected keys (default True).

        Returns
        -------
        IncompatibleKeys
            (missing_keys, unexpected_keys), shown as ``<All keys matched
            successfully>`` when both are empty, as in PyTorch.

        Raises
        ------
        RuntimeError
            On missing or unexpected keys (strict) or a shape mismatch.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.load_state_dict(net.state_dict())
        <All keys matched successfully>
        >>> net.load_state_dict({'0.bias': pydevtensor.zeros(3)}, strict=False)
        IncompatibleKeys(missing_keys=['0.weight', '2.weight', '2.bias'], unexpected_keys=[])
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"load_state_dict(): expected a dict of Tensors (a state_dict), "
                            f"got {type(state_dict).__name__}")
        from .parameter import UninitializedParameter
        own = dict(self.named_parameters())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        problems = []
        for k, p in own.items():
            if k in state_dict:
                v = state_dict[k]
                if not isinstance(v, _C.Tensor):
                    problems.append(f"'{k}' is a {type(v).__name__}, not a Tensor")
                elif isinstance(p, UninitializedParameter):
                    continue  # its layer checks the shapes (nn.LazyLinear)
                elif tuple(v.shape) != tuple(p.shape):
                    problems.append(f"size mismatch for '{k}': copying a tensor of shape "
                                    f"{tuple(v.shape)}, the parameter has shape {tuple(p.shape)}")
        lazy = [(name + "." if name else "", m) for name, m in self.named_modules()
                if hasattr(m, "_lazy_load_check")]
        for prefix, m in lazy:
            problems += m._lazy_load_check(prefix, state_dict)
        if strict:
            problems += [f"missing key '{k}'" for k in missing]
            problems += [f"unexpected key '{k}'" for k in unexpected]
        if problems:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: "
                               + "; ".join(problems))
        for prefix, m in lazy:  # lazy layers take their shapes from state_dict
            m._lazy_load(prefix, state_dict)
        for k, p in own.items():
            if k in state_dict:
                p.detach().copy_(state_dict[k])  # a write to p (its version), as in PyTorch
        return IncompatibleKeys(missing, unexpected)
