"""The launcher: ``python -m pydevtensor.distributed.run -n 4 train.py [args]``, a thin
wrapper over mpiexec (the one in this Python's environment first, from the
``distributed`` extra, else the one on PATH).  It runs this Python on the script in
every rank, and adds what the MPI needs on this machine: Open MPI's
--allow-run-as-root when run as root, and --oversubscribe (more ranks than cores);
MPICH's hydra needs neither.  Any option it does not know goes to mpiexec as is
(``--hosts a,b`` for MPICH, ``--host a:2,b:2`` for Open MPI); ``--`` ends them.

    python -m pydevtensor.distributed.run -n 8 --hosts node1,node2 train.py --epochs 3
"""
import os
import shutil
import subprocess
import sys


def find_mpiexec():
    """mpiexec's path: next to sys.executable (the venv's bin), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(here, os.X_OK):
        return here
    found = shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("no mpiexec found (next to this Python or on PATH): pip install "
                           "'pydevtensor[distributed]' (MPICH's wheel brings one)")
    return found


def _is_open_mpi(mpiexec):
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in out or "OpenRTE" in out or "PRRTE" in out


def mpiexec_command(nproc, argv, mpiexec_args=(), mpiexec=None):
    """The mpiexec command line that runs ``python argv...`` in nproc ranks."""
    mpiexec = mpiexec or find_mpiexec()
    cmd = [mpiexec, "-n", str(nproc)]
    if _is_open_mpi(mpiexec):
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        cmd.append("--oversubscribe")
    return cmd + list(mpiexec_args) + [sys.executable] + list(argv)


# mpiexec options that take two values (MPICH's and Open MPI's -genv / -env / -x NAME=...:
# only the first two are NAME VALUE)
_TWO_VALUES = {"genv": 2, "env": 2}


def _parse(args):
    """(nproc, mpiexec options, the script and its arguments) from the command line:
    options before the script are -n/--nproc and mpiexec's own; the script is the first
    word ending in .py, or ``-m module``, or what follows ``--`` (all run by this Python)."""
    nproc, extra, i = None, [], 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return nproc, extra, args[i + 1:]
        if a in ("-n", "--nproc", "-np"):
            if i + 1 == len(args):
                raise SystemExit(f"{PROG}: {a} needs a number")
            nproc, i = args[i + 1], i + 2
            continue
        if a.startswith("--nproc="):
            nproc, i = a.split("=", 1)[1], i + 1
            continue
        if a == "-m" or not a.startswith("-"):
            return nproc, extra, args[i:]
        extra.append(a)  # mpiexec's option, with its value (two: -genv NAME VALUE)
        for _ in range(_TWO_VALUES.get(a.lstrip("-"), 1)):
            if i + 1 < len(args) and not args[i + 1].startswith("-") and \
                    not args[i + 1].endswith(".py"):
                extra.append(args[i + 1])
                i += 1
        i += 1
    return nproc, extra, []


PROG = "python -m pydevtensor.distributed.run"
USAGE = (f"usage: {PROG} -n N [mpiexec options] script.py [args]  (or -m module [args], or -- "
         f"script [args])")


def main(args=None):
    args = sys.argv[1:] if args is None else list(args)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        print(__doc__)
        return 0 if args else 2
    nproc, extra, argv = _parse(args)
    try:
        nproc = int(nproc)
    except (TypeError, ValueError):
        print(f"{USAGE}\n{PROG}: -n needs a number of processes, got {nproc!r}", file=sys.stderr)
        return 2
    if nproc < 1 or not argv:
        print(f"{USAGE}\n{PROG}: " + (f"-n must be >= 1, got {nproc}" if nproc < 1
                                     else "no script given"), file=sys.stderr)
        return 2
    return subprocess.call(mpiexec_command(nproc, argv, extra))


if __name__ == "__main__":
    sys.exit(main())
