"""``python -m pydevtensor``: the device table, then the GPU chapter's demo on try_gpu()."""
import sys

import pydevtensor as pdt
from pydevtensor.smi import main as smi_main


def demo():
    dev = pdt.try_gpu()
    if dev.type != "cuda":
        where = "the CPU (no GPU is available)"
    elif pdt.build_info()["cuda_emulated"]:
        where = "an emulated GPU (PYDEVTENSOR_CUDA=emulate: the CUDA code runs on the CPU)"
    else:
        where = "a GPU"
    print(f"\n== The GPU chapter on {dev}: running on {where} ==")
    # Each ">>>" line is followed by what Python's prompt shows for it: the repr.
    print(">>> pdt.try_gpu(), pdt.try_all_gpus()")
    print(repr((pdt.try_gpu(), pdt.try_all_gpus())))

    pdt.reset_transfer_stats()
    print(">>> X = pdt.ones(2, 3, device=try_gpu()); X")
    X = pdt.ones(2, 3, device=dev)
    print(repr(X))
    print(">>> Y = pdt.rand(2, 3, device=try_gpu()); Y.device")
    pdt.manual_seed(0)
    Y = pdt.rand(2, 3, device=dev)
    print(repr(Y.device))
    print(">>> Z = X.to(try_gpu()); Z is X")
    print(repr(X.to(dev) is X))
    print(">>> X.cpu() is X, X.cpu().device")
    host = X.cpu()
    print(repr((host is X, host.device)))
    # Y was drawn on try_gpu() after manual_seed(0); without a GPU that is the CPU, so the
    # comparison is of the CPU with itself, and the line says so.
    alone = "" if dev.type == "cuda" else " (only the CPU here: it is compared with itself)"
    print(">>> _ = pdt.manual_seed(0); pdt.rand(2, 3).tolist() == Y.cpu().tolist()"
          f"  # the same rand(2, 3) on the CPU: equal bits on every device{alone}")
    pdt.manual_seed(0)
    same = pdt.rand(2, 3).tolist() == Y.cpu().tolist()
    print(repr(same))
    if not same:
        print("# the generators disagree (please report this)")
    print(">>> Y.cpu().numpy()   # explicit: a GPU tensor never turns into NumPy silently")
    print(repr(Y.cpu().numpy()))
    print(">>> for kind, s in pdt.transfer_stats().items():")
    print("...     print(f\"{kind:17s} {s['count']:3d} copies, {s['bytes']:6d} bytes\")")
    print("...")
    for kind, s in pdt.transfer_stats().items():
        print(f"{kind:17s} {s['count']:3d} copies, {s['bytes']:6d} bytes")


def libraries_report(info=None):
    """Lines saying where each library loaded on first use came from, or what to install."""
    info = pdt.build_info()["libraries"] if info is None else info
    lines = ["", "== Libraries loaded on first use =="]
    for name, lib in info.items():
        if lib["path"]:
            lines.append(f"{name:9s} {lib['path']}")
        else:
            lines.append(f"{name:9s} MISSING ({lib['soname']}): {lib['install']}")
    return lines


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(
        prog="python -m pydevtensor",
        description="Prints the device table (as pydevtensor-smi does) and where each library "
                    "was loaded from, then runs the GPU chapter's demo on try_gpu(): a GPU when "
                    "there is one, else the CPU.",
        epilog="See README.md for a tour, and notebooks/ for the chapter and its exercises.")
    parser.add_argument("--no-demo", action="store_true",
                        help="print the device table and the libraries only")
    args = parser.parse_args(argv)
    smi_main([])
    print("\n".join(libraries_report()))
    if not args.no_demo:
        demo()
    return 0


if __name__ == "__main__":
    sys.exit(main())
