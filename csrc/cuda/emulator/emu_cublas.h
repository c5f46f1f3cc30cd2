/* emu_cublas.h - what the emulated cuBLAS's sources share (emu_cublas.cpp: the
 * helper functions and GEMM; emu_cublas_lu.cpp: the batched LU): the handle
 * and its checks.  Section names are those of the cuBLAS Library User Guide.
 * Part of the emulated build only. */
#ifndef PDT_EMU_CUBLAS_H
#define PDT_EMU_CUBLAS_H

#include <cublas_v2.h>

#include <mutex>

#include "emu.h"

#define EMU_CUBLAS_API extern "C" __attribute__((visibility("default")))

/* "cuBLAS context": the handle is an opaque pointer to the library context.
 * "Thread Safety": the library is thread safe and may be called from several
 * threads, even with one handle, so the handle's settings are guarded. */
struct cublasContext {
    int device; /* "cuBLAS context": tied to the device current at cublasCreate */
    std::mutex mu;
    cudaStream_t stream; /* "cublasSetStream()": NULL (the default stream) until set */
    cublasMath_t math;   /* "cublasSetMathMode()": CUBLAS_DEFAULT_MATH until set */
    void *resources;     /* the device memory cublasCreate took (Note [emulated handle memory]) */
};

namespace emu_blas {

inline const char *const DOC_CONTEXT = "cuBLAS Library User Guide, \"cuBLAS context\" and "
                                       "\"cublasCreate()\": a handle is tied to the device "
                                       "current when it was created; that device must be "
                                       "current when the handle is used";
inline const char *const DOC_SET_STREAM = "cuBLAS Library User Guide, \"cublasSetStream()\" "
                                          "and \"cuBLAS context\": the handle's stream must "
                                          "belong to the handle's device";

/* The handle's device (which must be current: aborts otherwise, as a misuse is
 * undefined on a GPU), its stream and its math mode, read under its lock. */
inline int settings(cublasHandle_t h, const char *name, cudaStream_t *stream, cublasMath_t *math)
{
    int device;
    {
        std::lock_guard<std::mutex> lock(h->mu);
        device = h->device;
        *stream = h->stream;
        *math = h->math;
    }
    if (pdt_emu::current_device() != device)
        pdt_emu::violation(name, DOC_CONTEXT,
                           "handle %p belongs to device %d, but device %d is current", (void *)h,
                           device, pdt_emu::current_device());
    return device;
}

/* The handle's stream, resolved; it must belong to the handle's device. */
inline pdt_emu::stream *stream_of(cublasHandle_t h, const char *name, int device,
                                  cudaStream_t stream)
{
    pdt_emu::stream *s = pdt_emu::resolve(stream, name);
    if (pdt_emu::stream_device(s) != device)
        pdt_emu::violation(name, DOC_SET_STREAM,
                           "handle %p of device %d has stream %p of device %d", (void *)h, device,
                           (void *)stream, pdt_emu::stream_device(s));
    return s;
}

} // namespace emu_blas

#endif /* PDT_EMU_CUBLAS_H */
