/* tensor_setitem.c - x[key] = value in Tensor's subscript assignment slot, without the
 * setitem hook's Python, for the keys and values of Note [mask writes in C]: a bool mask
 * and a number, an int64 vector or coordinates and a number or a tensor.  Other keys and
 * values, and tensors under autograd, go to the hook (pydevtensor/_ops_getitem.py). */
#include <string.h>

#include "args.h"
#include "pdt_index.h"
#include "pdt_view.h"
#include "wide_ints.h"

int pdt_write_done(pdt_state *S, PyObject *self, pdt_status st)
{
    if (st == PDT_ERR_UNSUPPORTED)
        return 0;
    if (st != PDT_OK) {
        pdt_raise(S, st);
        return -1;
    }
    pdt_bump_version(self); /* Note [version counter] */
    return 1;
}

/* Note [mask writes in C]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * x[mask] = number (`x[x < 0] = 0`) went through the setitem hook's Python: the key
 * looked at item by item, then masked_fill_, a new tensor copied back: 3.7 us for eight
 * rows of four float32 and 11.9 for 1,000 rows, NumPy's 1.4 and 7.5.  For a bool Tensor
 * key over x's leading dims (or all of them), on x's device, a Python number whose kind
 * x's dtype holds (a bool; an int into an integer or float x; a float into a float x),
 * and a contiguous x that requires no grad (nor its base), the subscript slot writes it
 * here: one where(mask, number, x) into x itself (elementwise, each element read before
 * it is written), the mask and the number as views broadcast to x's shape (on the CPU a
 * mask over fewer dims than x's fills x's rows: Note [mask rows filled in place] in
 * cpu_where.c).  x[v] = value for an int64
 * vector v (CPU; value a number, or a tensor of x's dtype that requires no grad, broadcast
 * to the rows) is one index_put (Note [index_put by rows] in cpu_index.c), and x[rows,
 * cols] = value the coordinates' put (Note [coordinates in C] in tensor_coords.c): eight
 * rows x[v] = 0 2.1 -> 0.3 us (NumPy 1.2), 500 of 1,000 rows 11.3 -> 1.6 (5.8).  The
 * conditions are checked again on held views after the number is made (making it may run
 * Python, which may rebind x.data), and a mask sharing x's memory (not x itself) goes
 * to the hook (in place, its bytes would be read after they were written).  Every other
 * key, value and tensor takes the hook, with its errors. */

int pdt_number_refused(pdt_state *S, const char *op, pdt_scalar v, const pdt_tensor *x)
{
    if (pdt_scalar_fits(x->dtype, v))
        return 0;
    char num[40], shape[96], dev[32];
    pdt_number_str(v, num, sizeof num);
    pdt_raise(S, pdt_fail(PDT_ERR_VALUE,
                          "%s: the value %s cannot be converted to %s without overflow (into a "
                          "tensor of shape %s on %s)",
                          op, num, pdt_dtype_name(x->dtype),
                          pdt_shape_str(x->ndim, x->shape, shape, sizeof shape),
                          pdt_device_str(x->device, dev, sizeof dev)));
    return -1;
}

/* value as a 0-d tensor of x's dtype on its device, in *number: 1; 0 (nothing made, no
 * error) when value is not a Python number of a kind x's dtype holds (a bool; an int into
 * an integer or float x; a float into a float x); -1 with an exception set (a number x's
 * dtype cannot hold: pdt_number_refused, naming op). */
int pdt_number_for(pdt_state *S, const char *op, const pdt_tensor *x, PyObject *value,
                   pdt_tensor *number)
{
    int kind = pdt_number_category(value);
    if (kind < 0 || kind > pdt_dtype_category(x->dtype))
        return 0;
    pdt_scalar v;
    if (pdt_parse_number_into(value, "setitem: value", x, &v) < 0 ||
        pdt_number_refused(S, op, v, x) < 0)
        return -1;
    pdt_status st = pdt_tensor_empty(x->device, x->dtype, 0, NULL, 0, number);
    if (st == PDT_OK && (st = pdt_fill(number, v)) != PDT_OK)
        pdt_tensor_release(number);
    if (st != PDT_OK) {
        pdt_raise(S, st);
        return -1;
    }
    return 1;
}

/* x[v] = value for an int64 vector v on the CPU x's: one index_put of value broadcast to
 * the rows (Note [mask writes in C]); 0 for values that do not broadcast and an index
 * out of range, whose messages the hook's path gives (the CPU checks every index
 * before writing). */
static int vector_put(pdt_state *S, PyObject *self, const pdt_tensor *x, const pdt_tensor *v,
                      const pdt_tensor *value)
{
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    x = pdt_hold_view(&h, x), v = pdt_hold_view(&h, v), value = pdt_hold_view(&h, value);
    int64_t shape[PDT_MAX_DIMS]; /* (len(v),) then x's other dims */
    memcpy(shape, x->shape, (size_t)x->ndim * sizeof *shape);
    shape[0] = v->shape[0];
    pdt_tensor src;
    pdt_status st = pdt_expand("index_put", value, x->ndim, shape, &src);
    if (st == PDT_OK) {
        PDT_RUN_RELEASING_GIL(pdt_tensor_numel(&src), st = pdt_index_put(x, 0, v, &src, 0));
        pdt_tensor_release(&src);
    }
    pdt_hold_release(&h);
    return pdt_write_done(S, self,
                          st == PDT_ERR_INDEX || st == PDT_ERR_VALUE ? PDT_ERR_UNSUPPORTED : st);
}

static int mask_fill(pdt_state *S, PyObject *self, const pdt_tensor *x, const pdt_tensor *m,
                     const pdt_tensor *fill_number, int from_right);

/* cond = the mask m as a view of x's shape: m over x's leading dims, or with from_right
 * broadcast from the right (masked_fill_); stride 0 where it repeats */
static void cond_view(const pdt_tensor *x, const pdt_tensor *m, int from_right, pdt_tensor *cond)
{
    const int lead = from_right ? x->ndim - m->ndim : 0;
    *cond = *m;
    cond->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) {
        const int i = d - lead; /* m's dim against x's dim d */
        cond->shape[d] = x->shape[d];
        cond->strides[d] = i >= 0 && i < m->ndim && m->shape[i] != 1 ? m->strides[i] : 0;
    }
}

/* the mask m does not share memory with x, or is x element for element (x[x] = False reads
 * each byte before writing it); a review: where() and the rows read mask bytes already
 * written when the mask was another part of x's memory, even through another storage
 * object (two from_numpy of one array) */
static int mask_apart(const pdt_tensor *x, const pdt_tensor *m, int from_right)
{
    pdt_tensor cond;
    cond_view(x, m, from_right, &cond);
    return pdt_tensor_numel(x) == 0 || !pdt_tensor_overlaps_partly(&cond, x);
}

/* k a bool mask over x's leading dims, on x's device, x contiguous, the mask apart from x */
static int mask_ok(const pdt_tensor *x, const pdt_tensor *k)
{
    return k->dtype == PDT_BOOL && k->ndim >= 1 && k->ndim <= x->ndim &&
           pdt_device_eq(x->device, k->device) && pdt_tensor_is_contiguous(x) &&
           memcmp(x->shape, k->shape, (size_t)k->ndim * sizeof *x->shape) == 0 &&
           mask_apart(x, k, 0);
}

/* k an int64 vector indexing the rows of a CPU x */
static int vector_ok(const pdt_tensor *x, const pdt_tensor *k)
{
    return x->device.kind == PDT_CPU && x->ndim >= 1 && pdt_index_is_vector(k) &&
           pdt_device_eq(x->device, k->device);
}

/* x[key] = value (the 0-d number, or a tensor of x's dtype: value_obj, NULL for a number)
 * with the conditions checked again on views held now: making the number or a copy may
 * run Python (placement logging) that rebinds x.data or sets requires_grad (two
 * reviews: a write past a storage; an unrecorded write into a leaf) */
static int put_value(pdt_state *S, PyObject *self, PyObject *key, const pdt_tensor *value,
                     PyObject *value_obj, int mask)
{
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *x = pdt_hold_view(&h, pdt_tensor_of(self));
    const int tuple = !Py_IS_TYPE(key, S->tensor_type);
    const pdt_tensor *k = tuple ? NULL : pdt_hold_view(&h, pdt_tensor_of(key));
    int r = 0;
    if (value->dtype == x->dtype && pdt_device_eq(value->device, x->device) &&
        !pdt_tensor_object_requires_grad((PdtTensorObject *)self) &&
        !(value_obj && pdt_tensor_object_requires_grad((PdtTensorObject *)value_obj)))
        r = tuple                      ? pdt_coords_put(S, self, key, value)
            : mask && mask_ok(x, k)    ? mask_fill(S, self, x, k, value, 0)
            : !mask && vector_ok(x, k) ? vector_put(S, self, x, k, value)
                                       : 0;
    pdt_hold_release(&h);
    return r;
}

int pdt_setitem_fast(pdt_state *S, PyObject *self, PyObject *key, PyObject *value)
{
    if (pdt_tensor_object_requires_grad((PdtTensorObject *)self))
        return 0;
    const pdt_tensor *x = pdt_tensor_of(self);
    const pdt_tensor *k = Py_IS_TYPE(key, S->tensor_type) ? pdt_tensor_of(key) : NULL;
    int mask = k && mask_ok(x, k);
    int vector = k && !mask && vector_ok(x, k);
    if (!mask && !vector && !(k == NULL && pdt_coords_key_plausible(S, x, key)))
        return 0; /* before anything is made (a review: a number made for x[:, v] = 1) */
    if (!mask && Py_IS_TYPE(value, S->tensor_type)) {
        /* a tensor of x's dtype on its device, requiring no grad, broadcast to the rows or
         * the coordinates (a mask's tensor values keep the hook's masked_fill rules) */
        const pdt_tensor *v = pdt_tensor_of(value);
        if (v->dtype != x->dtype || !pdt_device_eq(v->device, x->device) ||
            pdt_tensor_object_requires_grad((PdtTensorObject *)value))
            return 0;
        if (!pdt_tensor_spans_overlap(v, x)) /* by address, not storage */
            return put_value(S, self, key, v, value, 0);
        /* a value read from x's own storage is copied first, so every row is read before
         * any is written, as NumPy does (x[perm] = x; a review: rows written in turn read
         * rows already written, as the hook's path still does; PyTorch refuses) */
        pdt_tensor copy;
        pdt_status st = pdt_copy_to_new(v, v->device, v->dtype, 0, 0, &copy);
        if (st != PDT_OK) {
            pdt_raise(S, st);
            return -1;
        }
        int r = put_value(S, self, key, &copy, value, 0);
        pdt_tensor_release(&copy);
        return r;
    }
    pdt_tensor number;
    int r = pdt_number_for(S, "setitem", x, value, &number);
    if (r <= 0)
        return r;
    r = put_value(S, self, key, &number, NULL, mask);
    pdt_tensor_release(&number);
    return r;
}

/* x[m] = the number (a 0-d tensor of x's dtype): m over x's leading dims, or with
 * from_right broadcast to x's shape from the right (masked_fill_) */
static int mask_fill(pdt_state *S, PyObject *self, const pdt_tensor *x, const pdt_tensor *m,
                     const pdt_tensor *fill_number, int from_right)
{
    const pdt_tensor number = *fill_number;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    x = pdt_hold_view(&h, x), m = pdt_hold_view(&h, m);
    pdt_tensor cond, fill = number; /* views of x's shape: stride 0 where they repeat */
    cond_view(x, m, from_right, &cond);
    fill.ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++)
        fill.shape[d] = x->shape[d], fill.strides[d] = 0;
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(x), st = pdt_where(x, &cond, &fill, x));
    pdt_hold_release(&h);
    return pdt_write_done(S, self, st == PDT_ERR_UNSUPPORTED ? PDT_ERR_VALUE : st);
}

/* m a bool mask on x's device broadcasting to x's shape from the right, x contiguous and
 * requiring no grad, m apart from x (mask_apart) */
static int masked_fill_ok(PyObject *self, const pdt_tensor *x, const pdt_tensor *m)
{
    if (m->dtype != PDT_BOOL || m->ndim > x->ndim || !pdt_device_eq(x->device, m->device) ||
        !pdt_tensor_is_contiguous(x) || pdt_tensor_object_requires_grad((PdtTensorObject *)self))
        return 0;
    for (int i = 0; i < m->ndim; i++)
        if (m->shape[i] != 1 && m->shape[i] != x->shape[i + x->ndim - m->ndim])
            return 0;
    return mask_apart(x, m, 1);
}

/* _masked_fill_(x, mask, value) -> True once x.masked_fill_(mask, value) is done in place
 * (one where into x: Note [mask writes in C]; before, a new tensor was made and copied
 * back: 14.5 us for 1,000 rows of four float32 and a (1000, 1) mask); None, x unchanged,
 * for what it declines: x requiring grad or not contiguous, a mask not bool, on another
 * device, not broadcasting to x's shape or sharing x's memory, a value that is
 * not a Python number of a kind x's dtype holds.  The Python path takes those, with its
 * errors. */
static PyObject *f_masked_fill_(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    if (nargs != 3 || !PyObject_TypeCheck(args[0], S->tensor_type)) {
        PyErr_SetString(PyExc_TypeError, "_masked_fill_(x, mask, value)");
        return NULL;
    }
    if (!PyObject_TypeCheck(args[1], S->tensor_type) ||
        !masked_fill_ok(args[0], pdt_tensor_of(args[0]), pdt_tensor_of(args[1])))
        Py_RETURN_NONE;
    pdt_tensor number;
    int r = pdt_number_for(S, "masked_fill_", pdt_tensor_of(args[0]), args[2], &number);
    if (r <= 0)
        return r < 0 ? NULL : Py_NewRef(Py_None);
    /* checked again: making the number may run Python (placement logging) that rebinds
     * x.data or sets requires_grad (Note [mask writes in C]) */
    const pdt_tensor *x = pdt_tensor_of(args[0]), *m = pdt_tensor_of(args[1]);
    r = number.dtype == x->dtype && pdt_device_eq(number.device, x->device) &&
                masked_fill_ok(args[0], x, m)
            ? mask_fill(S, args[0], x, m, &number, 1)
            : 0;
    pdt_tensor_release(&number);
    return r < 0 ? NULL : Py_NewRef(r ? Py_True : Py_None);
}

/* _number_fits(op, value, x): None when the Python number value fits x's dtype, else
 * pdt_number_refused's error naming op and x's shape (index_fill, scatter and pad check
 * their number so, before the 0-d or block tensors they make of it would name "full") */
static PyObject *f_number_fits(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    pdt_scalar v;
    if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyObject_TypeCheck(args[2], S->tensor_type)) {
        PyErr_SetString(PyExc_TypeError, "_number_fits(op, value, x)");
        return NULL;
    }
    const char *op = PyUnicode_AsUTF8(args[0]);
    if (!op || pdt_parse_number_into(args[1], op, pdt_tensor_of(args[2]), &v) < 0 ||
        pdt_number_refused(S, op, v, pdt_tensor_of(args[2])) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* _spans_overlap(a, b): whether the bytes a's elements span and those b's span meet (the
 * core's pdt_tensor_spans_overlap; tensors on two devices never do): x[idx] = v reads a v
 * in x's memory whole before writing (_advanced_setitem) */
static PyObject *f_spans_overlap(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    if (nargs != 2 || !PyObject_TypeCheck(args[0], S->tensor_type) ||
        !PyObject_TypeCheck(args[1], S->tensor_type)) {
        PyErr_SetString(PyExc_TypeError, "_spans_overlap(a, b): two tensors");
        return NULL;
    }
    const pdt_tensor *a = pdt_tensor_of(args[0]), *b = pdt_tensor_of(args[1]);
    return PyBool_FromLong(pdt_device_eq(a->device, b->device) && pdt_tensor_spans_overlap(a, b));
}

PyMethodDef pdt_setitem_functions[] = {
    {"_spans_overlap", (PyCFunction)(void (*)(void))f_spans_overlap, METH_FASTCALL, NULL},
    {"_masked_fill_", (PyCFunction)(void (*)(void))f_masked_fill_, METH_FASTCALL, NULL},
    {"_number_fits", (PyCFunction)(void (*)(void))f_number_fits, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};
