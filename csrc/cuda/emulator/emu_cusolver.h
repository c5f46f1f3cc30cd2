/* emu_cusolver.h - what the emulated cuSOLVER's sources share (emu_cusolver.cpp:
 * LU and Cholesky; emu_cusolver_eig.cpp: syevd and gesvd; emu_cusolver_qr.cpp:
 * geqrf and orgqr): the handle, its validation, and column-major indexing.
 * Part of the emulated build only. */
#ifndef PDT_EMU_CUSOLVER_H
#define PDT_EMU_CUSOLVER_H

#include <cusolverDn.h>

#include <stdint.h>

#include <mutex>

#include "emu.h"
#include "emu_lapack.h"

#define EMU_CUSOLVER_API extern "C" __attribute__((visibility("default")))

/* "cusolverDnCreate()": the handle holds the library context, tied to the device
 * current when it was created ("cuSolverDN: dense LAPACK" helper functions). */
struct cusolverDnContext {
    int device;
    std::mutex mu;
    cudaStream_t stream; /* "cusolverDnSetStream()": NULL (the default stream) until set */
    void *resources; /* the device memory cusolverDnCreate took (Note [emulated handle memory]) */
};

namespace emu_solver {

inline const char *const DOC_CONTEXT =
    "cuSOLVER Library, \"cusolverDnCreate()\": the handle is tied "
    "to the device current when it was created; that device must "
    "be current when the handle is used";
inline const char *const DOC_SET_STREAM =
    "cuSOLVER Library, \"cusolverDnSetStream()\": the handle's "
    "stream must belong to the handle's device";
/* Note [fault injection]: whether a compute call on device must fail (with
 * CUSOLVER_STATUS_INTERNAL_ERROR): a "cusolverDn" fault, or a device that a
 * sticky error corrupted.  Counts the call. */
inline bool fails(int device)
{
    return pdt_emu::fault_due("cusolverDn") || pdt_emu::sticky_error(device) != cudaSuccess;
}
/* Validates the handle and returns its stream, resolved, with the handle's
 * device current (aborts otherwise, as a misuse is undefined on a GPU). */
inline pdt_emu::stream *stream_of(cusolverDnHandle_t h, const char *name, int *device)
{
    cudaStream_t stream;
    {
        std::lock_guard<std::mutex> lock(h->mu);
        *device = h->device;
        stream = h->stream;
    }
    if (pdt_emu::current_device() != *device)
        pdt_emu::violation(name, DOC_CONTEXT,
                           "handle %p belongs to device %d, but device %d is "
                           "current",
                           (void *)h, *device, pdt_emu::current_device());
    pdt_emu::stream *s = pdt_emu::resolve(stream, name);
    if (pdt_emu::stream_device(s) != *device)
        pdt_emu::violation(name, DOC_SET_STREAM,
                           "handle %p of device %d has stream %p of "
                           "device %d",
                           (void *)h, *device, (void *)stream, pdt_emu::stream_device(s));
    return s;
}

using emu_lapack::at; /* column-major element (i, j) */

using emu_lapack::span; /* elements a column-major matrix spans */

/* A violation (doc says why) when a routine's workspace of lwork elements is
 * smaller than the `need` its _bufferSize call gave. */
inline void check_lwork(const char *name, const char *doc, const char *buffer_call, int lwork,
                        int need)
{
    if (lwork < need)
        pdt_emu::violation(name, doc, "lwork %d is less than the %d that %s gave", lwork, need,
                           buffer_call);
}

} // namespace emu_solver

#endif /* PDT_EMU_CUSOLVER_H */
