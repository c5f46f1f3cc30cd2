"""The device table, like nvidia-smi: ``pydevtensor-smi`` or ``python -m pydevtensor``."""
import os
import sys

from . import _C, cuda
from ._build import build_info, emulated_description
from ._devices import device, device_count


def _gib(n):
    return f"{n / 2**30:.1f} GiB"


def device_rows():
    """One dict per device: the CPU first, then every CUDA device."""
    info = build_info()
    cpu = _C._properties(device("cpu"))
    free, total = _C._mem_get_info(device("cpu"))
    blas = info["blas"]
    rows = [{
        "device": "cpu",
        "name": cpu["name"],
        "memory": f"{_gib(total - free)} / {_gib(total)}",
        "capability": "-",
        "detail": f"{cpu['multi_processor_count']} cores, {info['cpu']['simd_level']} kernels, "
                  f"{(blas['provider'] or 'OpenBLAS')} ({blas['threads']} threads)",
    }]
    driver = info["cuda"]["driver_version"] or "-"
    runtime = info["cuda"]["runtime_version"] or "-"
    for i in range(device_count()):
        p = cuda.get_device_properties(i)
        free, total = cuda.mem_get_info(i)
        rows.append({
            "device": f"cuda:{i}",
            "name": p.name,
            "memory": f"{_gib(total - free)} / {_gib(total)}",
            "capability": f"{p.major}.{p.minor}",
            "detail": f"{p.multi_processor_count} SMs, driver {driver}, runtime {runtime}",
        })
    return rows


def format_table(rows):
    cols = [("device", "Device"), ("name", "Name"), ("memory", "Memory used / total"),
            ("capability", "CC"), ("detail", "Details")]
    widths = [max(len(title), *(len(str(r[key])) for r in rows)) for key, title in cols]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    def line(values):
        return "|" + "|".join(f" {str(v).ljust(w)} " for v, w in zip(values, widths)) + "|"
    out = [rule, line([title for _, title in cols]), rule.replace("-", "=")]
    out += [line([r[key] for key, _ in cols]) for r in rows]
    out.append(rule)
    return "\n".join(out)


def cuda_summary():
    """One line saying whether CUDA devices can be used, and why not."""
    n = device_count()
    info = build_info()["cuda"]
    if info["emulated"]:
        return (f"CUDA: {n} emulated device{'s' if n != 1 else ''} (PYDEVTENSOR_CUDA=emulate "
                f"build, CUDA {info['toolkit']} headers): the CUDA code runs on the CPU")
    if n:
        return (f"CUDA: {n} device{'s' if n != 1 else ''}; toolkit {info['toolkit']}, "
                f"cuBLAS {info['cublas']}, driver {info['driver_version']}")
    return f"CUDA: no device available ({cuda.unavailable_reason()}); everything runs on the CPU"


def parser():
    import argparse
    p = argparse.ArgumentParser(
        prog="pydevtensor-smi",
        description="Prints the devices pydevtensor can use, like nvidia-smi: the CPU (cores, "
                    "BLAS), then each CUDA GPU (name, memory used / total, compute capability, "
                    "driver and runtime), and a line saying whether CUDA can be used and why not.",
        epilog="`python -m pydevtensor` prints the same table, then runs the GPU chapter's demo.")
    return p


def main(argv=None):
    """Prints the device table."""
    parser().parse_args(argv)
    print(f"pydevtensor {build_info()['version']} on {os.uname().nodename}")
    emulated = emulated_description()
    if emulated:
        print(f"CUDA: {emulated}")
    print(format_table(device_rows()))
    print(cuda_summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
