"""Note [tensors in cycles] (csrc/python/tensor_object.c): a cycle through a tensor (a
hook whose closure names its tensor, a Node keeping its output) is collected by gc, as
PyTorch's, and hooks still run."""
import gc
import weakref

import pytest

import pydevtensor as pdt
from pydevtensor import nn


def _leaf_with_own_hook(device):
    t = pdt.ones(1000, device=device, requires_grad=True)
    t.register_hook(lambda g: g + t.detach().sum() * 0)
    return weakref.ref(t)


def _result_with_own_hook(device):
    u = pdt.ones(1000, device=device, requires_grad=True) * 2
    u.register_hook(lambda g: g * (u.shape[0] > 0))
    return weakref.ref(u)


def _node_keeping_its_output(device):
    u = pdt.ones(1000, device=device, requires_grad=True) * 2
    u.grad_fn.keep = u
    return weakref.ref(u)


def _parameter_keeping_itself(device):
    p = nn.Parameter(pdt.ones(1000, device=device))
    p.me = p
    return weakref.ref(p)


@pytest.mark.parametrize("make", [_leaf_with_own_hook, _result_with_own_hook,
                                  _node_keeping_its_output, _parameter_keeping_itself])
def test_cycles_through_tensors_are_collected(device, make):
    refs = [make(device) for _ in range(20)]
    gc.collect()
    assert sum(r() is not None for r in refs) == 0
    assert gc.is_tracked(pdt.ones(1, device=device))


def test_hooks_on_leaves_still_run_and_go_with_their_tensor(device):
    x = pdt.ones(3, device=device, requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.sum().item()) or g * 10)
    (x * 2).sum().backward()
    assert seen == [6.0] and x.grad.cpu().tolist() == [20.0] * 3
    h.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert seen == [6.0] and x.grad.cpu().tolist() == [2.0] * 3
    y = x.detach().requires_grad_()  # another tensor object: none of x's hooks
    x.register_hook(lambda g: g * 0)
    (y * 2).sum().backward()
    assert y.grad.cpu().tolist() == [2.0] * 3


def test_freeing_a_long_chain_of_tensors_does_not_overflow_the_stack():
    """Note [tensors in cycles]: the dealloc runs in the trashcan; without it, freeing
    t.grad = u, u.grad = v, ... recursed once per link (a segfault at about 400,000 on
    an 8 MB stack, here 100,000 on a thread of 512 kB)."""
    import subprocess
    import sys
    code = """
import threading, pydevtensor as pt
def build_and_free():
    head = cur = pt.ones(1)
    for _ in range(100000):
        nxt = pt.ones(1)
        cur.grad = nxt
        cur = nxt
    del cur
    del head
threading.stack_size(512 * 1024)
t = threading.Thread(target=build_and_free)
t.start()
t.join()
print("freed")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "freed", done.stderr[-500:]
