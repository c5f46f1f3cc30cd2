/* emu_lapack.h - the reference LU and Cholesky loops that the emulated
 * cuSOLVER (emu_cusolver.cpp: getrf, getrs, potrf, potrfBatched) and the
 * emulated cuBLAS (emu_cublas_lu.cpp: getrfBatched, getrsBatched) share, so
 * that the one-matrix and the batched routines of the two libraries compute
 * the same thing, with LAPACK's unblocked semantics (dgetf2, dgetrs, dpotf2).
 * Column-major, leading dimension lda.  Part of the emulated build only. */
#ifndef PDT_EMU_LAPACK_H
#define PDT_EMU_LAPACK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <algorithm>
#include <vector>

#include "emu.h"

namespace emu_lapack {

/* Column-major element (i, j) of a with leading dimension lda. */
template <typename T> inline T &at(T *a, int lda, int i, int j) { return a[i + (int64_t)j * lda]; }

/* Elements spanned by a column-major rows x cols matrix with leading dimension ld. */
inline size_t span(int rows, int cols, int ld)
{
    return rows <= 0 || cols <= 0 ? 0 : (size_t)(cols - 1) * ld + rows;
}

/* "cusolverDn<t>getrf()": P A = L U with partial pivoting, L unit lower, U
 * upper, over A; devIpiv[i] (1-based) the row swapped with row i; devInfo 0,
 * or i when U(i, i) is exactly zero (the factorization still completes, as
 * LAPACK's: the first such i is reported).  The pivot is the first entry of
 * largest magnitude in the column (LAPACK's idamax).  ipiv NULL: no pivoting
 * ("cublas<t>getrfBatched()": "If PivotArray is nil, pivoting is disabled"). */
template <typename T> inline void run_getrf(int m, int n, T *a, int lda, int *ipiv, int *info)
{
    *info = 0;
    for (int j = 0; j < std::min(m, n); j++) {
        int p = j;
        for (int i = j + 1; ipiv && i < m; i++)
            if (fabs((double)at(a, lda, i, j)) > fabs((double)at(a, lda, p, j)))
                p = i;
        if (ipiv)
            ipiv[j] = p + 1;
        if (at(a, lda, p, j) != T(0)) {
            if (p != j)
                for (int c = 0; c < n; c++)
                    std::swap(at(a, lda, j, c), at(a, lda, p, c));
            T inv = T(1) / at(a, lda, j, j);
            for (int i = j + 1; i < m; i++)
                at(a, lda, i, j) *= inv;
        } else if (*info == 0) {
            *info = j + 1;
        }
        for (int c = j + 1; c < n; c++) {
            T f = at(a, lda, j, c);
            for (int i = j + 1; i < m; i++)
                at(a, lda, i, c) -= at(a, lda, i, j) * f;
        }
    }
}

/* "cusolverDn<t>getrs()" with CUBLAS_OP_N: B = U^-1 L^-1 P B for each of nrhs
 * columns, from getrf's output; devInfo 0 (argument errors are returned as a
 * status before anything is queued). */
template <typename T>
inline void run_getrs(int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb,
                      int *info)
{
    for (int c = 0; c < nrhs; c++) {
        T *x = b + (int64_t)c * ldb;
        for (int i = 0; i < n; i++) /* the row swaps, in order */
            if (ipiv[i] - 1 != i)
                std::swap(x[i], x[ipiv[i] - 1]);
        for (int i = 0; i < n; i++) /* L y = P b, L unit lower */
            for (int r = i + 1; r < n; r++)
                x[r] -= at(a, lda, r, i) * x[i];
        for (int i = n - 1; i >= 0; i--) { /* U x = y */
            x[i] /= at(a, lda, i, i);
            for (int r = 0; r < i; r++)
                x[r] -= at(a, lda, r, i) * x[i];
        }
    }
    *info = 0;
}

/* "cusolverDn<t>potrf()": A = L L^T (CUBLAS_FILL_MODE_LOWER, only the lower
 * triangle read and written) or U^T U (UPPER); devInfo 0, or i when "the
 * leading minor of order i is not positive definite" (section
 * "cusolverDn<t>potrf()"), which is tested as ajj <= 0 and stops the
 * factorization there.  A NaN pivot is not caught by that test, and cuSOLVER
 * does not test for it (unlike LAPACK's reference dpotf2, DISNAN(AJJ)): the
 * factorization carries on with NaN and devInfo stays 0, as real cuSOLVER
 * returns (PyTorch issue #64818).  So the backend's own pass over the
 * diagonal (Note [non-finite Cholesky pivots] in cuda_solver.h) is what
 * reports it, here as on a GPU. */
template <typename T> inline void run_potrf(bool upper, int n, T *a, int lda, int *info)
{
    *info = 0;
    /* element (i, j) of the triangle in use, i >= j: L(i, j), or U(j, i) */
    auto el = [&](int i, int j) -> T & { return upper ? at(a, lda, j, i) : at(a, lda, i, j); };
    for (int j = 0; j < n; j++) {
        T d = el(j, j);
        for (int k = 0; k < j; k++)
            d -= el(j, k) * el(j, k);
        if (d <= T(0)) { /* false for NaN: see above */
            el(j, j) = d;
            *info = j + 1;
            return;
        }
        d = sqrt(d);
        el(j, j) = d;
        for (int i = j + 1; i < n; i++) {
            T s = el(i, j);
            for (int k = 0; k < j; k++)
                s -= el(i, k) * el(j, k);
            el(i, j) = s / d;
        }
    }
}

/* The matrices of a batched routine's pointer array (cuBLAS Library User
 * Guide, "cublas<t>getrfBatched()" and "cublas<t>getrsBatched()": Aarray,
 * Barray; cuSOLVER Library, "cusolverDn<t>potrfBatched()": Aarray): the
 * array itself is device memory ("device input/output array of pointers"),
 * read by the device when the routine runs, so its entries are those written
 * before that point in the stream, and it must be memory `dev` may access
 * then; and so must each matrix it points to, `elems` elements of T from
 * the pointer (the pointer rule, emu.h).  Called inside the queued work. */
template <typename T>
inline std::vector<T *> device_matrices(const char *name, const char *what, int dev,
                                        T *const *array, int batch, size_t elems)
{
    pdt_emu::check_device_access(name, what, dev, array, (size_t)batch * sizeof(T *));
    std::vector<T *> out(array, array + batch);
    char label[96];
    for (int i = 0; i < batch; i++) {
        snprintf(label, sizeof label, "%s[%d] (matrix %d of the batch)", what, i, i);
        pdt_emu::check_device_access(name, label, dev, out[i], elems * sizeof(T));
    }
    return out;
}

} // namespace emu_lapack

#endif /* PDT_EMU_LAPACK_H */
