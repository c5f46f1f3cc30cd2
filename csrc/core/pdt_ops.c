/* pdt_ops.c - the validated entry points: the one copy function (every crossing
 * between devices is counted here and nowhere else), fills, ranges and random
 * fills. */
#include "pdt_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdt_elementwise.h"
#include "pdt_half.h"
#include "pdt_index.h"
#include "pdt_index_errors.h"
#include "pdt_internal.h"

static pdt_copy_kind classify(pdt_device dst, pdt_device src)
{
    if (pdt_device_eq(dst, src))
        return dst.kind == PDT_CPU ? PDT_COPY_H2H : PDT_COPY_D2D;
    if (src.kind == PDT_CPU && dst.kind != PDT_CPU)
        return PDT_COPY_H2D;
    if (src.kind != PDT_CPU && dst.kind == PDT_CPU)
        return PDT_COPY_D2H;
    return PDT_COPY_PEER;
}

/* Copies between two contiguous tensors of one dtype on different devices. */
static pdt_status copy_across(const pdt_tensor *dst, const pdt_tensor *src, pdt_copy_kind kind,
                              int flags)
{
    size_t nbytes = (size_t)pdt_tensor_numel(src) * pdt_dtype_size(src->dtype);
    const pdt_backend *b = pdt_backend_of(kind == PDT_COPY_H2D ? dst->device.kind
                                                               : src->device.kind);
    if (kind == PDT_COPY_PEER && dst->device.kind != src->device.kind) {
        char a[32], c[32];
        return pdt_fail(PDT_ERR_UNSUPPORTED, "copies from %s to %s are not supported",
                        pdt_device_str(src->device, a, sizeof a),
                        pdt_device_str(dst->device, c, sizeof c));
    }
    if ((kind == PDT_COPY_H2D && pdt_tensor_is_pinned(src)) ||
        (kind == PDT_COPY_D2H && pdt_tensor_is_pinned(dst)))
        flags |= PDT_COPY_HOST_PINNED;
    pdt_status st = b->copy_bytes(kind, kind == PDT_COPY_D2H ? -1 : dst->device.index,
                                  pdt_tensor_ptr(dst),
                                  kind == PDT_COPY_H2D ? -1 : src->device.index,
                                  pdt_tensor_ptr(src), nbytes, flags);
    if (st != PDT_OK)
        return st;
    pdt_transfer_count(kind, nbytes);
    /* the host waited for the device, unless a non-blocking copy into pinned
     * memory: errors of its index checks are reported here (Note [deferred
     * index checks] in pdt_index.h) */
    if (kind == PDT_COPY_D2H &&
        !((flags & PDT_COPY_HOST_PINNED) && (flags & PDT_COPY_NON_BLOCKING)))
        return pdt_index_errors_report(src->device);
    return PDT_OK;
}

pdt_status pdt_copy(const pdt_tensor *dst, const pdt_tensor *src, int flags)
{
    char ds[160], ss[160], dn[32], sn[32];
    if (!pdt_same_shape(dst, src))
        return pdt_fail(PDT_ERR_VALUE,
                        "copy: shape mismatch: destination %s on %s, source %s on %s",
                        pdt_shape_str(dst->ndim, dst->shape, ds, sizeof ds),
                        pdt_device_str(dst->device, dn, sizeof dn),
                        pdt_shape_str(src->ndim, src->shape, ss, sizeof ss),
                        pdt_device_str(src->device, sn, sizeof sn));
    int64_t numel = pdt_tensor_numel(src);
    pdt_copy_kind kind = classify(dst->device, src->device);
    if (numel == 0)
        return PDT_OK;
    if (pdt_tensor_internal_overlap(dst))
        return pdt_fail(PDT_ERR_VALUE,
                        "copy_: unsupported operation: more than one element of the written-to "
                        "tensor refers to a single memory location (shape %s with strides %s on "
                        "%s); clone() it first",
                        pdt_shape_str(dst->ndim, dst->shape, ds, sizeof ds),
                        pdt_shape_str(dst->ndim, dst->strides, ss, sizeof ss),
                        pdt_device_str(dst->device, dn, sizeof dn));

    if (kind == PDT_COPY_H2H || kind == PDT_COPY_D2D) {
        const pdt_backend *b = pdt_backend_of(dst->device.kind);
        pdt_status st;
        pdt_note_op("copy", dst->device);
        if (kind == PDT_COPY_D2D) {
            st = pdt_note_copy(kind, dst->device, src->device,
                               (size_t)numel * pdt_dtype_size(dst->dtype));
            if (st != PDT_OK)
                return st;
        }
        /* Dense alike (contiguous, or clone() and to(dtype) of a.T: Note [memory
         * order] in pdt_tensor.h): one run of bytes, or a cast of one row. */
        const int alike = pdt_same_dense_layout(dst, src);
        if (alike && dst->dtype == src->dtype) {
            st = b->copy_bytes(kind, dst->device.index, pdt_tensor_ptr(dst), src->device.index,
                               pdt_tensor_ptr(src), (size_t)numel * pdt_dtype_size(dst->dtype),
                               flags);
        } else if (alike) {
            pdt_tensor fd, fs;
            pdt_tensor_flat(&fd, dst);
            pdt_tensor_flat(&fs, src);
            st = b->copy_cast(&fd, &fs);
        } else
            st = b->copy_cast(dst, src);
        if (st == PDT_OK && kind == PDT_COPY_D2D)
            pdt_transfer_count(kind, (size_t)numel * pdt_dtype_size(dst->dtype));
        return st;
    }

    /* Across devices: make the source contiguous in the destination's dtype on
     * its own device, move the bytes, then scatter into dst if it is strided. */
    pdt_status st = pdt_note_copy(kind, dst->device, src->device,
                                  (size_t)numel * pdt_dtype_size(dst->dtype));
    if (st != PDT_OK)
        return st;
    pdt_tensor src_tmp = {0}, dst_tmp = {0};
    const pdt_tensor *from = src, *to = dst;
    if (src->dtype != dst->dtype || !pdt_tensor_is_contiguous(src)) {
        st = pdt_tensor_empty(src->device, dst->dtype, src->ndim, src->shape, 0, &src_tmp);
        if (st != PDT_OK)
            goto done;
        st = pdt_backend_of(src->device.kind)->copy_cast(&src_tmp, src);
        if (st != PDT_OK)
            goto done;
        from = &src_tmp;
    }
    if (!pdt_tensor_is_contiguous(dst)) {
        st = pdt_tensor_empty(dst->device, dst->dtype, dst->ndim, dst->shape, 0, &dst_tmp);
        if (st != PDT_OK)
            goto done;
        to = &dst_tmp;
    }
    st = copy_across(to, from, kind, to != dst ? flags | PDT_COPY_DST_FRESH : flags);
    if (st == PDT_OK && to != dst)
        st = pdt_backend_of(dst->device.kind)->copy_cast(dst, to);
done:
    pdt_tensor_release(&src_tmp);
    pdt_tensor_release(&dst_tmp);
    return st;
}

/* Copies src into the freshly made out, releasing out when the copy fails (so the copy
 * need not keep out whole: PDT_COPY_DST_FRESH). */
static pdt_status fill_new(pdt_tensor *out, const pdt_tensor *src, int copy_flags)
{
    pdt_status st = pdt_copy(out, src, copy_flags | PDT_COPY_DST_FRESH);
    if (st != PDT_OK)
        pdt_tensor_release(out);
    return st;
}

pdt_status pdt_copy_to_new(const pdt_tensor *src, pdt_device device, pdt_dtype dtype,
                           int storage_flags, int copy_flags, pdt_tensor *out)
{
    pdt_status st = pdt_tensor_empty(device, dtype, src->ndim, src->shape, storage_flags, out);
    return st != PDT_OK ? st : fill_new(out, src, copy_flags);
}

pdt_status pdt_copy_to_new_in_order(const pdt_tensor *src, pdt_dtype dtype, pdt_tensor *out)
{
    int perm[PDT_MAX_DIMS];
    int moved = !pdt_tensor_is_contiguous(src) && pdt_memory_order(src, perm);
    pdt_status st = pdt_tensor_empty_in_order(src->device, dtype, src->ndim, src->shape,
                                              moved ? perm : NULL, out);
    return st != PDT_OK ? st : fill_new(out, src, 0);
}

/* 1 when v, truncated toward zero (Note [float to int]), fits the integer
 * dtype dt (always for the others); never for NaN. */
static int fits_int_dtype(pdt_dtype dt, double v)
{
    if (dt == PDT_INT32 || pdt_dtype_is_small_int(dt)) {
        int64_t lo, hi;
        pdt_int_range(dt, &lo, &hi);
        return v > (double)lo - 1.0 && v < (double)hi + 1.0;
    }
    if (dt == PDT_INT64)
        return v >= -0x1p63 && v < 0x1p63;
    return 1;
}

int pdt_scalar_fits(pdt_dtype dt, pdt_scalar value)
{
    double d = value.is_float ? value.f : (double)value.i;
    switch (dt) {
    case PDT_BOOL:
    case PDT_FLOAT64: return 1;
    case PDT_FLOAT32: return !isfinite(d) || isfinite((float)d);
    case PDT_FLOAT16: /* the rounded value's exponent field all ones: an infinity */
        return !isfinite(d) || (pdt_f64_to_f16(d) & 0x7c00u) != 0x7c00u;
    case PDT_BFLOAT16: return !isfinite(d) || (pdt_f64_to_bf16(d) & 0x7f80u) != 0x7f80u;
    case PDT_INT64: return !value.is_float || fits_int_dtype(dt, d);
    default: {
        if (value.is_float)
            return fits_int_dtype(dt, d);
        int64_t lo, hi;
        pdt_int_range(dt, &lo, &hi);
        return value.i >= lo && value.i <= hi;
    }
    }
}

void pdt_number_str(pdt_scalar value, char *buf, size_t n)
{
    if (!value.is_float) {
        snprintf(buf, n, "%lld", (long long)value.i);
        return;
    }
    for (int digits = 6; digits <= 17; digits += digits < 15 ? 9 : 1) { /* 6, 15, 16, 17 */
        snprintf(buf, n, "%.*g", digits, value.f);
        if (strtod(buf, NULL) == value.f || value.f != value.f)
            return;
    }
}

/* pdt_fill, or with operand pdt_fill_operand */
static pdt_status fill_as(const pdt_tensor *dst, pdt_scalar value, int operand)
{
    /* A number the dtype cannot hold is refused, as PyTorch refuses it, not wrapped,
     * saturated or made infinite (tensors cast from floats saturate: Note [float to
     * int]): an int past int32, a float that is NaN, infinite or past an integer
     * dtype's range (a float within it is truncated toward zero), a finite number
     * rounding to an infinity in a float dtype (not for an operand).  Checked before
     * any element is written. */
    if (!(operand && pdt_dtype_is_floating(dst->dtype)) && !pdt_scalar_fits(dst->dtype, value)) {
        char dev[32], num[40], what[48] = "";
        const long long n = (long long)pdt_tensor_numel(dst);
        pdt_number_str(value, num, sizeof num);
        if (dst->ndim) /* (a 0-d dst is a number being made for an op: no count) */
            snprintf(what, sizeof what, "filling %lld element%s ", n, n == 1 ? "" : "s");
        return pdt_fail(PDT_ERR_VALUE,
                        "fill: the value %s cannot be converted to %s without overflow (%son %s)",
                        num, pdt_dtype_name(dst->dtype), what,
                        pdt_device_str(dst->device, dev, sizeof dev));
    }
    if (pdt_tensor_numel(dst) == 0)
        return PDT_OK;
    pdt_note_op("fill", dst->device);
    return pdt_backend_of(dst->device.kind)->fill(dst, value);
}

pdt_status pdt_fill(const pdt_tensor *dst, pdt_scalar value) { return fill_as(dst, value, 0); }

pdt_status pdt_fill_operand(const pdt_tensor *dst, pdt_scalar value)
{
    return fill_as(dst, value, 1);
}

pdt_status pdt_arange(const char *name, const pdt_tensor *dst, double start, double step)
{
    if (dst->ndim != 1 || !pdt_tensor_is_contiguous(dst))
        return pdt_fail(PDT_ERR_VALUE, "%s: destination must be contiguous and 1-d", name);
    if (dst->shape[0] == 0)
        return PDT_OK;
    /* As fill does: an integer dtype that cannot hold a value is refused, not
     * saturated.  The values are monotonic, so the two ends say it all.  The small
     * integers wrap instead, as in PyTorch (arange(250, 260, dtype=uint8) goes on
     * 0, 1, ...; Note [float to small int]). */
    double ends[2] = {start, start + (double)(dst->shape[0] - 1) * step};
    char dev[32];
    for (int e = 0; e < 2 && !pdt_dtype_is_small_int(dst->dtype); e++)
        if (!fits_int_dtype(dst->dtype, ends[e]))
            return pdt_fail(PDT_ERR_VALUE,
                            "%s: the value %.17g (element %lld of %lld, on %s) cannot be converted "
                            "to %s without overflow",
                            name, ends[e], e ? (long long)dst->shape[0] - 1 : 0LL,
                            (long long)dst->shape[0], pdt_device_str(dst->device, dev, sizeof dev),
                            pdt_dtype_name(dst->dtype));
    pdt_note_op(name, dst->device);
    return pdt_backend_of(dst->device.kind)->arange(dst, start, step);
}

/* Note [half draws and the upper bound]: a draw below b (high) can round up to b: a
 * float32 uniform rounded to float16 or bfloat16 (rand() gave 1.0 about once in
 * 4,000 draws, and exponential_ then inf), an integer past a float dtype's exact
 * range (randint(0, 3000, dtype=float16) gave 3000), a + (b - a) u rounded in float32
 * (uniform_(1, 2) can give 2).  Those elements become a (low), as PyTorch's CUDA
 * kernels map a draw equal to the upper bound to the lower one: dst = dst >= upper ?
 * lower : dst, on every device alike.  U[0, 1) itself needs no pass in float32 and
 * float64 (its largest draw, 1 - 2^-24 or 1 - 2^-53, is exact).
 * The comparison is made in dst's dtype, so both bounds are first taken to the
 * smallest value of that dtype at or above them (at_least): b rounded to the nearest
 * one could fall below b, and a value that is in [a, b) then counted as b
 * (random_(255, 257) of a bfloat16 tensor never gave 256, b = 257 being 256 there).
 * A bound a that the dtype does not hold rounded its draws below a: those become the
 * smallest value at or above a too (bfloat16's randint(-65504, -65270) gave -65536). */
static uint16_t half_bits_up(uint16_t b)
{
    if (b == 0x8000)
        return 0x0001; /* -0: the smallest positive subnormal */
    return (b & 0x8000) ? (uint16_t)(b - 1) : (uint16_t)(b + 1);
}

/* The smallest value of dtype dt (a floating one) that is >= v, or the integer iv when
 * is_int (v is then (double)iv, which may have rounded). */
static double at_least(pdt_dtype dt, double v, int is_int, int64_t iv)
{
    if (is_int && v < 9223372036854775808.0 && (int64_t)v < iv)
        v = nextafter(v, INFINITY); /* (double)iv rounded down */
    if (dt == PDT_FLOAT32) {
        float f = (float)v;
        return (double)f < v ? (double)nextafterf(f, INFINITY) : (double)f;
    }
    if (dt == PDT_FLOAT16 || dt == PDT_BFLOAT16) {
        int bf = dt == PDT_BFLOAT16;
        uint16_t b = bf ? pdt_f64_to_bf16(v) : pdt_f64_to_f16(v);
        double r = bf ? pdt_bf16_to_f32(b) : pdt_f16_to_f32(b);
        if (r < v)
            b = half_bits_up(b);
        return bf ? pdt_bf16_to_f32(b) : pdt_f16_to_f32(b);
    }
    return v;
}

/* dst = dst <op> bound ? value : dst, on dst's device. */
static pdt_status remap_where(const pdt_tensor *dst, pdt_binary_op op, double bound_value,
                              double value)
{
    pdt_arg x, bound;
    memset(&x, 0, sizeof x);
    memset(&bound, 0, sizeof bound);
    x.t = dst;
    bound.s.is_float = 1;
    bound.s.f = bound_value;
    pdt_tensor mask, low_value;
    memset(&mask, 0, sizeof mask);
    memset(&low_value, 0, sizeof low_value);
    pdt_status st = pdt_binary("rand", op, x, bound, NULL, &mask);
    if (st == PDT_OK)
        st = pdt_tensor_empty(dst->device, dst->dtype, 0, NULL, 0, &low_value);
    if (st == PDT_OK)
        st = pdt_fill(&low_value, (pdt_scalar){1, value, 0});
    if (st == PDT_OK) {
        pdt_tensor spread = low_value; /* the one value, broadcast to dst's shape */
        spread.ndim = dst->ndim;
        for (int i = 0; i < dst->ndim; i++)
            spread.shape[i] = dst->shape[i], spread.strides[i] = 0;
        st = pdt_where(dst, &mask, &spread, dst);
    }
    pdt_tensor_release(&mask);
    pdt_tensor_release(&low_value);
    return st;
}

/* The pass of Note [half draws and the upper bound] for a draw into a floating dst:
 * U[a, b) or, when is_int, the integers of [low, high).  A float32 or float64 uniform
 * compares with b as before (no pass for a). */
static pdt_status within_bounds(const pdt_tensor *dst, int is_int, int half, double a, double b,
                                int64_t low, int64_t high)
{
    if (!is_int && !half)
        return remap_where(dst, PDT_OP_GE, b, a);
    double lower = is_int ? (double)low : a;
    double low_t = at_least(dst->dtype, lower, is_int, low);
    double high_t = at_least(dst->dtype, is_int ? (double)high : b, is_int, high);
    pdt_status st = remap_where(dst, PDT_OP_GE, high_t, low_t);
    /* a not held exactly: draws may have rounded below it */
    int exact = low_t == lower &&
                (!is_int || (lower < 9223372036854775808.0 && (int64_t)lower == low));
    if (st == PDT_OK && !exact)
        st = remap_where(dst, PDT_OP_LT, low_t, low_t);
    return st;
}

pdt_status pdt_random(const pdt_tensor *dst, pdt_generator *generator, pdt_random_kind kind,
                      double a, double b, int64_t low, int64_t high)
{
    if (!pdt_tensor_is_contiguous(dst))
        return pdt_fail(PDT_ERR_VALUE, "random fill: destination must be contiguous");
    if (kind == PDT_RANDOM_INT && high <= low)
        return pdt_fail(PDT_ERR_VALUE, "randint: high (%lld) must be greater than low (%lld)",
                        (long long)high, (long long)low);
    /* As fill does: bounds an int32 (a small integer) cannot hold are refused, not
     * saturated. */
    char dev[32];
    int64_t lo, hi;
    pdt_int_range(dst->dtype, &lo, &hi);
    if (kind == PDT_RANDOM_INT &&
        (dst->dtype == PDT_INT32 || dst->dtype == PDT_BOOL || pdt_dtype_is_small_int(dst->dtype)) &&
        (low < lo || high - 1 > hi))
        return pdt_fail(PDT_ERR_VALUE,
                        "randint: the value %lld (%s) cannot be converted to %s without "
                        "overflow (randint(%lld, %lld) on %s)",
                        low < lo ? (long long)low : (long long)(high - 1),
                        low < lo ? "low" : "high - 1", pdt_dtype_name(dst->dtype), (long long)low,
                        (long long)high, pdt_device_str(dst->device, dev, sizeof dev));
    /* float16's finite range is [-65504, 65504]: a bound past it gave inf, then low
     * everywhere (randint(0, 2**30, dtype=float16) was all zeros); refused, as PyTorch's
     * ("to - 1 is out of bounds for c10::Half").  The other float dtypes hold int64. */
    if (kind == PDT_RANDOM_INT && dst->dtype == PDT_FLOAT16 && (low < -65504 || high - 1 > 65504))
        return pdt_fail(PDT_ERR_VALUE,
                        "randint: the value %lld (%s) is out of bounds for float16 (its finite "
                        "range is [-65504, 65504]; randint(%lld, %lld) on %s)",
                        low < -65504 ? (long long)low : (long long)(high - 1),
                        low < -65504 ? "low" : "high - 1", (long long)low, (long long)high,
                        pdt_device_str(dst->device, dev, sizeof dev));
    int64_t numel = pdt_tensor_numel(dst);
    if (numel == 0)
        return PDT_OK;
    /* Note [Philox layout] in pdt_philox.h: 4 float32 uniforms per block, else 2. */
    /* A half dst takes float32 numbers rounded once (Note [half precision
     * arithmetic] in pdt_half.h): the same on every device. */
    pdt_dtype gen = pdt_compute_dtype(dst->dtype);
    int64_t per_block = (kind == PDT_RANDOM_UNIFORM && gen == PDT_FLOAT32) ? 4 : 2;
    pdt_random_spec spec = {kind, 0, 0, a, b, low, high};
    const pdt_backend *be = pdt_backend_of(dst->device.kind);
    pdt_tensor wide;
    if (gen != dst->dtype) {
        pdt_status st = pdt_tensor_empty(dst->device, gen, dst->ndim, dst->shape, 0, &wide);
        if (st != PDT_OK)
            return st;
    }
    pdt_random_claim(generator, (uint64_t)((numel + per_block - 1) / per_block), &spec);
    pdt_note_op(kind == PDT_RANDOM_INT      ? "randint"
                : kind == PDT_RANDOM_NORMAL ? "randn"
                                            : "rand",
                dst->device);
    pdt_status st;
    if (gen == dst->dtype) {
        st = be->random(dst, &spec);
    } else {
        st = be->random(&wide, &spec);
        if (st == PDT_OK)
            st = be->copy_cast(dst, &wide);
        pdt_tensor_release(&wide);
    }
    /* Note [half draws and the upper bound]: where rounding can reach it (a half dst,
     * an integer in a float dtype, a float U[a, b) other than U[0, 1)) */
    int floating = pdt_dtype_is_floating(dst->dtype);
    if (st == PDT_OK && floating && kind != PDT_RANDOM_NORMAL &&
        (gen != dst->dtype || kind == PDT_RANDOM_INT ||
         (kind == PDT_RANDOM_UNIFORM && (a != 0.0 || b != 1.0))))
        st = within_bounds(dst, kind == PDT_RANDOM_INT, gen != dst->dtype, a, b, low, high);
    return st;
}

pdt_status pdt_synchronize(pdt_device d)
{
    pdt_status st = pdt_device_check(d);
    if (st != PDT_OK)
        return st;
    const pdt_backend *b = pdt_backend_of(d.kind);
    st = b->synchronize ? b->synchronize(d.index) : PDT_OK;
    return st != PDT_OK ? st : pdt_index_errors_report(d);
}

pdt_status pdt_same_device(const char *op, int n, const pdt_tensor *const *ts,
                           const char *const *names, pdt_device *device)
{
    int first = -1;
    for (int i = 0; i < n; i++) {
        if (!ts[i])
            continue;
        if (first < 0) {
            first = i;
            continue;
        }
        if (!pdt_device_eq(ts[i]->device, ts[first]->device)) {
            char a[32], b[32];
            pdt_device_str(ts[first]->device, a, sizeof a);
            pdt_device_str(ts[i]->device, b, sizeof b);
            return pdt_fail(PDT_ERR_DEVICE,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and %s! (in %s: argument '%s' is on %s, while '%s' "
                            "is on %s; move one with .to(), no copy is made for you)",
                            a, b, op, names[i], b, names[first], a);
        }
    }
    if (first < 0)
        return pdt_fail(PDT_ERR_VALUE, "%s: no tensor arguments", op);
    *device = ts[first]->device;
    return PDT_OK;
}

pdt_status pdt_cat_checked(int n, const pdt_tensor *const *ts, int dim, pdt_tensor *result)
{
    memset(result, 0, sizeof *result);
    int64_t shape[PDT_MAX_DIMS];
    for (int k = 0; k < ts[0]->ndim; k++)
        shape[k] = ts[0]->shape[k];
    shape[dim] = 0;
    for (int i = 0; i < n; i++) {
        /* each size is below 2^62 (PDT_MAX_NUMEL); the sum saturates there, and the
         * allocation below refuses it with the sizes in its message */
        shape[dim] += ts[i]->shape[dim];
        if (shape[dim] > PDT_MAX_NUMEL)
            shape[dim] = PDT_MAX_NUMEL;
    }
    pdt_status st = pdt_tensor_empty(ts[0]->device, ts[0]->dtype, ts[0]->ndim, shape, 0, result);
    if (st != PDT_OK)
        return st;
    int64_t at = 0;
    for (int i = 0; i < n && st == PDT_OK; i++) {
        int64_t len = ts[i]->shape[dim];
        if (len == 0)
            continue;
        pdt_tensor part = *result; /* borrowed: result's slice [at, at + len) along dim */
        part.shape[dim] = len;
        part.offset += at * result->strides[dim];
        st = pdt_copy(&part, ts[i], 0);
        at += len;
    }
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}
