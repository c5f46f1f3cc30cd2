"""conv2d forward and backward at the shapes D2L's CNN chapters use, pydevtensor against
PyTorch side by side, one thread and two.

    python -m benchmarks.conv_shapes                  # every shape, 1 and 2 threads
    python -m benchmarks.conv_shapes --threads 1 --shapes lenet1,lenet2
    python -m benchmarks.conv_shapes --pieces         # also time our forward's parts

Forward is ``F.conv2d(x, w, b, ...)`` with x, w and b requiring grad (what a training
step runs); backward is ``y.backward(g)`` for a fixed g of y's shape, the forward done
outside the timed region, computing all three gradients (input, weight, bias).
The figure is the best of several calls (each shape repeats until about ``--budget``
seconds have gone by), in milliseconds:

  - with one thread, the calling thread's CPU time (``time.thread_time``): the machine
    may be shared, and CPU time does not count the time another process holds the core;
  - with two threads, wall-clock time (``time.perf_counter``; other threads' CPU time
    is not the calling thread's), so that figure is only as good as the machine is idle.

Both libraries run in this one process, the calls alternating; PyTorch's OpenMP
threads are told not to spin (OMP_WAIT_POLICY=PASSIVE, set before torch imports) so
that they do not steal a core from pydevtensor's between calls.  ``--pieces`` times
our forward's steps one by one (im2col, the product, the bias) to show where the
time goes.
"""
import argparse
import os
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# name: (batch, in channels, height = width, out channels, kernel, stride, padding)
SHAPES = {
    "lenet1": (256, 1, 28, 6, 5, 1, 2),       # LeNet's first conv
    "lenet2": (256, 6, 14, 16, 5, 1, 0),      # LeNet's second conv
    "alex1": (8, 3, 224, 96, 11, 4, 1),       # AlexNet's first conv
    "vgg": (8, 64, 56, 64, 3, 1, 1),          # a VGG / ResNet stage's 3x3 conv
    "res_s2": (8, 64, 56, 128, 3, 2, 1),      # ResNet's stride-2 3x3 conv
    "res_1x1s2": (8, 64, 56, 128, 1, 2, 0),   # ResNet's 1x1 stride-2 shortcut
    "nin_1x1": (8, 96, 54, 96, 1, 1, 0),      # NiN's 1x1 conv
    "late": (8, 256, 14, 256, 3, 1, 1),       # a late 3x3 conv (small images, wide weight)
}


def _best(fn, clock, budget, setup=None):
    """The smallest time of fn() (setup() run untimed before each), over at least 3
    calls and about `budget` seconds of wall time."""
    best, n, start = float("inf"), 0, time.perf_counter()
    while n < 3 or time.perf_counter() - start < budget:
        if setup is not None:
            setup()
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
        n += 1
        if n >= 200:
            break
    return best


class _Lib:
    """One library's tensors for one shape, and its forward and backward."""

    def __init__(self, mod, F, shape, seed=0):
        n, c, hw, o, k, s, p = shape
        mod.manual_seed(seed)
        self.mod, self.F, self.s, self.p = mod, F, s, p
        self.x = mod.rand(n, c, hw, hw).requires_grad_()
        self.w = (mod.rand(o, c, k, k) - 0.5).requires_grad_()
        self.b = mod.rand(o).requires_grad_()
        self.y = None
        self.g = mod.ones(*self.forward().shape)

    def forward(self):
        return self.F.conv2d(self.x, self.w, self.b, stride=self.s, padding=self.p)

    def fresh(self):
        self.x.grad = self.w.grad = self.b.grad = None
        self.y = self.forward()

    def backward(self):
        self.y.backward(self.g)


def _pieces(pdt, shape, clock, budget):
    """Our forward's steps, each timed alone (no grad), in ms."""
    from pydevtensor import _C
    from pydevtensor.nn._im2col import im2col
    n, c, hw, o, k, s, p = shape
    x, w, b = pdt.rand(n, c, hw, hw), pdt.rand(o, c, k, k), pdt.rand(o)
    with pdt.no_grad():
        cols = im2col(x, (k, k), (1, 1), (p, p), (s, s))
        wm = w.reshape(o, c * k * k)
        out = _C.matmul(wm, cols)
        oh = (hw + 2 * p - k) // s + 1
        out4 = out.reshape(n, o, oh, oh)
        return {
            "im2col": _best(lambda: im2col(x, (k, k), (1, 1), (p, p), (s, s)), clock,
                            budget) * 1e3,
            "gemm": _best(lambda: _C.matmul(wm, cols), clock, budget) * 1e3,
            "bias": _best(lambda: out4 + b.reshape(o, 1, 1), clock, budget) * 1e3,
        }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated names")
    ap.add_argument("--budget", type=float, default=0.5, help="seconds per figure")
    ap.add_argument("--pieces", action="store_true", help="time our forward's steps")
    ap.add_argument("--no-torch", action="store_true")
    args = ap.parse_args(argv)

    import pydevtensor as pdt
    from pydevtensor.nn import functional as pF
    torch = None
    if not args.no_torch:
        try:
            import torch
            from torch.nn import functional as tF
        except ImportError:
            torch = None
    names = [s for s in args.shapes.split(",") if s]
    for threads in [int(t) for t in args.threads.split(",")]:
        pdt.set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
        clock = time.thread_time if threads == 1 else time.perf_counter
        what = "thread CPU time" if threads == 1 else "wall time"
        print(f"\n{threads} thread{'s' * (threads > 1)}, ms ({what}, best of calls); "
              f"ratio = ours / torch")
        print(f"{'shape':<11}{'(N,C,HW,O,k,s,p)':<28}{'fwd':>8}{'torch':>8}{'ratio':>7}"
              f"{'bwd':>9}{'torch':>8}{'ratio':>7}")
        for name in names:
            shape = SHAPES[name]
            row = {}
            libs = [("pdt", _Lib(pdt, pF, shape))]
            if torch is not None:
                libs.append(("torch", _Lib(torch, tF, shape)))
            for lib, L in libs:
                row[lib + "f"] = _best(L.forward, clock, args.budget) * 1e3
                row[lib + "b"] = _best(L.backward, clock, args.budget, setup=L.fresh) * 1e3
            tf, tb = row.get("torchf"), row.get("torchb")
            fmt = (lambda v: f"{v:8.2f}" if v is not None else f"{'-':>8}")
            rat = (lambda a, b: f"{a / b:7.2f}" if b else f"{'-':>7}")
            print(f"{name:<11}{str(shape):<28}{row['pdtf']:8.2f}{fmt(tf)}"
                  f"{rat(row['pdtf'], tf)} {row['pdtb']:8.2f}{fmt(tb)}{rat(row['pdtb'], tb)}",
                  flush=True)
            if args.pieces:
                parts = _pieces(pdt, shape, clock, args.budget)
                print("    ours: " + ", ".join(f"{k} {v:.2f}" for k, v in parts.items()))


if __name__ == "__main__":
    main()
