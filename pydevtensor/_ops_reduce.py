"""Public names of the reduce operations (issue 4), re-exported by pydevtensor/__init__.

List each public name in __all__; pydevtensor/__init__ does `from ._ops_reduce import *`.
"""
from . import _C  # noqa: F401

__all__ = []
