"""The GPU chapter's exercises, timed (issue 4): exercise 1 (100 matmuls of
500 x 500) and exercise 3 (1000 matmuls of 100 x 100, logging each Frobenius norm
as a Python float, against keeping the norms on the device and copying once).

On a machine without a GPU these run on the CPU, where 'copying once' saves
nothing: the figures are reported, not judged."""
from benchmarks.harness import Timed, benchmark, compare_timed, wall_sync_timer


def _device():
    import pydevtensor as pdt
    return pdt, pdt.try_gpu()


@benchmark("exercises", "ex. 1: 100 matmuls of 500x500", unit="ms", number=1, repeat=5,
           quick_number=1)
def exercise_1(cfg):
    """100 products of two 500 x 500 float32 matrices on try_gpu(), synchronised."""
    import numpy as np
    pdt, dev = _device()
    a, b = pdt.rand(500, 500, device=dev), pdt.rand(500, 500, device=dev)
    na, nb = a.cpu().numpy(), b.cpu().numpy()

    def run_pdt():
        for _ in range(100):
            a @ b

    def run_np():
        for _ in range(100):
            na @ nb
    return compare_timed(cfg, {
        "pydevtensor": Timed(wall_sync_timer(run_pdt, pdt.cuda.synchronize),
                             f"wall clock on {dev}, synchronised"),
        "numpy": Timed(wall_sync_timer(run_np, lambda: None), "wall clock"),
    })


@benchmark("exercises", "ex. 3: 1000 matmuls, norm -> float each", unit="ms", number=1,
           repeat=5, quick_number=1)
def exercise_3_each(cfg):
    """1000 products of 100 x 100 matrices, each Frobenius norm made a Python float
    (a device-to-host copy per step on a GPU)."""
    import numpy as np
    pdt, dev = _device()
    a, b = pdt.rand(100, 100, device=dev), pdt.rand(100, 100, device=dev)
    na, nb = a.cpu().numpy(), b.cpu().numpy()

    def run_pdt():
        return [float((a @ b).norm()) for _ in range(1000)]

    def run_np():
        return [float(np.linalg.norm(na @ nb)) for _ in range(1000)]
    return compare_timed(cfg, {
        "pydevtensor": Timed(wall_sync_timer(run_pdt, pdt.cuda.synchronize), f"on {dev}"),
        "numpy": Timed(wall_sync_timer(run_np, lambda: None), "wall clock"),
    })


@benchmark("exercises", "ex. 3: 1000 matmuls, norms kept, one copy", unit="ms", number=1,
           repeat=5, quick_number=1)
def exercise_3_kept(cfg):
    """The same, with the norms written into a tensor on the device and copied to the
    host once at the end."""
    import numpy as np
    pdt, dev = _device()
    a, b = pdt.rand(100, 100, device=dev), pdt.rand(100, 100, device=dev)
    na, nb = a.cpu().numpy(), b.cpu().numpy()
    log = pdt.zeros(1000, device=dev)
    nlog = np.zeros(1000, np.float32)

    def run_pdt():
        for i in range(1000):
            log[i] = (a @ b).norm()
        return log.cpu().tolist()

    def run_np():
        for i in range(1000):
            nlog[i] = np.linalg.norm(na @ nb)
        return nlog.tolist()
    return compare_timed(cfg, {
        "pydevtensor": Timed(wall_sync_timer(run_pdt, pdt.cuda.synchronize), f"on {dev}"),
        "numpy": Timed(wall_sync_timer(run_np, lambda: None), "wall clock"),
    })
