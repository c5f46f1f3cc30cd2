"""Process-wide settings, under TensorFlow's ``tf.config`` names where it has the
feature and PyTorch does not.

So far: the transfer guard's default level (``set_transfer_guard`` /
``get_transfer_guard``; see ``pydevtensor.transfer_guard`` for the levels and for
a per-thread override).
"""
from ._guard import get_transfer_guard, set_transfer_guard

__all__ = ["get_transfer_guard", "set_transfer_guard"]
