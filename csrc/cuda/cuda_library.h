/* cuda_library.h - what the CUDA libraries loaded on first use (cuBLAS in
 * cuda_blas.c, NCCL in cuda_nccl.c, cuSOLVER in cuda_solver.c) share in the loader (pdt_library.h): where
 * the emulated build's own copies are, what to install when one is missing, and
 * the check that keeps an emulated build off real CUDA libraries. */
#ifndef PDT_CUDA_LIBRARY_H
#define PDT_CUDA_LIBRARY_H

#include <stddef.h>

#include <cuda_runtime_api.h> /* CUDART_VERSION */

#include "pdt_library.h"

#define PDT_CUDA_STR2(x) #x
#define PDT_CUDA_STR(x) PDT_CUDA_STR2(x)

#ifdef PDT_CUDA_EMULATED
/* The emulated build (csrc/cuda/emulator/README.md) loads its own emulated libraries
 * from <directory of the extension>/_emulated_cuda/, never the system's; directories
 * added by the bindings (NVIDIA's wheel layout) come first, so that a test can stand
 * an emulated library in such a layout, and pdt_cuda_library_is_emulated refuses a
 * real CUDA library found there. */
#define PDT_CUDA_LOCAL_DIR "_emulated_cuda"
#define PDT_CUDA_NO_SYSTEM 1
#define PDT_CUDA_LIBRARY_CHECK pdt_cuda_library_is_emulated
#define PDT_CUDA_INSTALL(pkg) "PYDEVTENSOR_CUDA=emulate pip install -e . (the emulated build's own)"
#else
#define PDT_CUDA_LOCAL_DIR NULL
#define PDT_CUDA_NO_SYSTEM 0
#define PDT_CUDA_LIBRARY_CHECK NULL
#define PDT_CUDA_INSTALL(pkg) "pip install " pkg
#endif

/* NVIDIA's wheels for this build's CUDA major (the extra pydevtensor[cuda13]). */
#if defined(PDT_CUDA_EMULATED)
#define PDT_CUDA_EXTRA ""
#define PDT_NCCL_WHEEL "nvidia-nccl"
#elif CUDART_VERSION >= 13000 && CUDART_VERSION < 14000
#define PDT_CUDA_EXTRA " (or pip install \"pydevtensor[cuda13]\")"
#define PDT_NCCL_WHEEL "nvidia-nccl-cu13"
#elif CUDART_VERSION >= 12000 && CUDART_VERSION < 13000
#define PDT_CUDA_EXTRA ""
#define PDT_NCCL_WHEEL "nvidia-nccl-cu12"
#else
#define PDT_CUDA_EXTRA ""
#define PDT_NCCL_WHEEL "the nvidia-nccl-cuXX wheel of this build's CUDA major"
#endif

/* The loader's descriptors (cuda_blas.c, cuda_nccl.c, cuda_solver.c), listed in the
 * backend table. */
extern pdt_library pdt_cublas_library;
extern pdt_library pdt_cusolver_library;
extern pdt_library pdt_nccl_library;

/* In the emulated build: 0 when handle's cudaGetDeviceCount is the emulated runtime
 * this extension is linked with, i.e. handle is one of the emulator's libraries. */
int pdt_cuda_library_is_emulated(void *handle, char *why, size_t n);

#endif /* PDT_CUDA_LIBRARY_H */
