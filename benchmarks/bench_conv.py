"""Convolutions (D2L chapters 7-8) on the CPU: ``F.conv2d`` forward at LeNet's and at a
ResNet stage's sizes, in GFLOP/s (2 * N * C_out * C_in * kh * kw * out_h * out_w), and a
LeNet training step (forward, backward, SGD) in ms.

The NumPy figure is the convolution as a NumPy user writes it: a padded copy, the
windows as a strided view (``sliding_window_view``) and one ``tensordot`` over channels
and the kernel (which copies the windows, as pydevtensor's unfold does, then one GEMM).
PyTorch's figure is its CPU ``conv2d`` (oneDNN where built in), when torch imports.

On a GPU the same two sizes and the training step run on ``cuda``, against PyTorch's
cuDNN (CuPy has no convolution of its own); the time includes a synchronisation after
each loop.
"""
from benchmarks.harness import MinSpeed, Skip, Stmt, benchmark, compare_statements

# (batch, in channels, height = width, out channels, kernel, padding)
LENET = (256, 1, 28, 6, 5, 2)
RESNET = (32, 64, 56, 64, 3, 1)


def _flops(n, c, hw, o, k, p):
    out = hw + 2 * p - k + 1
    return 2 * n * o * c * k * k * out * out


def _statements(n, c, hw, o, k, p):
    shapes = f"n, c, hw, o, k, p = {n}, {c}, {hw}, {o}, {k}, {p}"
    return {
        "pydevtensor": Stmt(f"import pydevtensor as pdt; from pydevtensor.nn import functional "
                            f"as F; {shapes}; x = pdt.rand(n, c, hw, hw); "
                            f"w = pdt.rand(o, c, k, k); b = pdt.rand(o)",
                            "F.conv2d(x, w, b, padding=p)"),
        "numpy": Stmt(f"import numpy as np; from numpy.lib.stride_tricks import "
                      f"sliding_window_view as windows; {shapes}; "
                      f"rng = np.random.default_rng(0); "
                      f"x = rng.random((n, c, hw, hw), np.float32); "
                      f"w = rng.random((o, c, k, k), np.float32); b = rng.random(o, np.float32)",
                      "xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))); "
                      "y = np.tensordot(windows(xp, (k, k), axis=(2, 3)), w, "
                      "axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2) + b[:, None, None]"),
        "torch": Stmt(f"import torch; {shapes}; x = torch.rand(n, c, hw, hw); "
                      f"w = torch.rand(o, c, k, k); b = torch.rand(o)",
                      "torch.nn.functional.conv2d(x, w, b, padding=p)"),
    }


@benchmark("conv", "conv2d LeNet's first layer, 256 x 1 x 28 x 28, 6 5x5 filters (CPU)",
           unit="GFLOP/s", nbytes=_flops(*LENET), number=3, repeat=7, quick_number=1,
           target=MinSpeed("numpy", 1.0))
def conv2d_lenet(cfg):
    """One F.conv2d forward, float32, padding 2 (LeNet's C1)."""
    return compare_statements(cfg, _statements(*LENET))


@benchmark("conv", "conv2d a ResNet stage, 32 x 64 x 56 x 56, 64 3x3 filters (CPU)",
           unit="GFLOP/s", nbytes=_flops(*RESNET), number=1, repeat=5, quick_number=1,
           target=MinSpeed("numpy", 1.0))
def conv2d_resnet(cfg):
    """One F.conv2d forward, float32, padding 1 (ResNet-18's first stage)."""
    return compare_statements(cfg, _statements(*RESNET))


LENET_NET = ("nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.Sigmoid(), "
             "nn.AvgPool2d(2, 2), nn.Conv2d(6, 16, 5), nn.Sigmoid(), nn.AvgPool2d(2, 2), "
             "nn.Flatten(), nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), "
             "nn.Sigmoid(), nn.Linear(84, 10))")
STEP = ("opt.zero_grad(); loss = F.cross_entropy(net(x), y); loss.backward(); opt.step()")


@benchmark("conv", "LeNet training step, batch 256 (CPU)", unit="ms", number=1, repeat=7,
           quick_number=1)
def lenet_step(cfg):
    """D2L 7.6's LeNet (sigmoid, average pooling): forward, cross-entropy, backward and
    an SGD step on a batch of 256 1 x 28 x 28 images, float32."""
    return compare_statements(cfg, {
        "pydevtensor": Stmt("import pydevtensor as pdt; from pydevtensor import nn, optim; "
                            "from pydevtensor.nn import functional as F; "
                            f"net = {LENET_NET}; opt = optim.SGD(net.parameters(), lr=0.9); "
                            "x = pdt.rand(256, 1, 28, 28); y = pdt.randint(0, 10, (256,))",
                            STEP),
        "torch": Stmt("import torch; from torch import nn, optim; "
                      "from torch.nn import functional as F; "
                      f"net = {LENET_NET}; opt = optim.SGD(net.parameters(), lr=0.9); "
                      "x = torch.rand(256, 1, 28, 28); y = torch.randint(0, 10, (256,))", STEP),
    })


# ---- GPU ----

def _need_gpu():
    import pydevtensor as pdt
    if not pdt.cuda.is_available():
        raise Skip(f"no GPU: {pdt.cuda.unavailable_reason()}")


def _gpu_statements(n, c, hw, o, k, p):
    shapes = f"n, c, hw, o, k, p = {n}, {c}, {hw}, {o}, {k}, {p}"
    make = ("x = {m}.rand(n, c, hw, hw, device='cuda'); w = {m}.rand(o, c, k, k, device='cuda'); "
            "b = {m}.rand(o, device='cuda')")
    return {
        "pydevtensor": Stmt(f"import pydevtensor as pdt; from pydevtensor.nn import functional "
                            f"as F; {shapes}; " + make.format(m="pdt"),
                            "F.conv2d(x, w, b, padding=p)", sync="pdt.cuda.synchronize()"),
        "torch": Stmt(f"import torch; {shapes}; " + make.format(m="torch"),
                      "torch.nn.functional.conv2d(x, w, b, padding=p)",
                      sync="torch.cuda.synchronize()"),
    }


@benchmark("conv", "conv2d LeNet's first layer, 256 x 1 x 28 x 28, 6 5x5 filters (GPU)",
           unit="GFLOP/s", nbytes=_flops(*LENET), number=20, repeat=7, quick_number=2)
def conv2d_lenet_gpu(cfg):
    """One F.conv2d forward on the GPU, float32 (im2col kernel and one cuBLAS GEMM)."""
    _need_gpu()
    return compare_statements(cfg, _gpu_statements(*LENET))


@benchmark("conv", "conv2d a ResNet stage, 32 x 64 x 56 x 56, 64 3x3 filters (GPU)",
           unit="GFLOP/s", nbytes=_flops(*RESNET), number=10, repeat=7, quick_number=2)
def conv2d_resnet_gpu(cfg):
    """One F.conv2d forward on the GPU, float32 (torch: cuDNN, TF32 off by default)."""
    _need_gpu()
    return compare_statements(cfg, _gpu_statements(*RESNET))


@benchmark("conv", "LeNet training step, batch 256 (GPU)", unit="ms", number=10, repeat=7,
           quick_number=2)
def lenet_step_gpu(cfg):
    """lenet_step on the GPU: the batch and the model on cuda, synchronised per loop."""
    _need_gpu()
    data = "x = {m}.rand(256, 1, 28, 28, device='cuda'); y = {m}.randint(0, 10, (256,), " \
           "device='cuda'); net = net.to('cuda'); opt = optim.SGD(net.parameters(), lr=0.9)"
    return compare_statements(cfg, {
        "pydevtensor": Stmt("import pydevtensor as pdt; from pydevtensor import nn, optim; "
                            "from pydevtensor.nn import functional as F; "
                            f"net = {LENET_NET}; " + data.format(m="pdt"), STEP,
                            sync="pdt.cuda.synchronize()"),
        "torch": Stmt("import torch; from torch import nn, optim; "
                      "from torch.nn import functional as F; "
                      f"net = {LENET_NET}; " + data.format(m="torch"), STEP,
                      sync="torch.cuda.synchronize()"),
    })
