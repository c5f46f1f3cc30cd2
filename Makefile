# Shortcuts for pydevtensor's development tasks.  The README's commands
# (pip install -e . && pytest) need none of these.
#
#   make build          build the extension in place (CUDA when a toolkit is found)
#   make test           the test suite
#   make bench          the benchmarks (BENCH_ARGS=--quick for a short run)
#   make format         apply .clang-format to every C and CUDA file under csrc/
#   make format-check   fail when a file under csrc/ differs from .clang-format
#   make gpu-wheels     fetch the wheels that benchmarks/gpu_check.sh installs on a GPU machine
#   make gpu-check      benchmarks/gpu_check.sh (on a GPU machine)

PYTHON ?= python3
CLANG_FORMAT ?= clang-format
# auto: build the CUDA backend when CUDA_HOME or nvcc is found; 0: CPU only; 1: CUDA required.
PYDEVTENSOR_CUDA ?= auto
BENCH_ARGS ?=

C_SOURCES = $(shell find csrc -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)

.PHONY: build test bench format format-check gpu-wheels gpu-check

build:
	PYDEVTENSOR_CUDA=$(PYDEVTENSOR_CUDA) $(PYTHON) setup.py build_ext --inplace

test:
	$(PYTHON) -m pytest -q tests

bench:
	$(PYTHON) -m benchmarks $(BENCH_ARGS)

format:
	$(CLANG_FORMAT) -i --style=file $(C_SOURCES)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror --style=file $(C_SOURCES)

gpu-wheels:
	bash benchmarks/fetch_gpu_wheels.sh

gpu-check:
	bash benchmarks/gpu_check.sh
