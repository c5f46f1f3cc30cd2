/* cuda_solver.h - what cuda_solver.c shares with the other cuSOLVER users of the
 * CUDA backend (cuda_solver_eig.c: syevd, gesvd, geqrf, orgqr): the loaded table, one call's setup (the
 * device's handle bound to its stream, locked) and the status check. */
#ifndef PDT_CUDA_SOLVER_H
#define PDT_CUDA_SOLVER_H

#include <cusolverDn.h>

#include "cuda_check.h"
#include "cuda_ops.h"
#include "pdt_tensor.h"

typedef struct pdt_cusolver_table {
    __typeof__(cusolverDnCreate) *create;
    __typeof__(cusolverDnDestroy) *destroy;
    __typeof__(cusolverDnSetStream) *set_stream;
    __typeof__(cusolverDnSgetrf_bufferSize) *sgetrf_buffer;
    __typeof__(cusolverDnDgetrf_bufferSize) *dgetrf_buffer;
    __typeof__(cusolverDnSgetrf) *sgetrf;
    __typeof__(cusolverDnDgetrf) *dgetrf;
    __typeof__(cusolverDnSgetrs) *sgetrs;
    __typeof__(cusolverDnDgetrs) *dgetrs;
    __typeof__(cusolverDnSpotrf_bufferSize) *spotrf_buffer;
    __typeof__(cusolverDnDpotrf_bufferSize) *dpotrf_buffer;
    __typeof__(cusolverDnSpotrf) *spotrf;
    __typeof__(cusolverDnDpotrf) *dpotrf;
    __typeof__(cusolverDnSsyevd_bufferSize) *ssyevd_buffer;
    __typeof__(cusolverDnDsyevd_bufferSize) *dsyevd_buffer;
    __typeof__(cusolverDnSsyevd) *ssyevd;
    __typeof__(cusolverDnDsyevd) *dsyevd;
    __typeof__(cusolverDnSgesvd_bufferSize) *sgesvd_buffer;
    __typeof__(cusolverDnDgesvd_bufferSize) *dgesvd_buffer;
    __typeof__(cusolverDnSgesvd) *sgesvd;
    __typeof__(cusolverDnDgesvd) *dgesvd;
    __typeof__(cusolverDnSgeqrf_bufferSize) *sgeqrf_buffer;
    __typeof__(cusolverDnDgeqrf_bufferSize) *dgeqrf_buffer;
    __typeof__(cusolverDnSgeqrf) *sgeqrf;
    __typeof__(cusolverDnDgeqrf) *dgeqrf;
    __typeof__(cusolverDnSorgqr_bufferSize) *sorgqr_buffer;
    __typeof__(cusolverDnDorgqr_bufferSize) *dorgqr_buffer;
    __typeof__(cusolverDnSorgqr) *sorgqr;
    __typeof__(cusolverDnDorgqr) *dorgqr;
} pdt_cusolver_table;
extern pdt_cusolver_table pdt_cusolver; /* filled when pdt_cusolver_library loads */

struct solver_slot;
/* What one entry needs: the device current (through guard), its stream, the
 * loaded table, and its slot locked with the handle bound to the stream.
 * pdt_solver_end unlocks and restores the device. */
typedef struct pdt_solver_call {
    pdt_cuda_guard guard;
    cudaStream_t stream;
    struct solver_slot *slot;
    cusolverDnHandle_t handle; /* the slot's, when slot is not NULL */ /* locked when not NULL */
} pdt_solver_call;

/* n > INT_MAX is refused (cuSOLVER's ints); loads cuSOLVER, locks the slot. */
pdt_status pdt_solver_begin(pdt_solver_call *c, const pdt_tensor *t, const char *what, int64_t n);
void pdt_solver_end(pdt_solver_call *c);
/* Records a cuSOLVER failure of `call` at file:line. */
pdt_status pdt_cusolver_fail(cusolverStatus_t s, const char *call, const char *file, int line);
size_t pdt_solver_elem_size(const pdt_tensor *t); /* 8 for float64, else 4 */

/* Needs `pdt_status st` and a `fail:` label. */
#define PDT_CUSOLVER_CHECK(call)                                                                   \
    do {                                                                                           \
        cusolverStatus_t pdt_cusolver_st_ = (call);                                                \
        if (pdt_cusolver_st_ != CUSOLVER_STATUS_SUCCESS) {                                         \
            st = pdt_cusolver_fail(pdt_cusolver_st_, #call, __FILE__, __LINE__);                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#endif /* PDT_CUDA_SOLVER_H */
