/* pdt_linalg.h - the factorizations behind pydevtensor.linalg: singular values
 * (linalg.matrix_norm with ord 2, -2 and 'nuc'), LU with partial pivoting and
 * its solve (linalg.solve, inv, det, slogdet), Cholesky (linalg.cholesky), on the
 * backends that compute them (the CPU: OpenBLAS's LAPACK; CUDA: cuSOLVER).
 *
 * Note [column-major factorizations]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * LAPACK and cuSOLVER store a matrix by columns.  So that a backend hands each
 * matrix to them as it is, the LU and Cholesky entries take each n x n matrix
 * (and each right-hand side block) by columns: a contiguous tensor of shape
 * (..., n, n) whose last two dims hold A's transpose (the caller passes
 * A.mT.contiguous(), a fresh copy that is overwritten).  The Python layer
 * (pydevtensor/_linalg_solve.py) makes those copies, broadcasts the batch dims
 * and reads the results back through .mT views. */
#ifndef PDT_LINALG_H
#define PDT_LINALG_H

#include "pdt_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LU factorization with partial pivoting (LAPACK's getrf) of each matrix of a,
 * in place: A = P L U, L unit lower and U upper stored over A.
 *   a:      contiguous float32 or float64 (..., n, n), each matrix by columns
 *           (Note [column-major factorizations]), overwritten by L and U
 *   pivots: contiguous int32 with batch * n elements: row i was swapped with
 *           row pivots[i] (1-based, as LAPACK's ipiv)
 *   info:   contiguous int32 with batch elements: 0, or i > 0 when U(i, i) is
 *           exactly zero (1-based; the matrix is singular, the factors are
 *           still complete).  Not written when n is 0: the caller passes
 *           zeros.
 * All on one device.  Asynchronous on a GPU: info is read on the host only by
 * the caller (a counted copy). */
pdt_status pdt_lu_factor(const pdt_tensor *a, const pdt_tensor *pivots, const pdt_tensor *info);

/* Solves A X = B for each matrix (LAPACK's getrs, no transpose), from the
 * factors pdt_lu_factor left in lu and pivots.
 *   b: contiguous (..., k, n) of lu's dtype and batch count, each block the
 *      n x k right-hand sides by columns; overwritten by X (the same layout).
 * A zero pivot gives infinities or NaN, as LAPACK's: the caller checks info
 * first.  Pivots out of [1, n] would make getrs swap rows outside the matrix:
 * on the CPU they are checked here (PDT_ERR_VALUE); on a GPU they are not (a
 * read-back per solve), so they must be pdt_lu_factor's own, as the one
 * caller (pydevtensor/_linalg_solve.py) passes them. */
pdt_status pdt_lu_solve(const pdt_tensor *lu, const pdt_tensor *pivots, const pdt_tensor *b);

/* Cholesky factorization (LAPACK's potrf) of each symmetric positive-definite
 * matrix of a, in place.  upper = 0: A = L L^T, L written over the lower
 * triangle (by columns) and only the lower triangle read; upper = 1: A = U^T U
 * in the upper triangle.  The other triangle is left as it was (the caller
 * zeroes it).  info as for pdt_lu_factor: i > 0 when the leading minor of order
 * i is not positive-definite. */
pdt_status pdt_cholesky_factor(const pdt_tensor *a, int upper, const pdt_tensor *info);

/* Eigen decomposition (LAPACK's syevd) of each symmetric matrix of a, in place.
 *   a:    contiguous float32 or float64 (..., n, n), each matrix by columns;
 *         only its lower (upper = 0) or upper triangle is read.  Overwritten
 *         by the orthonormal eigenvectors (by columns: column j of the
 *         column-major matrix is the eigenvector of w[j]) when vectors, else
 *         left undefined.
 *   w:    contiguous (..., n) of a's dtype: the eigenvalues, ascending.
 *   info: as for pdt_lu_factor: 0, or i > 0 when the algorithm failed to
 *         converge (w and a are then not meaningful). */
pdt_status pdt_eigh(const pdt_tensor *a, int upper, int vectors, const pdt_tensor *w,
                    const pdt_tensor *info);

/* Singular value decomposition A = U diag(s) V^T (LAPACK's gesdd; cuSOLVER's
 * gesvd) of each m x n matrix with m >= n (the caller transposes a wide
 * matrix), all stored by columns.
 *   a:       contiguous float32 or float64 (..., n, m): each m x n matrix by
 *            columns; destroyed.
 *   vectors: 0 singular values only (u and vt NULL); 1 the reduced U (m x n,
 *            u of shape (..., n, m)); 2 the complete U (m x m, u (..., m, m)).
 *            vt (..., n, n) holds V^T by columns (V^T's transpose, V, row-major).
 *   s:       contiguous (..., n) of a's dtype, descending and non-negative.
 *   info:    0, or i > 0 when i superdiagonals of the bidiagonal form did not
 *            converge. */
pdt_status pdt_svd(const pdt_tensor *a, int vectors, const pdt_tensor *s, const pdt_tensor *u,
                   const pdt_tensor *vt, const pdt_tensor *info);

/* QR factorization (LAPACK's geqrf) of each m x n matrix of a, in place: R
 * over the upper triangle, the k = min(m, n) Householder reflectors below it
 * with their scalars in tau.
 *   a:   contiguous float32 or float64 (..., n, m), each matrix by columns.
 *   tau: contiguous (..., k) of a's dtype. */
pdt_status pdt_qr_factor(const pdt_tensor *a, const pdt_tensor *tau);

/* The m x c matrix Q with orthonormal columns (LAPACK's orgqr) from the first
 * k = tau's last size reflectors stored in q's columns (m >= c >= k).
 *   q:   contiguous float32 or float64 (..., c, m), each matrix by columns: on
 *        entry the reflectors as pdt_qr_factor left them (the first k
 *        columns), overwritten by Q.
 *   tau: contiguous (..., k) of q's dtype. */
pdt_status pdt_qr_orgqr(const pdt_tensor *q, const pdt_tensor *tau);

#ifdef __cplusplus
}
#endif
#endif /* PDT_LINALG_H */
