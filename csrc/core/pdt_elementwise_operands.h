/* pdt_elementwise_operands.h - the elementwise ops' operands made ready for a
 * backend call: scalars in the compute dtype, tensors cast into temporaries or viewed
 * at the output's shape, and the tensor the backend writes.  Included by the binary
 * ops (pdt_elementwise.c) and the unary ones (pdt_elementwise_unary.c) only.  The
 * functions are static inline: in a file of their own they were calls across
 * translation units on the small-op path, and a unary op on 4 elements took 10 ns
 * more (162 -> 172 ns for exp), LTO notwithstanding. */
#ifndef PDT_ELEMENTWISE_OPERANDS_H
#define PDT_ELEMENTWISE_OPERANDS_H

#include <string.h>

#include "pdt_elementwise_impl.h"
#include "pdt_ops.h"

/* v becomes a borrowed view of x at the broadcast shape (stride 0 where x has
 * size 1 or no dimension).  v holds no storage reference: never release it. */
static inline void broadcast_view(const pdt_tensor *x, int ndim, const int64_t *shape,
                                  pdt_tensor *v)
{
    int64_t strides[PDT_MAX_DIMS];
    for (int i = 0; i < ndim; i++) {
        int j = i - (ndim - x->ndim);
        strides[i] = j >= 0 && x->shape[j] != 1 ? x->strides[j] : 0;
    }
    *v = *x;
    v->ndim = ndim;
    memcpy(v->shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(v->strides, strides, (size_t)ndim * sizeof *strides);
}

static inline void pdt_ew_prepared_release(pdt_ew_prepared *p)
{
    if (p->has_tmp & 1)
        pdt_tensor_release(&p->tmp);
    if (p->has_tmp & 2)
        pdt_tensor_release(&p->half);
    p->has_tmp = 0;
}

/* Copies x (cast to dtype) into p->tmp, a new dense tensor in x's memory order. */
static inline pdt_status copy_to_temp(const pdt_tensor *x, pdt_dtype dtype, pdt_ew_prepared *p)
{
    int perm[PDT_MAX_DIMS]; /* x's memory order, so that the cast reads x front to back */
    pdt_status st = pdt_tensor_empty_in_order(
        x->device, dtype, x->ndim, x->shape,
        !pdt_tensor_is_contiguous(x) && pdt_memory_order(x, perm) ? perm : NULL, &p->tmp);
    if (st != PDT_OK)
        return st;
    p->has_tmp |= 1;
    if (pdt_ew_numel_of(x->ndim, x->shape) == 0)
        return PDT_OK;
    return pdt_backend_of(x->device.kind)->copy_cast(&p->tmp, x);
}

/* Note [integers and halves]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An integer tensor meeting a float16 or bfloat16 one gives a half result (PyTorch's
 * promotion), and PyTorch casts its operands to that common dtype before the op:
 * tensor([257]) - tensor([256.], dtype=bfloat16) is 256 - 256 = 0, since 257 has no
 * bfloat16.  Cast straight to the float32 the op computes in, the integer kept its
 * value and the difference was 1.  So an integer tensor wider than a byte is rounded
 * to the half type first (int8 and uint8 are exact in both), on every device.  Python
 * scalars and 0-d tensors: Note [scalars meeting halves] in pdt_elementwise.c. */
static inline pdt_status round_to_half(const pdt_tensor **src, pdt_dtype half, int floats,
                                       pdt_ew_prepared *p)
{
    const pdt_dtype dt = (*src)->dtype;
    if (!pdt_dtype_is_half(half) || dt == half || pdt_dtype_size(dt) <= 1 ||
        (pdt_dtype_is_floating(dt) && !floats))
        return PDT_OK;
    pdt_status st = pdt_tensor_empty((*src)->device, half, (*src)->ndim, (*src)->shape, 0,
                                     &p->half);
    if (st != PDT_OK)
        return st;
    p->has_tmp |= 2;
    if (pdt_ew_numel_of((*src)->ndim, (*src)->shape) > 0 &&
        (st = pdt_backend_of((*src)->device.kind)->copy_cast(&p->half, *src)) != PDT_OK)
        return st;
    *src = &p->half;
    return PDT_OK;
}

/* x.t: the tensor; x.s already converted when it is a scalar.  target: the
 * tensor the backend will write; fresh: target is a new tensor (no overlap
 * with anything); common: the operands' common dtype (Note [integers and
 * halves]); floats: a wider floating x (a 0-d tensor) is rounded to a half
 * common dtype too (Note [scalars meeting halves] in pdt_elementwise.c). */
static inline pdt_status pdt_ew_prepare(pdt_arg x, pdt_dtype compute, pdt_dtype common, int floats,
                                        const pdt_tensor *target, int fresh, pdt_ew_prepared *p)
{
    p->has_tmp = 0;
    if (!x.t) {
        p->op.t = NULL;
        p->op.s = x.s;
        return PDT_OK;
    }
    memset(&p->op.s, 0, sizeof p->op.s);
    const pdt_tensor *src = x.t;
    pdt_status st = compute == PDT_BOOL ? PDT_OK : round_to_half(&src, common, floats, p);
    if (st != PDT_OK)
        return st;
    if (src->dtype != compute) {
        st = copy_to_temp(src, compute, p);
        if (st != PDT_OK)
            return st;
        src = &p->tmp;
    } else if (!fresh) {
        broadcast_view(src, target->ndim, target->shape, &p->view);
        if (pdt_tensor_overlaps_partly(&p->view, target)) {
            st = copy_to_temp(src, compute, p);
            if (st != PDT_OK)
                return st;
            src = &p->tmp;
        }
    }
    if (pdt_same_shape(src, target)) {
        p->op.t = src;
    } else {
        broadcast_view(src, target->ndim, target->shape, &p->view);
        p->op.t = &p->view;
    }
    return PDT_OK;
}

/* Where the backend writes: the new result (of dtype res), the output itself,
 * or, when the destination's dtype differs from the dtype the backend writes
 * (wide: res, or float32 for a half res), a temporary cast into it after.
 * *dest: the new result or the output. */
static inline pdt_status pdt_ew_make_target(pdt_device dev, pdt_dtype res, pdt_dtype wide, int ndim,
                                            const int64_t *shape, const int *perm,
                                            const pdt_tensor *out, pdt_tensor *result,
                                            pdt_ew_prepared *tmp, const pdt_tensor **target,
                                            const pdt_tensor **dest)
{
    pdt_status st = PDT_OK;
    tmp->has_tmp = 0;
    if (!out) {
        st = pdt_tensor_empty_in_order(dev, res, ndim, shape, perm, result);
        *target = *dest = result;
        if (st != PDT_OK || res == wide)
            return st;
    } else {
        *target = *dest = out;
        if (out->dtype == wide)
            return PDT_OK;
    }
    st = pdt_tensor_empty_in_order(dev, wide, ndim, shape, out ? NULL : perm, &tmp->tmp);
    tmp->has_tmp = st == PDT_OK;
    *target = &tmp->tmp;
    if (st != PDT_OK && !out)
        pdt_tensor_release(result);
    return st;
}

#endif /* PDT_ELEMENTWISE_OPERANDS_H */
