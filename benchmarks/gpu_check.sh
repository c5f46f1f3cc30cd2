#!/usr/bin/env bash
# benchmarks/gpu_check.sh - the GPU check (shared/GPU.md), in one run on a GPU machine.
#
#   benchmarks/gpu_check.sh                 # every step
#   benchmarks/gpu_check.sh build tests     # some steps (env and wheels always run)
#
# Run from anywhere; it works in the repository root.  Steps, in order:
#   env        nvidia-smi, nvcc, compute-sanitizer and the Python libraries (a record)
#   wheels     pip-installs the wheels carried in .whl/ (benchmarks/fetch_gpu_wheels.sh
#              fetches them) into /tmp/site and puts it on PYTHONPATH: scipy-openblas32
#              always, any other only when the machine's Python cannot import it yet
#   build      PYDEVTENSOR_CUDA=1 setup.py build_ext --inplace, for the card found
#   verify     the build has CUDA and sees the GPU; python -m pydevtensor
#   tests      python3 -m pytest -m cuda tests (every test on a CUDA device; each failure
#              written to test_failures.txt as it happens)
#   memcheck   compute-sanitizer --tool memcheck over a targeted subset of the GPU tests
#              (MEMCHECK_TESTS: every kernel family, copies, views, events), with the
#              "quick" property-test profile (tests/conftest.py: at most 10 examples each)
#   racecheck  compute-sanitizer --tool racecheck over the kernels with shared memory
#              and warp shuffles (RACECHECK_TESTS: reductions, the integer GEMM)
#   bench      python3 -m benchmarks (against PyTorch and CuPy, one process per comparison)
#
# Output: under $OUT when it is set, else benchmarks/results/:
#   gpu_check_summary.txt   the table printed last (rewritten after every step)
#   gpu_check.log           every step's output in turn (a step's longest logs cut)
#   gpu_check_logs.tar.gz   the full logs, one per step (in logs/ when $OUT is unset)
#   pytest.xml              the GPU tests' JUnit report (written at their end)
#   test_failures.txt       each failed GPU test and its traceback's end, as it failed
#   benchmarks.json, benchmarks.txt, benchmarks.png   from python -m benchmarks
# (8 files, the most the device tool brings back from $OUT).
#
# Every step runs even when an earlier one failed; the exit status is 1 when any step
# failed.  A step that cannot run on this machine (compute-sanitizer refusing the
# device, as under gVisor) is N/A and does not fail the check; a sanitizer that runs
# out of time is TIMED-OUT, which says nothing about the code and does not fail it.
#
# Libraries are found as on a pip user's machine: cuBLAS and NCCL from NVIDIA's wheels
# (nvidia-cublas, nvidia-nccl-cu13: site-packages/nvidia/*/lib, put on LD_LIBRARY_PATH
# for the backend's dlopen()), else wherever the dynamic loader finds them; neither
# $CUDA_HOME/lib64 nor a system nccl.h is assumed.
#
# Environment: PYTHON (default python3); PYDEVTENSOR_CUDA_ARCH (default: the card's
# compute capability from nvidia-smi, else 90); BENCH_ARGS (e.g. --quick);
# GPU_CHECK_BUDGET_S, the seconds the whole run may take (default 570, inside the
# device tool's 10 minutes; 0 for no limit): each step's time limit is cut to what
# is left, and steps with no time left are SKIPPED.
# shellcheck disable=SC2317 # the step functions run through run_fn (bash -c)
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
export PYTHONUNBUFFERED=1

ALL_STEPS="build verify tests memcheck racecheck bench"
WANTED=${*:-$ALL_STEPS}
for s in $WANTED; do
    case " $ALL_STEPS " in
        *" $s "*) ;;
        *) echo "gpu_check: unknown step '$s' (steps: $ALL_STEPS)" >&2; exit 2 ;;
    esac
done

PY=${PYTHON:-python3}
RESULTS=${OUT:-benchmarks/results}
BUDGET=${GPU_CHECK_BUDGET_S:-570}
STARTED=$SECONDS
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
if [ -n "${OUT:-}" ]; then
    LOGDIR=$(mktemp -d /tmp/gpu_check_logs.XXXXXX)
else
    LOGDIR=$RESULTS/logs
    mkdir -p "$LOGDIR"
fi
COMBINED=$RESULTS/gpu_check.log
SUMMARY=$RESULTS/gpu_check_summary.txt
: >"$COMBINED"

ROWS=()
FAILED=()

now() { date +%s.%N; }

write_summary() {
    {
        printf '%-10s %-9s %8s  %s\n' step status seconds note
        printf '%-10s %-9s %8s  %s\n' ---------- --------- -------- ----
        local r
        for r in "${ROWS[@]}"; do printf '%s\n' "$r"; done
    } >"$SUMMARY"
}

record() { # step status seconds note
    ROWS+=("$(printf '%-10s %-9s %8s  %s' "$1" "$2" "$3" "$4")")
    case $2 in FAIL | TIMEOUT) FAILED+=("$1") ;; esac
    write_summary
}

# Appends a step's log to the combined log, cut to its first and last lines when long,
# so that the combined file stays readable and small enough to come back.
append_log() { # step log
    local size
    size=$(wc -c <"$2")
    {
        echo "===================== $1 ====================="
        if [ "$size" -le 2000000 ]; then
            cat "$2"
        else
            head -c 200000 "$2"
            printf '\n... [%s bytes cut; the full log is in gpu_check_logs.tar.gz] ...\n' "$size"
            tail -c 1500000 "$2"
        fi
        echo
    } >>"$COMBINED"
}

pack_logs() {
    [ -n "${OUT:-}" ] || return 0
    tar -czf "$RESULTS/gpu_check_logs.tar.gz" -C "$LOGDIR" . 2>/dev/null
}

# run_step NAME LIMIT_S COMMAND...: runs COMMAND under a time limit with its output in
# the step's log, and records PASS, FAIL, TIMEOUT or N/A.
run_step() {
    local name=$1 limit=$2
    shift 2
    local log=$LOGDIR/$name.log
    if [ "$BUDGET" -gt 0 ]; then
        local left=$((BUDGET - (SECONDS - STARTED) - 10))
        if [ "$left" -lt 15 ]; then
            echo "== $name: SKIPPED, the time budget (GPU_CHECK_BUDGET_S=$BUDGET) is spent"
            record "$name" SKIPPED 0 "no time left in GPU_CHECK_BUDGET_S=$BUDGET"
            return 0
        fi
        [ "$limit" -gt "$left" ] && limit=$left
    fi
    echo "== $name (limit ${limit} s): ${STEP_LABEL:-$*}"
    local t0 t1 rc secs status note=""
    t0=$(now)
    timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1 </dev/null
    rc=$?
    t1=$(now)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 0 ]; then
        status=PASS
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        status=TIMEOUT
        note="killed after ${limit} s"
    else
        status=FAIL
        note="exit $rc"
    fi
    case $name in
        memcheck | racecheck)
            if grep -q -e "Device not supported" -e "Unable to find injection library" "$log"; then
                status=N/A
                note="compute-sanitizer cannot run on this device/runtime (see log)"
            elif grep -q "ERROR SUMMARY: [1-9]" "$log"; then
                # errors found before the end (or the limit) are a failure either way
                status=FAIL
                note="$note${note:+; }$(grep -o 'ERROR SUMMARY: [0-9]* errors\?' "$log" | tail -1)"
            elif [ "$status" = TIMEOUT ]; then
                # out of time with no error reported so far: no verdict on the code
                status=TIMED-OUT
                note="timed out after ${limit} s with no error reported so far: not a failure of the code"
            fi
            ;;
    esac
    if [ "$rc" -eq 5 ] && grep -q "no tests ran" "$log"; then
        note="pytest collected no tests"
    fi
    echo "   $status in ${secs} s${note:+ ($note)}"
    if [ "$status" != PASS ]; then
        tail -n 25 "$log" | sed 's/^/   | /'
    fi
    append_log "$name" "$log"
    pack_logs
    record "$name" "$status" "$secs" "$note"
}

wanted() { case " $WANTED " in *" $1 "*) return 0 ;; esac; return 1; }

# run_fn NAME LIMIT_S FUNCTION: run_step on a shell function of this script.
run_fn() {
    STEP_LABEL="$3 (a function of this script)"
    run_step "$1" "$2" bash -c "$(declare -f "$3"); $3"
    STEP_LABEL=
}
STEP_LABEL=
export PY

# ---- env: a record of the machine ----
probe_env() {
    set -x
    nvidia-smi || return 1
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.sm,clocks.mem \
        --format=csv
    command -v nvcc && nvcc --version
    command -v compute-sanitizer && compute-sanitizer --version
    "$PY" - <<'PYEOF'
import importlib, sys
print(sys.version, sys.executable)
for m in ("numpy", "pytest", "hypothesis", "psutil", "torch", "cupy", "matplotlib",
          "setuptools", "scipy_openblas32"):
    try:
        print(m, getattr(importlib.import_module(m), "__version__", "?"))
    except Exception as e:
        print(m, "MISSING:", type(e).__name__, e)
PYEOF
}
run_fn env 90 probe_env

# ---- wheels: what the machine lacks travels in .whl/ ----
install_wheels() {
    local whl dist mod todo=()
    for whl in .whl/*.whl; do
        dist=$(basename "$whl")
        dist=${dist%%-*}
        case $dist in
            attrs) mod=attr ;;
            *) mod=$(echo "$dist" | tr 'A-Z-' 'a-z_') ;;
        esac
        if [ "$mod" != scipy_openblas32 ] && "$PY" -c "import $mod" 2>/dev/null; then
            echo "skip $whl: $mod already imports here"
        else
            todo+=("$whl")
        fi
    done
    [ "${#todo[@]}" -gt 0 ] || { echo "nothing to install"; return 0; }
    echo "installing ${todo[*]} into /tmp/site"
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "${todo[@]}" || return 1
    PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} "$PY" -c \
        "import scipy_openblas32 as o; print('scipy_openblas32', o.__version__, o.get_lib_dir())"
}
if compgen -G ".whl/*.whl" >/dev/null; then
    run_fn wheels 120 install_wheels
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
else
    echo "== wheels: none in .whl/ (run benchmarks/fetch_gpu_wheels.sh here and carry .whl)"
    record wheels SKIPPED 0 "no .whl/*.whl"
fi
# The build is in place (not installed): child processes the tests start from another
# folder (the README's tour, the MPI ranks) import pydevtensor from here.
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
if ! "$PY" -c "import scipy_openblas32" 2>/dev/null; then
    echo "   scipy_openblas32 does not import: the build will fail (carry .whl/)"
fi

# ---- libraries as a pip user has them: NVIDIA's wheels (site-packages/nvidia/*/lib) ----
# The backend dlopen()s libcublas.so.N and libnccl.so.2 by soname; put the wheels' lib
# directories on LD_LIBRARY_PATH (the toolkit's lib64 may lack cuBLAS), and NCCL's
# include/ on CPATH for a source that still includes <nccl.h>.
NV_LIBS=$("$PY" - <<'PYEOF' 2>/dev/null
import glob, importlib.util, os
spec = importlib.util.find_spec("nvidia")
libs, incs = [], []
for root in (spec.submodule_search_locations or []) if spec else []:
    for d in sorted(glob.glob(os.path.join(root, "*", "lib"))):
        if glob.glob(os.path.join(d, "libcublas.so*")) or glob.glob(os.path.join(d, "libnccl.so*")):
            libs.append(d)
    for d in sorted(glob.glob(os.path.join(root, "*", "include"))):
        if os.path.exists(os.path.join(d, "nccl.h")):
            incs.append(d)
print(":".join(libs))
print(":".join(incs))
PYEOF
)
NV_LIBDIRS=$(printf '%s\n' "$NV_LIBS" | sed -n 1p)
NV_INCDIRS=$(printf '%s\n' "$NV_LIBS" | sed -n 2p)
if [ -n "$NV_LIBDIRS" ]; then
    export LD_LIBRARY_PATH=$NV_LIBDIRS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "== libraries: NVIDIA wheels on LD_LIBRARY_PATH: $NV_LIBDIRS"
else
    echo "== libraries: no NVIDIA cuBLAS/NCCL wheels found; the dynamic loader's own search applies"
fi
if [ -n "$NV_INCDIRS" ]; then
    export CPATH=$NV_INCDIRS${CPATH:+:$CPATH}
fi

# ---- build ----
ARCH=${PYDEVTENSOR_CUDA_ARCH:-}
if [ -z "$ARCH" ]; then
    ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
        head -n 1 | tr -d ' .')
    [ -n "$ARCH" ] || ARCH=90
fi
if wanted build; then
    run_step build 400 env PYDEVTENSOR_CUDA=1 PYDEVTENSOR_CUDA_ARCH="$ARCH" \
        "$PY" setup.py build_ext --inplace
fi

# ---- verify: CUDA built in and a device seen, so GPU tests cannot skip silently ----
verify_build() {
    "$PY" - <<'PYEOF' || return 1
import pydevtensor as pdt
print(pdt.build_info())
assert pdt.cuda.is_built(), "pydevtensor was built without CUDA"
assert pdt.cuda.is_available(), "no CUDA device: %s" % pdt.cuda.unavailable_reason()
print(pdt.cuda.get_device_properties(0))
PYEOF
    "$PY" -m pydevtensor
}
if wanted verify; then
    run_fn verify 120 verify_build
fi

# ---- tests ----
if wanted tests; then
    # The GPU tests only (-m cuda: every test on a CUDA device; the rest run on the CPU
    # in CI).  Each failure goes to test_failures.txt as it happens, with the end of its
    # traceback, so that a run cut off by the time limit still names what failed.
    rm -f "$RESULTS/test_failures.txt"
    run_step tests 450 env PYDEVTENSOR_TEST_FAILURE_LOG="$RESULTS/test_failures.txt" \
        "$PY" -m pytest -q -rfE -p no:cacheprovider -m cuda tests \
        --junitxml="$RESULTS/pytest.xml"
    if [ -s "$RESULTS/test_failures.txt" ]; then
        echo "   failed so far ($(grep -c '^FAILED' "$RESULTS/test_failures.txt")," \
            "tracebacks in test_failures.txt):"
        grep '^FAILED' "$RESULTS/test_failures.txt" | head -n 60 | sed 's/^/   | /'
    fi
fi

# ---- compute-sanitizer over the GPU tests ----
SANITIZER=$(command -v compute-sanitizer || true)
for c in "${CUDA_HOME:-/usr/local/cuda}"/bin/compute-sanitizer \
    /usr/local/cuda/bin/compute-sanitizer; do
    [ -z "$SANITIZER" ] && [ -x "$c" ] && SANITIZER=$c
done
# Targeted subsets (the whole suite under a sanitizer takes far longer than a device
# command may run): every kernel family once for memcheck; the kernels that use shared
# memory, __syncthreads and warp shuffles for racecheck.  Property tests run with the
# "quick" profile; tests needing PyTorch's or CuPy's CUDA (real_gpu) are left out.
MEMCHECK_TESTS=${MEMCHECK_TESTS:-tests/test_elementwise.py tests/test_elementwise_cases.py tests/test_reduce.py tests/test_matmul.py tests/test_im2col_kernels.py tests/test_copies.py tests/test_views.py tests/test_random.py tests/test_events.py tests/test_memory.py}
RACECHECK_TESTS=${RACECHECK_TESTS:-tests/test_reduce.py tests/test_matmul.py}
for tool in memcheck racecheck; do
    wanted "$tool" || continue
    if [ -z "$SANITIZER" ]; then
        echo "== $tool: compute-sanitizer not found"
        record "$tool" FAIL 0 "compute-sanitizer not found"
        continue
    fi
    if [ "$tool" = memcheck ]; then subset=$MEMCHECK_TESTS; else subset=$RACECHECK_TESTS; fi
    # shellcheck disable=SC2086 # the subsets are lists of paths
    run_step "$tool" 240 env PYDEVTENSOR_HYPOTHESIS_PROFILE=quick \
        "$SANITIZER" --tool "$tool" --error-exitcode 1 \
        "$PY" -m pytest -q -p no:cacheprovider -m "cuda and not real_gpu" $subset
done

# ---- benchmarks ----
if wanted bench; then
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
    run_step bench 300 "$PY" -m benchmarks --out "$RESULTS" ${BENCH_ARGS:-}
fi

# ---- the tables, last ----
if [ -f "$RESULTS/benchmarks.txt" ] && wanted bench; then
    echo
    cat "$RESULTS/benchmarks.txt"
fi
echo
echo "gpu_check: results in $RESULTS ($((SECONDS - STARTED)) s)"
cat "$SUMMARY"
if [ "${#FAILED[@]}" -gt 0 ]; then
    echo "gpu_check: FAILED: ${FAILED[*]}"
    exit 1
fi
echo "gpu_check: every step passed (or could not run here: see N/A, SKIPPED and TIMED-OUT)"
exit 0
