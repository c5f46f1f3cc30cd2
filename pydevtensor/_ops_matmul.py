"""Public names of the matmul operations (issue 4), re-exported by pydevtensor/__init__.

List each public name in __all__; pydevtensor/__init__ does `from ._ops_matmul import *`.
"""
from . import _C  # noqa: F401

__all__ = []
