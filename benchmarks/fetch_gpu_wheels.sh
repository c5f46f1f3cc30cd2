#!/usr/bin/env bash
# benchmarks/fetch_gpu_wheels.sh - downloads, here, the wheels that the GPU machine lacks
# (it has no network) into .whl/, for benchmarks/gpu_check.sh to install there.
#
#   benchmarks/fetch_gpu_wheels.sh            # scipy-openblas32 only (the default)
#   benchmarks/fetch_gpu_wheels.sh --all      # also hypothesis, sortedcontainers, attrs
#   benchmarks/fetch_gpu_wheels.sh NAME...    # these distributions
#
# The GPU image (Python 3.12, manylinux x86_64) already has numpy, pytest, hypothesis,
# sortedcontainers, attrs, psutil, torch, cupy and matplotlib; only the OpenBLAS wheel
# that the build links against is surely missing.  scipy-openblas32 is pinned to the
# version installed here, when there is one, so that the GPU build uses the OpenBLAS
# that the development machines and CI use.  .whl/ is git-ignored: name it in the
# device tool's `carry` (carry: [".whl"]).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "$#" -eq 0 ]; then
    set -- scipy-openblas32
elif [ "$1" = --all ]; then
    set -- scipy-openblas32 hypothesis sortedcontainers attrs
fi

specs=()
for name in "$@"; do
    if [ "$name" = scipy-openblas32 ]; then
        version=$(python3 -c \
            "import importlib.metadata as m; print(m.version('scipy-openblas32'))" \
            2>/dev/null || true)
        specs+=("scipy-openblas32${version:+==$version}")
    else
        specs+=("$name")
    fi
done

# Into a fresh folder first, so that a failed download leaves .whl/ as it was and a
# new version does not end up beside an old one (two versions stop the install there).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$tmp" "${specs[@]}"

mkdir -p .whl
for whl in "$tmp"/*.whl; do
    dist=$(basename "$whl")
    dist=${dist%%-*}
    rm -f .whl/"$dist"-*.whl
    mv "$whl" .whl/
done
git check-ignore -q .whl/ || echo "warning: .whl/ is not git-ignored" >&2
ls -l .whl/
echo "carry .whl to the GPU machine (run tool: carry [\".whl\"]), then run benchmarks/gpu_check.sh"
