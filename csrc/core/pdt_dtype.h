/* pdt_dtype.h - element types, scalars, and NumPy's promotion rules. */
#ifndef PDT_DTYPE_H
#define PDT_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ordered so that a larger value is a "higher" kind for promotion. */
typedef enum pdt_dtype {
    PDT_BOOL = 0,
    PDT_INT32 = 1,
    PDT_INT64 = 2,
    PDT_FLOAT32 = 3,
    PDT_FLOAT64 = 4,
} pdt_dtype;
#define PDT_NUM_DTYPES 5

/* A Python-side scalar: either an integer (bool included) or a float. */
typedef struct pdt_scalar {
    int is_float; /* 1: use f; 0: use i */
    double f;
    int64_t i;
} pdt_scalar;

size_t pdt_dtype_size(pdt_dtype dt);
const char *pdt_dtype_name(pdt_dtype dt); /* "float32", ... */
int pdt_dtype_is_floating(pdt_dtype dt);
int pdt_dtype_valid(int dt);
/* The result dtype of a binary op between a and b (NumPy/PyTorch rules). */
pdt_dtype pdt_promote(pdt_dtype a, pdt_dtype b);

#ifdef __cplusplus
}
#endif
#endif /* PDT_DTYPE_H */
