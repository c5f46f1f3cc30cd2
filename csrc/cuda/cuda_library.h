/* cuda_library.h - opening the CUDA libraries that are loaded on first use
 * (cuBLAS in cuda_blas.c, NCCL in cuda_nccl.c). */
#ifndef PDT_CUDA_LIBRARY_H
#define PDT_CUDA_LIBRARY_H

#include <stddef.h>

/* dlopen()s the library `soname` ("libcublas.so.13"): in the real build the
 * dynamic loader finds it (the extension's RUNPATH, LD_LIBRARY_PATH, the
 * system); in the emulated build (csrc/cuda/emulator/README.md) it is the
 * build's own emulated library, opened by full path, <directory of this
 * extension module>/_emulated_cuda/<soname>, never a system library of that
 * name.  Returns the handle, or NULL with "<what> could not be loaded: why"
 * in err[n]. */
void *pdt_cuda_open_library(const char *soname, const char *what, char *err, size_t n);

#endif /* PDT_CUDA_LIBRARY_H */
