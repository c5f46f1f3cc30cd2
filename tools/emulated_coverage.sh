#!/usr/bin/env bash
# tools/emulated_coverage.sh - which lines of the CUDA backend (csrc/cuda) the test suite
# runs on the emulated device.  Builds a copy of this tree with gcov instrumentation
# (PYDEVTENSOR_CUDA=emulate, -O0 --coverage), runs `pytest -m cuda` there with 2
# emulated devices, and prints, per source file, the executable lines and those no test
# reached.  A line counts as run when any template instantiation ran it (a kernel
# instantiated for 8 dtypes is "run" once one of them is).  Headers (.cuh) are left
# out: gcov reports them once per including file.
#
# usage: [PYTHON=python] tools/emulated_coverage.sh WORKDIR [pytest arguments...]
#   PYTHON     a Python with the build and test requirements (the `test` extra, setuptools,
#              scipy-openblas32); default python3
#   WORKDIR    a directory for the instrumented copy (WORKDIR/src, about 100 MB); the
#              per-line reports stay in WORKDIR/gcov, the logs in WORKDIR/*.log
#   arguments  passed to pytest after `-m cuda` (default: tests)
# The whole suite takes about 40 minutes on 2 cores.  Needs g++, gcov and the CUDA
# toolkit's headers (as the emulated build does).
set -euo pipefail
work=${1:?usage: tools/emulated_coverage.sh WORKDIR [pytest arguments...]}
shift
[ $# -gt 0 ] || set -- tests
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/src" "$work/gcov"
(cd "$here" && git ls-files -z | tar --null -cf - -T -) | (mkdir -p "$work/src" && cd "$work/src" && tar xf -)
py=${PYTHON:-python3}
cd "$work/src"
CXX="g++ --coverage" CFLAGS="--coverage -O0" LDFLAGS="--coverage" PYDEVTENSOR_CUDA=emulate \
    "$py" setup.py -q build_ext --inplace >"$work/build.log" 2>&1
# the emulator's own compile tests call $CXX from the build config: they are not run here
PYDEVTENSOR_EMULATED_DEVICES=2 "$py" -m pytest -q -p no:cacheprovider -m cuda --capture=sys \
    --deselect tests/test_emulator.py::test_launch_limits_are_those_of_a_real_device \
    --deselect tests/test_emulator.py::test_gemm_ex_type_rules "$@" >"$work/pytest.log" 2>&1 || true
tail -1 "$work/pytest.log"
mkdir -p "$work/gcov"
temp=$(ls -d build/temp.*)
for gcda in "$temp"/csrc/cuda/*.gcda "$temp"/emulated/cuda_*_cu.gcda; do
    [ -e "$gcda" ] || continue
    gcov -o "$(dirname "$gcda")" "$gcda" >/dev/null 2>&1 || true
    for f in cuda_*.c.gcov cuda_*.cu.gcov; do [ -e "$f" ] && mv "$f" "$work/gcov/"; done
    rm -f ./*.gcov
done
cd "$work/gcov"
printf '%-26s %6s %7s %7s\n' file lines missed run
for f in cuda_*.gcov; do
    awk -F: -v name="${f%.gcov}" '
        /^ *[-0-9#=*]+\*?: *[0-9]+:/ {
            c = $1; gsub(/[ *]/, "", c); line = $2 + 0
            if (line == 0 || c == "-") next
            seen[line] = 1
            if (c != "#####" && c != "=====") hit[line] = 1
        }
        END {
            for (l in seen) { n++; if (l in hit) h++ }
            printf "%-26s %6d %7d %6.1f%%\n", name, n, n - h, n ? 100 * h / n : 0
        }' "$f"
done
