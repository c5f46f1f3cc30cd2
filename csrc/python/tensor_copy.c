/* tensor_copy.c - the copying methods: to(), cuda(), cpu(), clone(), copy_(),
 * contiguous(), type(), pin_memory() and float()/double()/int()/long()/bool().
 * A tensor already where it is asked to be comes back itself (X.cpu() is X)
 * unless copy=True.  Every copy goes through pdt_copy(), which counts it.
 * Copies within one device keep their source's memory order (clone() of a.T
 * is transposed, Note [memory order] in csrc/core/pdt_tensor.h); contiguous(),
 * pin_memory() and copies between devices give row-major tensors.  clone(),
 * contiguous() and to() take memory_format= (memory_format.c): a channels-last
 * copy is a row-major copy of the permuted tensor, permuted back. */
#include <string.h>

#include "args.h"
#include "docstrings_copy.h"
#include "pdt_view.h"

/* Copies src into a new tensor on device with dtype.  The GIL is released for
 * large tensors. */
static PyObject *copy_new(pdt_state *S, const pdt_tensor *src, pdt_device device, pdt_dtype dtype,
                          int storage_flags, int copy_flags, int row_major)
{
    pdt_tensor out;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    src = pdt_hold_view(&h, src);
    /* Within one device the copy keeps src's memory order (Note [memory order]) */
    int keep = !row_major && pdt_device_eq(device, src->device) && !storage_flags && !copy_flags;
    if (pdt_tensor_numel(src) > PDT_GIL_RELEASE_NUMEL || device.kind != src->device.kind) {
        Py_BEGIN_ALLOW_THREADS
        st = keep ? pdt_copy_to_new_in_order(src, dtype, &out)
                  : pdt_copy_to_new(src, device, dtype, storage_flags, copy_flags, &out);
        Py_END_ALLOW_THREADS
    } else {
        st = keep ? pdt_copy_to_new_in_order(src, dtype, &out)
                  : pdt_copy_to_new(src, device, dtype, storage_flags, copy_flags, &out);
    }
    pdt_hold_release(&h);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

/* self itself when nothing changes (and copy is off), else a copy. */
static PyObject *to_impl(PyObject *self, pdt_device device, pdt_dtype dtype, int non_blocking,
                         int copy)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    if (!S)
        return NULL;
    if (!copy && pdt_device_eq(device, t->device) && dtype == t->dtype)
        return Py_NewRef(self);
    if (pdt_autograd_wanted(self, NULL, 0, NULL)) { /* one place for to/cuda/cpu/clone/... */
        PyObject *dev = pdt_device_object(S, device), *r = NULL;
        PyObject *args[4] = {dev, S->dtypes[dtype], non_blocking ? Py_True : Py_False,
                             copy ? Py_True : Py_False};
        if (dev)
            r = pdt_autograd_call("to", 1, self, args, 4, NULL);
        Py_XDECREF(dev);
        return r;
    }
    return copy_new(S, t, device, dtype, 0, non_blocking ? PDT_COPY_NON_BLOCKING : 0, 0);
}

/* contiguous() of a tensor not contiguous: a row-major copy. */
static PyObject *contiguous_copy(pdt_state *S, PyObject *self)
{
    const pdt_tensor *t = pdt_tensor_of(self);
    if (pdt_autograd_wanted(self, NULL, 0, NULL))
        return pdt_autograd_call("contiguous", 1, self, NULL, 0, NULL);
    return copy_new(S, t, t->device, t->dtype, 0, 0, 1); /* row-major, not t's order */
}

/* x.permute(dims) as a method call, recorded when x requires grad. */
static PyObject *permuted(PyObject *x, int n, const int *dims)
{
    PyObject *tuple = PyTuple_New(n), *r = NULL;
    for (int i = 0; tuple && i < n; i++) {
        PyObject *d = PyLong_FromLong(dims[i]);
        if (!d)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i, d);
    }
    PyObject *name = tuple ? PyUnicode_FromString("permute") : NULL;
    if (name)
        r = PyObject_CallMethodOneArg(x, name, tuple);
    Py_XDECREF(name);
    Py_XDECREF(tuple);
    return r;
}

/* A copy of x (its rank checked) laid out as fmt, channels_last(_3d): a row-major
 * copy of x with its dims in fmt's memory order, those dims put back.  Autograd
 * records the permute, the copy and the permute back. */
/* r (a new copy, or NULL) with an empty copy's strides as PyTorch gives them in a
 * format (pdt_empty_format_strides). */
static PyObject *empty_format_strides(PyObject *r, int n, const int *perm)
{
    if (r)
        pdt_empty_format_strides(pdt_tensor_of(r), n, perm);
    return r;
}

static PyObject *format_copy(pdt_state *S, PyObject *x, pdt_memory_format fmt)
{
    const int *perm;
    int n = pdt_memory_format_perm(fmt, &perm), inverse[PDT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        inverse[perm[i]] = i;
    const pdt_tensor *t = pdt_tensor_of(x);
    if (pdt_autograd_wanted(x, NULL, 0, NULL)) {
        PyObject *y = permuted(x, n, perm), *z;
        if (!y)
            return NULL;
        const pdt_tensor *v = pdt_tensor_of(y);
        z = pdt_tensor_is_contiguous(v) ? to_impl(y, v->device, v->dtype, 0, 1)
                                        : contiguous_copy(S, y);
        Py_DECREF(y);
        if (!z)
            return NULL;
        Py_SETREF(z, permuted(z, n, inverse));
        return empty_format_strides(z, n, perm);
    }
    pdt_tensor view;
    pdt_tensor_permuted(&view, t, n, perm);
    PyObject *r = copy_new(S, &view, t->device, t->dtype, 0, 0, 1);
    if (!r)
        return NULL;
    pdt_tensor *c = pdt_tensor_of(r); /* new, seen by no one yet: its dims put back */
    int64_t shape[PDT_MAX_DIMS], strides[PDT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        shape[i] = c->shape[inverse[i]], strides[i] = c->strides[inverse[i]];
    memcpy(c->shape, shape, (size_t)n * sizeof shape[0]);
    memcpy(c->strides, strides, (size_t)n * sizeof strides[0]);
    return empty_format_strides(r, n, perm);
}

/* x (taken over) itself when laid out as fmt already (to()'s memory_format; not
 * preserve_format), else a copy that is. */
static PyObject *in_layout(pdt_state *S, PyObject *x, pdt_memory_format fmt, const char *where)
{
    const pdt_tensor *t = pdt_tensor_of(x);
    if (pdt_follows_memory_format(t, fmt))
        return x;
    PyObject *r = fmt == PDT_CONTIGUOUS_FORMAT                         ? contiguous_copy(S, x)
                  : pdt_check_memory_format_rank(S, t, fmt, where) < 0 ? NULL
                                                                       : format_copy(S, x, fmt);
    Py_DECREF(x);
    return r;
}

/* to(device=None, dtype=None, non_blocking=False, copy=False), also to(dtype),
 * to(device, dtype) and to(other_tensor), each with non_blocking and copy after them
 * positionally, as in PyTorch. */
static PyObject *t_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "dtype",         "non_blocking",
                                        "copy",   "memory_format", NULL};
    PyObject *kw[5] = {NULL};
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    if (!S || pdt_parse_keywords("to", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    pdt_device device = t->device;
    int dtype = (int)t->dtype, non_blocking, copy;
    int got_device = 0, got_dtype = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *a = args[i];
        if (i == 0 && pdt_is_tensor(S, a)) { /* to(other, non_blocking, copy) */
            device = pdt_tensor_of(a)->device;
            dtype = (int)pdt_tensor_of(a)->dtype;
            got_device = got_dtype = 1;
        } else if (Py_IS_TYPE(a, S->dtype_type) && !got_dtype) {
            dtype = (int)((PdtDTypeObject *)a)->dtype;
            got_dtype = 1;
        } else if (PyType_Check(a) && !got_dtype) { /* to(float), to(np.float32): a dtype */
            if (pdt_dtype_from_object(S, a, -1, &dtype) < 0)
                return NULL;
            got_dtype = 1;
        } else if (!got_device && !got_dtype && i == 0) {
            if (pdt_device_from_object(S, a, device, &device) < 0) {
                /* a string may name a dtype instead: to('float64') */
                PyObject *et, *ev, *tb;
                PyErr_Fetch(&et, &ev, &tb);
                if (PyUnicode_Check(a) && pdt_dtype_from_object(S, a, -1, &dtype) == 0) {
                    Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
                    got_dtype = 1;
                    continue;
                }
                PyErr_Clear();
                PyErr_Restore(et, ev, tb);
                return NULL;
            }
            got_device = 1;
        } else if (i == 1 && got_device && !got_dtype) {
            if (pdt_dtype_from_object(S, a, -1, &dtype) < 0)
                return NULL;
            got_dtype = 1;
        } else if ((got_device || got_dtype) && PyBool_Check(a) && !kw[3]) {
            /* to(dtype, non_blocking, copy), to(device, dtype, non_blocking, copy) */
            if (kw[2])
                kw[3] = a;
            else
                kw[2] = a;
        } else {
            PyErr_SetString(PyExc_TypeError,
                            "to() takes (device=None, dtype=None, non_blocking=False, "
                            "copy=False), (dtype) or (tensor)");
            return NULL;
        }
    }
    if (kw[0] && (got_device || pdt_device_from_object(S, kw[0], device, &device) < 0)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "to() got the device twice");
        return NULL;
    }
    if (kw[1] && (got_dtype || pdt_dtype_from_object(S, kw[1], dtype, &dtype) < 0)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "to() got the dtype twice");
        return NULL;
    }
    pdt_memory_format fmt;
    if (pdt_parse_bool(kw[2], 0, "to", "non_blocking", &non_blocking) < 0 ||
        pdt_parse_bool(kw[3], 0, "to", "copy", &copy) < 0 ||
        pdt_memory_format_from_object(S, kw[4], PDT_PRESERVE_FORMAT, "to()", &fmt) < 0)
        return NULL;
    PyObject *r = to_impl(self, device, (pdt_dtype)dtype, non_blocking, copy);
    if (!r || fmt == PDT_PRESERVE_FORMAT)
        return r;
    return in_layout(S, r, fmt, "to()"); /* takes r over */
}

/* self.to(device, non_blocking=non_blocking, memory_format=format): cuda() given a
 * memory format, as PyTorch's. */
static PyObject *cuda_in_format(pdt_state *S, PyObject *self, pdt_device device, int non_blocking,
                                PyObject *format)
{
    PyObject *name = PyUnicode_FromString("to"), *dev = pdt_device_object(S, device);
    PyObject *names = Py_BuildValue("(ss)", "non_blocking", "memory_format"), *r = NULL;
    if (name && dev && names) {
        PyObject *stack[4] = {self, dev, non_blocking ? Py_True : Py_False, format};
        r = PyObject_VectorcallMethod(name, stack, 2, names);
    }
    Py_XDECREF(name);
    Py_XDECREF(dev);
    Py_XDECREF(names);
    return r;
}

/* cuda(device=None, non_blocking=False, memory_format=None) */
static PyObject *t_cuda(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", "non_blocking", "memory_format", NULL};
    PyObject *kw[3] = {NULL};
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S || pdt_parse_keywords("cuda", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    if (nargs > 2 || (nargs >= 1 && kw[0]) || (nargs == 2 && kw[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "cuda() takes (device=None, non_blocking=False, memory_format=None)");
        return NULL;
    }
    PyObject *dev_obj = nargs >= 1 ? args[0] : kw[0];
    PyObject *nb_obj = nargs == 2 ? args[1] : kw[1];
    pdt_device current = {PDT_CUDA, pdt_current_cuda()}, device;
    int non_blocking;
    if (pdt_device_from_object(S, dev_obj, current, &device) < 0 ||
        pdt_parse_bool(nb_obj, 0, "cuda", "non_blocking", &non_blocking) < 0)
        return NULL;
    if (device.kind != PDT_CUDA) {
        char name[32];
        PyErr_Format(PyExc_ValueError, "cuda(): expected a CUDA device, got %s",
                     pdt_device_str(device, name, sizeof name));
        return NULL;
    }
    if (kw[2] && kw[2] != Py_None) /* to(device, non_blocking=, memory_format=) */
        return cuda_in_format(S, self, device, non_blocking, kw[2]);
    return to_impl(self, device, pdt_tensor_of(self)->dtype, non_blocking, 0);
}

/* cpu(*, memory_format=preserve_format): self when already in host memory (any CPU
 * device) and no other layout is asked for. */
static PyObject *t_cpu(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"memory_format", NULL};
    PyObject *kw[1] = {NULL};
    const pdt_tensor *t = pdt_tensor_of(self);
    if (nargs > 0) {
        PyErr_Format(PyExc_TypeError, "cpu() takes 0 positional arguments but %zd %s given", nargs,
                     nargs == 1 ? "was" : "were");
        return NULL;
    }
    if (kwnames && pdt_parse_keywords("cpu", args, kwnames, names, kw) < 0)
        return NULL;
    if (kw[0]) { /* to("cpu", memory_format=f), as PyTorch's */
        PyObject *name = PyUnicode_FromString("to"), *cpu = PyUnicode_FromString("cpu");
        PyObject *stack[3] = {self, cpu, kw[0]}, *r = NULL;
        if (name && cpu)
            r = PyObject_VectorcallMethod(name, stack, 2, kwnames);
        Py_XDECREF(name);
        Py_XDECREF(cpu);
        return r;
    }
    if (t->device.kind == PDT_CPU)
        return Py_NewRef(self);
    pdt_device cpu = {PDT_CPU, 0};
    return to_impl(self, cpu, t->dtype, 0, 0);
}

/* clone(*, memory_format=preserve_format) */
static PyObject *t_clone(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const pdt_tensor *t = pdt_tensor_of(self);
    if (nargs == 0 && !kwnames)
        return to_impl(self, t->device, t->dtype, 0, 1);
    pdt_memory_format fmt;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S || pdt_memory_format_arg(S, "clone", "clone()", args, nargs, kwnames,
                                    PDT_PRESERVE_FORMAT, &fmt) < 0)
        return NULL;
    if (fmt == PDT_PRESERVE_FORMAT || (fmt == PDT_CONTIGUOUS_FORMAT && pdt_tensor_is_contiguous(t)))
        return to_impl(self, t->device, t->dtype, 0, 1);
    if (fmt == PDT_CONTIGUOUS_FORMAT)
        return contiguous_copy(S, self);
    return pdt_check_memory_format_rank(S, t, fmt, "clone()") < 0 ? NULL
                                                                  : format_copy(S, self, fmt);
}

/* contiguous(memory_format=contiguous_format) */
static PyObject *t_contiguous(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    const pdt_tensor *t = pdt_tensor_of(self);
    pdt_memory_format fmt = PDT_CONTIGUOUS_FORMAT;
    if (nargs == 0 && !kwnames && pdt_tensor_is_contiguous(t))
        return Py_NewRef(self);
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S ||
        ((nargs || kwnames) && pdt_memory_format_arg(S, "contiguous", "contiguous()", args, nargs,
                                                     kwnames, PDT_CONTIGUOUS_FORMAT, &fmt) < 0))
        return NULL;
    if (fmt == PDT_PRESERVE_FORMAT && !pdt_tensor_is_contiguous(t)) { /* as PyTorch's */
        char shape[128], dev[32];
        PyErr_Format(S->InvalidArgumentError,
                     "contiguous(): preserve memory format is unsupported by the contiguous "
                     "operator (tensor of shape %s on %s)",
                     pdt_shape_str(t->ndim, t->shape, shape, sizeof shape),
                     pdt_device_str(t->device, dev, sizeof dev));
        return NULL;
    }
    if (fmt == PDT_PRESERVE_FORMAT)
        return Py_NewRef(self);
    if (fmt != PDT_CONTIGUOUS_FORMAT && pdt_check_memory_format_rank(S, t, fmt, "contiguous()") < 0)
        return NULL;
    if (pdt_follows_memory_format(t, fmt))
        return Py_NewRef(self);
    return fmt == PDT_CONTIGUOUS_FORMAT ? contiguous_copy(S, self) : format_copy(S, self, fmt);
}

/* copy_(src, non_blocking=False): writes src's values (any device or dtype, broadcast
 * to self's shape) into self; returns self. */
static PyObject *t_copy_(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    /* a number as src: fill_ with it, as PyTorch's copy_ takes one (x.copy_(3.)) */
    if (nargs >= 1 && !kwnames && nargs <= 2 && (PyFloat_Check(args[0]) || PyLong_Check(args[0])))
        return PyObject_CallMethod(self, "fill_", "O", args[0]);
    PDT_AUTOGRAD_HOOK("copy_", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"src", "non_blocking", NULL};
    PyObject *kw[2] = {NULL};
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S || pdt_parse_keywords("copy_", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    PyObject *src = nargs >= 1 ? args[0] : kw[0];
    PyObject *nb = nargs >= 2 ? args[1] : kw[1];
    int non_blocking;
    if (!src || nargs > 2 || pdt_parse_bool(nb, 0, "copy_", "non_blocking", &non_blocking) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "copy_() takes (src, non_blocking=False)");
        return NULL;
    }
    if (!pdt_is_tensor(S, src)) {
        PyErr_Format(PyExc_TypeError, "copy_(): src must be a Tensor, got %.100s",
                     Py_TYPE(src)->tp_name);
        return NULL;
    }
    const pdt_tensor *d = pdt_tensor_of(self), *s = pdt_tensor_of(src);
    pdt_status st;
    if (d->storage == s->storage && d->data == s->data && d->offset == s->offset &&
        d->dtype == s->dtype && d->ndim == s->ndim &&
        memcmp(d->shape, s->shape, sizeof d->shape[0] * (size_t)d->ndim) == 0 &&
        pdt_tensor_is_contiguous(d) && pdt_tensor_is_contiguous(s))
        return Py_NewRef(self); /* x.copy_(x) (the same shape: x.copy_(x[0]) broadcasts) */
    /* A source overlapping the destination is copied out first, so that the
     * destination is never read half-written. */
    pdt_hold h = {0}; /* Note [the GIL and storages]: the copies note themselves (Python) */
    d = pdt_hold_view(&h, d), s = pdt_hold_view(&h, s);
    pdt_tensor tmp = {0}, wide = {0};
    st = PDT_OK;
    /* src broadcast to self's shape, as PyTorch's copy_ does (x.copy_(row)); made on
     * src's device when it crosses, so that a copy between devices stays one of the
     * same shape */
    if (d->ndim != s->ndim || memcmp(d->shape, s->shape, sizeof d->shape[0] * (size_t)d->ndim)) {
        /* PyTorch's copy_ broadcasts src to self's shape and no further: a src with more
         * dimensions (of size 1) than self is refused too */
        st = s->ndim > d->ndim ? PDT_ERR_VALUE : pdt_expand("copy_", s, d->ndim, d->shape, &wide);
        if (st != PDT_OK) { /* in copy's words, naming the devices */
            char sd[96], ss[96], dd[32], ds[32];
            st = pdt_fail(PDT_ERR_VALUE,
                          "copy_(): src of shape %s on %s cannot be broadcast to the "
                          "destination's shape %s on %s",
                          pdt_shape_str(s->ndim, s->shape, ss, sizeof ss),
                          pdt_device_str(s->device, ds, sizeof ds),
                          pdt_shape_str(d->ndim, d->shape, sd, sizeof sd),
                          pdt_device_str(d->device, dd, sizeof dd));
        }
        if (st == PDT_OK && !pdt_device_eq(s->device, d->device)) {
            st = pdt_copy_to_new(&wide, s->device, s->dtype, 0, 0, &tmp);
            pdt_tensor_release(&wide);
            s = &tmp;
        } else {
            s = &wide;
        }
    }
    /* by address: two storages may hold one array (from_numpy twice of it) */
    if (st == PDT_OK && s != &tmp && pdt_tensor_spans_overlap(d, s)) {
        st = pdt_copy_to_new(s, s->device, s->dtype, 0, 0, &tmp);
        s = &tmp;
    }
    if (st == PDT_OK) {
        Py_BEGIN_ALLOW_THREADS
        st = pdt_copy(d, s, non_blocking ? PDT_COPY_NON_BLOCKING : 0);
        Py_END_ALLOW_THREADS
    }
    pdt_hold_release(&h);
    pdt_tensor_release(&tmp);
    pdt_tensor_release(&wide);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    pdt_bump_version(self); /* Note [version counter] */
    return Py_NewRef(self);
}

static const char *const type_names[PDT_NUM_DTYPES] = {"BoolTensor",     "IntTensor",
                                                       "LongTensor",     "FloatTensor",
                                                       "DoubleTensor",   "HalfTensor",
                                                       "BFloat16Tensor", "ByteTensor",
                                                       "CharTensor",     "ShortTensor"};

/* The dtype of a tensor type's name, "[pydevtensor.|torch.][cuda.]FloatTensor" and
 * the like (what type() gives, and PyTorch's spelling, as the dtypes' names take
 * either prefix), and whether it names CUDA; -1 for another string. */
static int dtype_of_type_name(const char *name, int *cuda)
{
    if (strncmp(name, "torch.", 6) == 0 || strncmp(name, "pydevtensor.", 12) == 0)
        name = strchr(name, '.') + 1;
    *cuda = strncmp(name, "cuda.", 5) == 0;
    if (*cuda)
        name += 5;
    for (int d = 0; d < PDT_NUM_DTYPES; d++)
        if (strcmp(name, type_names[d]) == 0)
            return d;
    return -1;
}

/* The dtype that type(obj) names as a tensor type, a name above or a legacy class
 * (pydevtensor.FloatTensor and its kin, pydevtensor.cuda.FloatTensor and its kin:
 * _tensor_legacy.py), with whether it names CUDA; -1 when obj is neither, -2 on
 * error. */
static int dtype_of_tensor_type(PyObject *obj, int *cuda)
{
    if (PyUnicode_Check(obj)) {
        const char *name = PyUnicode_AsUTF8(obj);
        return name ? dtype_of_type_name(name, cuda) : -2;
    }
    if (!PyType_Check(obj))
        return -1;
    PyObject *module = PyObject_GetAttrString(obj, "__module__");
    if (!module)
        return -2;
    const int cpu_class = PyUnicode_Check(module) &&
                          PyUnicode_CompareWithASCIIString(module, "pydevtensor") == 0;
    const int cuda_class = PyUnicode_Check(module) &&
                           PyUnicode_CompareWithASCIIString(module, "pydevtensor.cuda") == 0;
    Py_DECREF(module);
    const int dtype = cpu_class || cuda_class
                          ? dtype_of_type_name(((PyTypeObject *)obj)->tp_name, cuda)
                          : -1;
    *cuda = cuda_class; /* the class's is_cuda */
    return dtype;
}

/* type(dtype=None, non_blocking=False): the type's name, or the tensor converted to
 * dtype; a tensor type's name (or class) converts to its dtype and device, as
 * PyTorch's does: "pydevtensor.cuda.FloatTensor" to the current GPU unless the
 * tensor is on one, "pydevtensor.FloatTensor" to the CPU unless it is on one. */
static PyObject *t_type(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dtype", "non_blocking", NULL};
    PyObject *kw[2] = {NULL};
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    if (!S || pdt_parse_keywords("type", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    if (nargs > 2 || (nargs >= 1 && kw[0]) || (nargs == 2 && kw[1])) {
        PyErr_SetString(PyExc_TypeError, "type() takes (dtype=None, non_blocking=False)");
        return NULL;
    }
    PyObject *dt_obj = nargs >= 1 ? args[0] : kw[0];
    int non_blocking, cuda = 0;
    if (pdt_parse_bool(nargs == 2 ? args[1] : kw[1], 0, "type", "non_blocking", &non_blocking) < 0)
        return NULL;
    if (!dt_obj || dt_obj == Py_None)
        return PyUnicode_FromFormat("pydevtensor.%s%s", t->device.kind == PDT_CUDA ? "cuda." : "",
                                    type_names[t->dtype]);
    int dtype = dtype_of_tensor_type(dt_obj, &cuda);
    const int type_named = dtype >= 0;
    if (dtype == -2 || (!type_named && pdt_dtype_from_object(S, dt_obj, -1, &dtype) < 0))
        return NULL;
    pdt_device device = t->device;
    if (type_named && cuda != (t->device.kind == PDT_CUDA))
        device = cuda ? (pdt_device){PDT_CUDA, pdt_current_cuda()} : (pdt_device){PDT_CPU, 0};
    return to_impl(self, device, (pdt_dtype)dtype, non_blocking, 0);
}

static PyObject *t_pin_memory(PyObject *self, PyObject *unused)
{
    (void)unused;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    if (!S)
        return NULL;
    if (t->device.kind != PDT_CPU) {
        char name[32];
        PyErr_Format(PyExc_ValueError,
                     "pin_memory(): only CPU tensors can be pinned; this one "
                     "is on %s",
                     pdt_device_str(t->device, name, sizeof name));
        return NULL;
    }
    if (pdt_tensor_is_pinned(t))
        return Py_NewRef(self);
    return copy_new(S, t, t->device, t->dtype, PDT_STORAGE_PINNED, 0, 1);
}

/* float(*, memory_format=preserve_format) and its kin: to(dt, memory_format=...), as
 * PyTorch's (the format keyword-only, as there). */
static PyObject *as_dtype(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, pdt_dtype dt, const char *fname, const char *where)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_memory_format fmt;
    if (!S ||
        pdt_memory_format_arg(S, fname, where, args, nargs, kwnames, PDT_PRESERVE_FORMAT, &fmt) < 0)
        return NULL;
    PyObject *r = to_impl(self, pdt_tensor_of(self)->device, dt, 0, 0);
    if (!r || fmt == PDT_PRESERVE_FORMAT)
        return r;
    return in_layout(S, r, fmt, where); /* takes r over */
}

#define DTYPE_METHOD(NAME, DT)                                                                     \
    static PyObject *t_as_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,          \
                                 PyObject *kwnames)                                                \
    {                                                                                              \
        return as_dtype(self, args, nargs, kwnames, DT, #NAME, #NAME "()");                        \
    }
DTYPE_METHOD(float, PDT_FLOAT32)
DTYPE_METHOD(double, PDT_FLOAT64)
DTYPE_METHOD(int, PDT_INT32)
DTYPE_METHOD(long, PDT_INT64)
DTYPE_METHOD(bool, PDT_BOOL)
DTYPE_METHOD(half, PDT_FLOAT16)
DTYPE_METHOD(bfloat16, PDT_BFLOAT16)
DTYPE_METHOD(byte, PDT_UINT8)
DTYPE_METHOD(char, PDT_INT8)
DTYPE_METHOD(short, PDT_INT16)

PyMethodDef pdt_tensor_copy_methods[] = {
    {"to", FASTKW(t_to), doc_to},
    {"cuda", FASTKW(t_cuda), doc_cuda},
    {"cpu", FASTKW(t_cpu), doc_cpu},
    {"clone", FASTKW(t_clone), doc_clone},
    {"contiguous", FASTKW(t_contiguous), doc_contiguous},
    {"copy_", FASTKW(t_copy_), doc_copy_},
    {"type", FASTKW(t_type), doc_type},
    {"pin_memory", t_pin_memory, METH_NOARGS, doc_pin_memory},
    {"float", FASTKW(t_as_float), doc_as_float},
    {"double", FASTKW(t_as_double), doc_as_double},
    {"int", FASTKW(t_as_int), doc_as_int},
    {"long", FASTKW(t_as_long), doc_as_long},
    {"bool", FASTKW(t_as_bool), doc_as_bool},
    {"half", FASTKW(t_as_half), doc_as_half},
    {"bfloat16", FASTKW(t_as_bfloat16), doc_as_bfloat16},
    {"byte", FASTKW(t_as_byte), doc_as_byte},
    {"char", FASTKW(t_as_char), doc_as_char},
    {"short", FASTKW(t_as_short), doc_as_short},
    {NULL, NULL, 0, NULL},
};
