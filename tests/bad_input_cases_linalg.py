"""The bad-input catalogue's cases for pydevtensor.linalg's solvers
(pydevtensor/_linalg_solve.py): solve, inv, det, slogdet, cholesky, their _ex forms,
inverse, logdet and cholesky_solve; its decompositions (_linalg_decomp.py: eigh,
eigvalsh, svd, svdvals, qr) and what is built on them (_linalg_spectral.py:
matrix_rank, pinv, cond; _linalg_lstsq.py: lstsq); the LU names (_linalg_lu.py), the
LDL names (_linalg_ldl.py), matrix_exp, matrix_sqrth and polar (_linalg_roots.py),
vander, cholesky_inverse, the low-rank SVD and lobpcg.  tests/bad_input_cases.py (where
Case is) adds them to CASES; tests/test_bad_input.py runs them."""
from bad_input_cases import C

LAE = "pydevtensor.linalg.LinAlgError"

LINALG_CASES = [
    C("frobenius_norm-three-dims", "pdt.frobenius_norm(pdt.ones(2, 3, 4), (0, 1, 2))",
      "RuntimeError", r"frobenius_norm\(\): Expected at most 2 dimensions, but got 3 "
      r"dimensions instead \(dim=\(0, 1, 2\), input of shape \(2, 3, 4\), on cpu\)"),
    C("frobenius_norm-int", "pdt.frobenius_norm(pdt.ones(2, 3, dtype=pdt.int64), 1)",
      "NotImplementedError", r"frobenius_norm\(\): input dtype should be either floating "
      r"point or complex\. Got pydevtensor\.int64 instead \(shape \(2, 3\), on cpu\)"),
    C("nuclear_norm-bool", "pdt.nuclear_norm(pdt.ones(2, 3, dtype=pdt.bool))",
      "NotImplementedError", r"nuclear_norm\(\): input dtype should be either floating "
      r"point or complex\. Got pydevtensor\.bool"),
    C("norm_except_dim-dim-range", "pdt.norm_except_dim(pdt.ones(2, 3), 2, 2)", "IndexError",
      r"norm_except_dim\(\): Dimension out of range \(expected to be in range of \[-2, 1\], "
      r"but got 2\)"),
    C("norm_except_dim-float-pow", "pdt.norm_except_dim(pdt.ones(2, 3), 2.5)", "TypeError",
      r"norm_except_dim\(\): argument 'pow' must be int, got float"),
    C("ormqr-tau-length", "pdt.ormqr(pdt.zeros(5, 3), pdt.zeros(2), pdt.zeros(5, 4))",
      "RuntimeError", r"torch\.ormqr: tau\.shape\[-1\] must be equal to min\(other\.shape"
      r"\[-2\], input\.shape\[-1\]\) \(got tau of shape \(2,\), other \(5, 4\), input "
      r"\(5, 3\)\)"),
    C("ormqr-right-rows", "pdt.ormqr(pdt.zeros(5, 3), pdt.zeros(3), pdt.zeros(5, 4), "
      "left=False)", "RuntimeError", r"torch\.ormqr: other\.shape\[-1\] must be equal to "
      r"input\.shape\[-2\]"),
    C("geqrf-int", "pdt.geqrf(pdt.ones(2, 2, dtype=pdt.int64))", "NotImplementedError",
      r"geqrf: Expected a floating point tensor as input\. Got Long"),
    C("linalg.solve-singular", "pdt.linalg.solve(pdt.zeros(3, 2, 2), pdt.ones(3, 2))", LAE,
      r"linalg\.solve: \(Batch element 0\): The diagonal element 1 is zero.*singular.*"
      r"\(A of shape \(3, 2, 2\), .*float32, on cpu\)"),
    C("linalg.solve-shapes", "pdt.linalg.solve(pdt.eye(2), pdt.ones(3))", "RuntimeError",
      r"linalg\.solve: Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x1; "
      r"A \(2, 2\), B \(3,\), on cpu\)"),
    C("linalg.solve-int", "pdt.linalg.solve(pdt.ones(2, 2, dtype=pdt.int64), pdt.ones(2))",
      "NotImplementedError", r"linalg\.solve: Expected a floating point tensor as input. Got "
      r"Long \(shape \(2, 2\), on cpu\)"),
    C("linalg.solve_ex-dtypes", "pdt.linalg.solve_ex(pdt.eye(2), pdt.ones(2, dtype=pdt.float64))",
      "RuntimeError", r"linalg\.solve_ex: Expected A and B to have the same dtype, but found "
      r"A of type .*float32 and B of type .*float64 instead"),
    C("orgqr-wide", "pdt.orgqr(pdt.ones(3, 5), pdt.ones(3))", "RuntimeError",
      r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\] \(got shape "
      r"\(3, 5\)\)"),
    C("linalg.householder_product-tau-dtype",
      "pdt.linalg.householder_product(pdt.ones(5, 3), pdt.ones(3, dtype=pdt.float64))",
      "RuntimeError", r"tau dtype pydevtensor.float64 does not match input dtype "
      r"pydevtensor.float32"),
    C("linalg.tensorinv-products", "pdt.linalg.tensorinv(pdt.ones(2, 3, 6), 1)",
      "RuntimeError", r"but got 18 != 2 \(self of shape \(2, 3, 6\)\)"),
    C("linalg.tensorsolve-products", "pdt.linalg.tensorsolve(pdt.ones(2, 3, 5), pdt.ones(2, 3))",
      "RuntimeError", r"but got 5 != 6 \(A of shape \(2, 3, 5\), B of shape \(2, 3\)\)"),
    C("linalg.solve_triangular-wide-b", "pdt.linalg.solve_triangular(pdt.eye(3), "
      "pdt.ones(2, 3), upper=True)", "RuntimeError",
      r"linalg\.solve_triangular: Incompatible shapes of A and B for the equation AX = B: "
      r"A \(3, 3\), B \(2, 3\) \(on cpu\)"),
    C("linalg.solve_triangular-no-upper",
      "pdt.linalg.solve_triangular(pdt.eye(2), pdt.ones(2, 1))", "TypeError", r"upper"),
    C("linalg.solve_triangular-half", "pdt.linalg.solve_triangular(pdt.eye(2).half(), "
      "pdt.ones(2, 1).half(), upper=True)", "NotImplementedError",
      r"linalg\.solve_triangular: not implemented for pydevtensor\.float16 \(A of shape "
      r"\(2, 2\), on cpu\)"),
    C("linalg.vecdot-dtypes", "pdt.linalg.vecdot(pdt.ones(2), pdt.ones(2, dtype=pdt.float64))",
      "pydevtensor.DTypeError", r"linalg\.vecdot: Expected x and y to have the same dtype"),
    C("linalg.inv-not-square", "pdt.linalg.inv(pdt.ones(2, 3))", "RuntimeError",
      r"linalg\.inv: A must be batches of square matrices, but they are 2 by 3 matrices "
      r"\(shape \(2, 3\), on cpu\)"),
    C("linalg.inv-singular", "pdt.linalg.inv(pdt.zeros(2, 2))", LAE,
      r"linalg\.inv: The diagonal element 1 is zero"),
    C("linalg.inv-singular-mid-batch",
      "pdt.linalg.inv(pdt.stack([pdt.eye(3), pdt.eye(3), pdt.zeros(3, 3), pdt.eye(3)]))", LAE,
      r"linalg\.inv: \(Batch element 2\): The diagonal element 1 is zero.*\(A of shape "
      r"\(4, 3, 3\), .*float32, on cpu\)"),
    C("linalg.inv_ex-half", "pdt.linalg.inv_ex(pdt.eye(2, dtype=pdt.float16))",
      "NotImplementedError", r"linalg\.inv_ex: Low precision dtypes not supported. Got Half"),
    C("linalg.det-1d", "pdt.linalg.det(pdt.ones(3))", "RuntimeError",
      r"linalg\.det: The input tensor A must have at least 2 dimensions \(got shape \(3,\), "
      r"on cpu\)"),
    C("linalg.slogdet-list", "pdt.linalg.slogdet([[1.0]])", "TypeError",
      r"linalg\.slogdet\(\): argument 'A' must be a Tensor, got list"),
    C("linalg.cholesky-not-pd", "pdt.linalg.cholesky(-pdt.eye(2))", LAE,
      r"linalg\.cholesky: The factorization could not be completed because the input is not "
      r"positive-definite \(the leading minor of order 1 is not positive-definite\) \(A of "
      r"shape \(2, 2\), .*float32, on cpu\)"),
    C("linalg.cholesky-nan",
      "pdt.linalg.cholesky(pdt.tensor([[4.0, 1.0], [1.0, float('nan')]]))", LAE,
      r"linalg\.cholesky: The factorization could not be completed because the input is "
      r"not positive-definite \(the leading minor of order 2 is not positive-definite\)"),
    C("linalg.cholesky_ex-bool", "pdt.linalg.cholesky_ex(pdt.ones(2, 2, dtype=pdt.bool))",
      "NotImplementedError", r"linalg\.cholesky_ex: Expected a floating point tensor as "
      r"input. Got Bool"),
    C("inverse-int", "pdt.inverse(pdt.ones(2, 2, dtype=pdt.int32))", "NotImplementedError",
      r"linalg\.inv: Expected a floating point tensor as input. Got Int"),
    C("det-not-square", "pdt.det(pdt.ones(2, 3))", "RuntimeError",
      r"linalg\.det: A must be batches of square matrices, but they are 2 by 3"),
    C("logdet-int", "pdt.logdet(pdt.ones(2, 2, dtype=pdt.int64))", "NotImplementedError",
      r"linalg\.slogdet: Expected a floating point tensor as input. Got Long"),
    C("slogdet-1d", "pdt.slogdet(pdt.ones(2))", "RuntimeError",
      r"linalg\.slogdet: The input tensor A must have at least 2 dimensions"),
    C("Tensor.cholesky_solve-list", "pdt.ones(2, 1).cholesky_solve([[1.0]])", "TypeError",
      r"cholesky_solve\(\): argument 'L' must be a Tensor, got list"),
    C("Tensor.cholesky_solve-sizes", "pdt.ones(3, 1).cholesky_solve(pdt.eye(2))",
      "RuntimeError", r"cholesky_solve: Incompatible matrix sizes: B of shape \(3, 1\)"),
    C("cholesky_solve-1d", "pdt.cholesky_solve(pdt.ones(2), pdt.eye(2))", "RuntimeError",
      r"cholesky_solve: B must have at least 2 dimensions, got shape \(2,\) \(on cpu\)"),
    C("cholesky_solve-int", "pdt.cholesky_solve(pdt.ones(2, 1, dtype=pdt.int64), "
      "pdt.eye(2, dtype=pdt.int64))", "NotImplementedError",
      r"cholesky_solve: not implemented for pydevtensor\.int64"),
    C("cholesky_inverse-singular", "pdt.cholesky_inverse(pdt.stack([pdt.eye(2), pdt.zeros(2, 2)]))",
      LAE, r"cholesky_inverse: \(Batch element 1\): The diagonal element 1 is zero, the "
      r"inversion could not be completed because the input matrix is singular"),
    C("linalg.eigh-not-square", "pdt.linalg.eigh(pdt.ones(2, 3))", "RuntimeError",
      r"linalg\.eigh: A must be batches of square matrices, but they are 2 by 3 matrices "
      r"\(shape \(2, 3\), on cpu\)"),
    C("linalg.eigh-uplo", "pdt.linalg.eigh(pdt.eye(2), UPLO='X')", "RuntimeError",
      r"linalg\.eigh: Expected UPLO argument to be 'L' or 'U', but got 'X' \(A of shape "
      r"\(2, 2\), on cpu\)"),
    C("linalg.eigvalsh-int", "pdt.linalg.eigvalsh(pdt.ones(2, 2, dtype=pdt.int64))",
      "NotImplementedError", r"linalg\.eigvalsh: Expected a floating point tensor as input. "
      r"Got Long \(shape \(2, 2\), on cpu\)"),
    C("linalg.svd-1d", "pdt.linalg.svd(pdt.ones(3))", "RuntimeError",
      r"linalg\.svd: The input tensor A must have at least 2 dimensions \(got shape \(3,\), "
      r"on cpu\)"),
    C("svd-1d", "pdt.svd(pdt.ones(3))", "RuntimeError",
      r"linalg\.svd: The input tensor A must have at least 2 dimensions \(got shape \(3,\), "
      r"on cpu\)"),
    C("linalg.svdvals-half", "pdt.linalg.svdvals(pdt.eye(2, dtype=pdt.float16))",
      "NotImplementedError", r"linalg\.svdvals: Low precision dtypes not supported. Got Half"),
    C("linalg.svd-nan", "pdt.linalg.svd(pdt.full((3, 2), float('nan')))", LAE,
      r"linalg\.svd: The algorithm failed to converge .*\(A of shape \(3, 2\), .*float32, "
      r"on cpu\)"),
    C("linalg.svd-driver", "pdt.linalg.svd(pdt.eye(2), driver='gesvdj')", "RuntimeError",
      r"linalg\.svd: driver='gesvdj' is not supported"),
    C("linalg.pinv-bool", "pdt.linalg.pinv(pdt.ones(2, 2, dtype=pdt.bool))",
      "NotImplementedError", r"linalg\.pinv: Expected a floating point tensor as input. "
      r"Got Bool"),
    C("linalg.matrix_rank-tol-and-atol", "pdt.linalg.matrix_rank(pdt.eye(2), tol=1, atol=1)",
      "RuntimeError", r"linalg\.matrix_rank: tol cannot be given with atol or rtol \(on cpu\)"),
    C("linalg.pinv-rcond-and-rtol", "pdt.linalg.pinv(pdt.eye(2), 0.5, rtol=0.1)",
      "RuntimeError", r"linalg\.pinv: rcond cannot be given with atol or rtol \(on cpu\)"),
    C("linalg.cholesky-input-twice", "pdt.linalg.cholesky(pdt.eye(2), input=pdt.eye(2))",
      "TypeError", r"cholesky\(\) got multiple values for argument 'A' \(PyTorch's native "
      r"name 'input'\)"),
    C("linalg.cond-p", "pdt.linalg.cond(pdt.eye(2), 3)", "RuntimeError",
      r"linalg\.cond: got an invalid norm type: 3 \(on cpu\)"),
    C("linalg.cond-not-square", "pdt.linalg.cond(pdt.ones(2, 3), 1)", "RuntimeError",
      r"linalg\.cond: A must be batches of square matrices, but they are 2 by 3"),
    C("linalg.qr-mode", "pdt.linalg.qr(pdt.eye(2), mode='full')", "RuntimeError",
      r"linalg\.qr: qr received unrecognized mode 'full' but expected one of 'reduced' "
      r"\(default\), 'r', or 'complete' \(on cpu\)"),
    C("linalg.qr-int", "pdt.linalg.qr(pdt.ones(3, 2, dtype=pdt.int32))", "NotImplementedError",
      r"linalg\.qr: Expected a floating point tensor as input. Got Int \(shape \(3, 2\), on "
      r"cpu\)"),
    C("linalg.lstsq-rows", "pdt.linalg.lstsq(pdt.ones(4, 3), pdt.ones(3, 2))", "RuntimeError",
      r"linalg\.lstsq: input\.size\(-2\) should match other\.size\(-2\) \(A \(4, 3\), B "
      r"\(3, 2\), on cpu\)"),
    C("linalg.lstsq-driver", "pdt.linalg.lstsq(pdt.ones(4, 3), pdt.ones(4, 2), driver='x')",
      "RuntimeError", r"linalg\.lstsq: parameter `driver` should be one of \(gels, gelsy, "
      r"gelsd, gelss\), got 'x' \(on cpu\)"),
    C("linalg.lstsq-dims", "pdt.linalg.lstsq(pdt.ones(2, 4, 3), pdt.ones(4))", "RuntimeError",
      r"linalg\.lstsq: input\.dim\(\) must be greater or equal to other\.dim\(\)"),
    C("linalg.lstsq-half", "pdt.linalg.lstsq(pdt.ones(4, 3, dtype=pdt.float16), pdt.ones(4, 2))",
      "NotImplementedError", r"linalg\.lstsq: Low precision dtypes not supported. Got Half"),
    C("linalg.ldl_factor-singular", "pdt.linalg.ldl_factor(pdt.zeros(2, 3, 3))", LAE,
      r"linalg\.ldl_factor: \(Batch element 0\): D\[0, 0\] of the LDL factorization is "
      r"exactly zero: the matrix is singular"),
    C("linalg.ldl_factor-not-square", "pdt.linalg.ldl_factor(pdt.ones(2, 3))", "RuntimeError",
      r"linalg\.ldl_factor: A must be batches of square matrices, but they are 2 by 3 "
      r"matrices"),
    C("linalg.ldl_factor_ex-int", "pdt.linalg.ldl_factor_ex(pdt.ones(2, 2, dtype=pdt.int64))",
      "NotImplementedError", r"linalg\.ldl_factor_ex: Expected a floating point tensor as "
      r"input. Got Long"),
    C("linalg.ldl_solve-rows", "pdt.linalg.ldl_solve(pdt.eye(3), pdt.tensor([1, 2, 3], "
      "dtype=pdt.int32), pdt.ones(4, 1))", "RuntimeError", r"linalg\.ldl_solve: Incompatible "
      r"matrix sizes: each A matrix is 3 by 3 but B has shape \(4, 1\)"),
    C("linalg.ldl_solve-pivots", "pdt.linalg.ldl_solve(pdt.eye(2), pdt.tensor([3, 1], "
      "dtype=pdt.int32), pdt.ones(2, 1))", "RuntimeError", r"linalg\.ldl_solve: pivots "
      r"\[3, 1\] are not an LDL factorization's of 2 by 2 matrices \(pivots\[0\] = 3\)"),
    C("linalg.ldl_solve-dtype", "pdt.linalg.ldl_solve(pdt.eye(2), pdt.tensor([1, 2], "
      "dtype=pdt.int32), pdt.ones(2, 1, dtype=pdt.float64))", "RuntimeError",
      r"linalg\.ldl_solve: Expected LD, pivots and B to have the same device and LD and B "
      r"the same dtype, but found LD .*float32 on cpu"),
    C("linalg.lu_factor-singular", "pdt.linalg.lu_factor(pdt.zeros(2, 3, 3))", LAE,
      r"linalg\.lu_factor: \(Batch element 0\): U\[0,0\] is zero and using it on lu_solve "
      r"would result in a division by zero"),
    C("linalg.lu-no-pivot", "pdt.linalg.lu(pdt.eye(2), pivot=False)", "RuntimeError",
      r"linalg\.lu: LU without pivoting is not implemented on the CPU"),
    C("linalg.lu_factor_ex-1d", "pdt.linalg.lu_factor_ex(pdt.ones(3))", "RuntimeError",
      r"linalg\.lu_factor_ex: Expected tensor with 2 or more dimensions. Got size: \[3\]"),
    C("linalg.lu_solve-pivots-dtype", "pdt.linalg.lu_solve(pdt.eye(2), pdt.ones(2, "
      "dtype=pdt.int64), pdt.ones(2, 1))", "RuntimeError",
      r"linalg\.lu_solve: pivots should be a Tensor of scalar type pydevtensor\.int32, got "
      r"pydevtensor\.int64 \(on cpu\)"),
    C("linalg.lu_solve-shapes", "pdt.linalg.lu_solve(pdt.eye(2), pdt.ones(2, dtype=pdt.int32), "
      "pdt.ones(3, 1))", "RuntimeError", r"linalg\.lu_solve: Incompatible shapes of A and B "
      r"for the equation AX = B: LU \(2, 2\), B \(3, 1\) \(on cpu\)"),
    C("lu_unpack-pivots-shape", "pdt.lu_unpack(pdt.eye(3), pdt.ones(2, dtype=pdt.int32))",
      "RuntimeError", r"lu_unpack: pivots of shape \(2,\) do not fit LU of shape \(3, 3\): "
      r"expected \(3,\) \(on cpu\)"),
    C("linalg.matrix_exp-not-square", "pdt.linalg.matrix_exp(pdt.ones(2, 3))", "RuntimeError",
      r"linalg\.matrix_exp: A must be batches of square matrices, but they are 2 by 3 "
      r"matrices \(shape \(2, 3\), on cpu\)"),
    C("matrix_exp-int", "pdt.matrix_exp(pdt.ones(2, 2, dtype=pdt.int64))",
      "NotImplementedError", r"matrix_exp: Expected a floating point tensor as input\. Got Long "
      r"\(shape \(2, 2\), on cpu\)"),
    C("linalg.vander-N", "pdt.linalg.vander(pdt.ones(3), N=1)", "RuntimeError",
      r"linalg\.vander: N must be greater than 1, got 1 \(x of shape \(3,\), on cpu\)"),
    C("cholesky_inverse-1d", "pdt.cholesky_inverse(pdt.ones(3))", "RuntimeError",
      r"cholesky_inverse: The input tensor A must have at least 2 dimensions"),
    C("linalg.polar-wide", "pdt.linalg.polar(pdt.ones(2, 3))", "RuntimeError",
      r"linalg\.polar: input must have at least as many rows as columns, but got 2 by 3 "
      r"matrices \(shape \(2, 3\), on cpu\)"),
    C("linalg.polar-int", "pdt.linalg.polar(pdt.ones(3, 2, dtype=pdt.int64))",
      "NotImplementedError", r"linalg\.polar: Expected a floating point tensor as input"),
    C("linalg.matrix_sqrth-not-square", "pdt.linalg.matrix_sqrth(pdt.ones(2, 3))",
      "RuntimeError", r"linalg\.matrix_sqrth: A must be batches of square matrices, but they "
      r"are 2 by 3 matrices"),
    C("linalg.matrix_sqrth-half", "pdt.linalg.matrix_sqrth(pdt.eye(2, dtype=pdt.float16))",
      "NotImplementedError", r"linalg\.matrix_sqrth: Low precision dtypes not supported"),
    C("linalg.vecdot-int", "pdt.linalg.vecdot(pdt.arange(3), pdt.arange(3))",
      "NotImplementedError", r"linalg\.vecdot: Expected a floating point tensor as input\. "
      r"Got pydevtensor\.int64 \(x of shape \(3,\), on cpu\)"),
    C("linalg.vander-bool", "pdt.linalg.vander(pdt.ones(3, dtype=pdt.bool))",
      "NotImplementedError", r"linalg\.vander supports floating point, complex, and integer "
      r"tensors, but got pydevtensor\.bool"),
    # torch.lobpcg (_linalg_lobpcg.py)
    C("lobpcg-too-many", "pdt.lobpcg(pdt.eye(5), k=2)", "ValueError",
      r"LOBPCG algorithm is not applicable when the number of A rows \(=5\) is smaller than 3 x "
      r"the number of requested eigenpairs \(=2\)"),
    C("lobpcg-not-square", "pdt.lobpcg(pdt.ones(6, 5))", "ValueError",
      r"lobpcg\(\): A must be square \(\*, m, m\), got shape \(6, 5\)"),
    C("lobpcg-int", "pdt.lobpcg(pdt.eye(6, dtype=pdt.int64))", "pydevtensor.DTypeError",
      r"lobpcg\(\): A must be float32 or float64, got pydevtensor.int64"),
    C("lobpcg-B-shape", "pdt.lobpcg(pdt.eye(6), B=pdt.eye(5))", "ValueError",
      r"A and B must have the same shape, dtype and device, got \(6, 6\)"),
    # torch.svd_lowrank / pca_lowrank (_linalg_lowrank.py)
    C("svd_lowrank-1d", "pdt.svd_lowrank(pdt.ones(3))", "ValueError",
      r"svd_lowrank\(\): A must have at least 2 dimensions \(\*, m, n\), got a 1-d tensor of "
      r"shape \(3,\)"),
    C("svd_lowrank-int", "pdt.svd_lowrank(pdt.ones(3, 3, dtype=pdt.int64), q=2)",
      "pydevtensor.DTypeError", r"svd_lowrank\(\): expected a floating-point A, got "
      r"pydevtensor\.int64"),
    C("pca_lowrank-q-too-large", "pdt.pca_lowrank(pdt.ones(5, 4), q=5)", "ValueError",
      r"q\(=5\) must be non-negative integer and not greater than min\(m, n\)=4"),
    C("pca_lowrank-list", "pdt.pca_lowrank([[1.0, 2.0]])", "TypeError",
      r"pca_lowrank\(\): argument 'A' must be a Tensor, got list"),
]
