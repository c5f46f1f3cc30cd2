/* pdt_module.h - what the binding files share: the module state, the object
 * layouts of device, dtype and Tensor, and the converters every entry point uses.
 * This is the only layer that includes Python.h; it calls the core through
 * pdt_ops.h / pdt_runtime.h and never a backend directly. */
#ifndef PDT_MODULE_H
#define PDT_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "pdt_ops.h"

/* ---- objects ---- */

typedef struct {
    PyObject_HEAD
    pdt_device device;
} PdtDeviceObject;

typedef struct {
    PyObject_HEAD
    pdt_dtype dtype;
} PdtDTypeObject;

typedef struct {
    PyObject_HEAD
    pdt_tensor t;
    PyObject *weakreflist;
    /* Note [interfaces keep the storage] (tensor_object.c): shown is 1 once an
     * array interface showed t's storage; kept is NULL or a list of
     * _StorageRefs for the storages shown before .data moved the tensor. */
    int shown;
    PyObject *kept;
    /* autograd (autograd.c, Note [where the graph is recorded]) */
    int requires_grad;     /* a leaf marked by the user, or a recorded result */
    int output_nr;         /* which output of grad_fn this tensor is */
    PyObject *grad;        /* NULL or the accumulated gradient (a Tensor) */
    PyObject *grad_fn;     /* NULL for a leaf, else the Node that made it */
    PyObject *accumulator; /* NULL or a weakref to the leaf's AccumulateGrad */
    PyObject *leaf_hooks;  /* NULL or the hooks registered on this leaf (autograd/hooks.py) */
    /* views (autograd_view.c, Note [views and their base]) */
    PyObject *base;       /* NULL, or the tensor this view's storage was first viewed from */
    int64_t view_version; /* the version when the view's place in the graph was last set */
    int view_flags;       /* PDT_VIEW_NO_GRAD, PDT_VIEW_MULTI_OUTPUT */
    PyObject *size;       /* NULL, or the Size shape gave last (Note [the shape kept]) */
    PyObject *dict;       /* NULL, or the instance attributes (Note [a tensor's __dict__]) */
} PdtTensorObject;

/* ---- module state (one per module object; see module.c) ---- */

/* Memory formats (memory_format.c), as PyTorch's torch.memory_format. */
typedef enum {
    PDT_PRESERVE_FORMAT,
    PDT_CONTIGUOUS_FORMAT,
    PDT_CHANNELS_LAST,    /* 4-d, dims in memory as (N, H, W, C) */
    PDT_CHANNELS_LAST_3D, /* 5-d, (N, D, H, W, C) */
    PDT_NUM_MEMORY_FORMATS
} pdt_memory_format;

typedef struct {
    PyTypeObject *device_type;
    PyTypeObject *dtype_type;
    PyTypeObject *tensor_type;
    PyTypeObject *storage_ref_type;   /* _StorageRef (storage_ref.c) */
    PyTypeObject *generator_type;     /* _Generator (generator.c) */
    PyTypeObject *autocast_op_type;   /* _AutocastOp (op_wrappers.c) */
    PyTypeObject *recorded_op_type;   /* _RecordedOp (op_wrappers.c) */
    int autocast_threads;             /* threads with autocast on (Note [autocast's check in C]) */
    PyObject *dtypes[PDT_NUM_DTYPES]; /* the dtype singletons */
    PyObject *default_dtype;          /* borrowed from dtypes[] */
    /* exceptions */
    PyObject *OutOfMemoryError;     /* subclass of MemoryError and RuntimeError */
    PyObject *TransferError;        /* subclass of RuntimeError */
    PyObject *DeviceError;          /* subclass of RuntimeError */
    PyObject *InvalidArgumentError; /* subclass of ValueError and RuntimeError */
    PyObject *IndexOutOfRangeError; /* subclass of IndexError and RuntimeError */
    PyObject *DTypeError;           /* subclass of TypeError and RuntimeError */
    /* cached device objects, by kind and index */
    PyObject *devices[PDT_NUM_KINDS][PDT_MAX_DEVICES];
    PyObject *size_type; /* pydevtensor.Size, installed by pydevtensor/__init__ */
    /* x[key] and x[key] = v for keys the slots leave to Python (Note [indexing's fast
     * keys], tensor_subscript.c), installed by pydevtensor/_ops_index */
    PyObject *getitem_hook, *setitem_hook;
    /* &, |, ^, ~ and &=, |=, ^= for operands the slots leave to Python (a float tensor,
     * a NumPy array): fallback(op, a, b), installed by pydevtensor/_ops_logical.py */
    PyObject *operator_fallback;
    PyObject *numpy_asarray; /* NULL until t.numpy() first needs it (tensor_export.c) */
    /* pydevtensor.preserve_format, contiguous_format, channels_last and
     * channels_last_3d (a pdt_memory_format's order), installed by
     * pydevtensor/_memory_format.py (memory_format.c) */
    PyObject *memory_formats[PDT_NUM_MEMORY_FORMATS];
} pdt_state;

extern PyModuleDef pdt_module_def;
/* set_warn_always: the warnings given once a process warn every time (Note [warn always]
 * in queries.c). */
extern int pdt_warn_always;

pdt_state *pdt_state_of_module(PyObject *module);
/* The state reached from an instance of one of our types (or a subclass). */
pdt_state *pdt_state_of_type(PyTypeObject *tp);

/* ---- errors (errors.c) ---- */

/* Sets the Python exception for st from the core's last message; returns NULL. */
PyObject *pdt_raise(pdt_state *S, pdt_status st);
int pdt_raise_int(pdt_state *S, pdt_status st); /* the same, returning -1 */
int pdt_errors_init(PyObject *module, pdt_state *S);

/* ---- devices and dtypes (device_object.c, dtype_object.c) ---- */

int pdt_device_type_init(PyObject *module, pdt_state *S);
int pdt_size_type_init(PyObject *module);
/* A (new reference to the) device object for d. */
PyObject *pdt_device_object(pdt_state *S, pdt_device d);
/* obj: device, str, int (a CUDA index) or None (-> dflt).  Does not check that
 * the device exists; pdt_device_check does that at allocation. */
int pdt_device_from_object(pdt_state *S, PyObject *obj, pdt_device dflt, pdt_device *out);
/* The same without soft placement (for device() itself). */
int pdt_device_from_object_exact(pdt_state *S, PyObject *obj, pdt_device dflt, pdt_device *out);
/* The device factory functions use when given none (default_device.c, Note
 * [the default device]); device.__enter__/__exit__ set it for a block. */
pdt_device pdt_default_device(void);
PyObject *pdt_device_enter(PyObject *self, PyObject *unused);
PyObject *pdt_device_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
extern PyMethodDef pdt_default_device_functions[];

/* ---- reuse of temporaries (elide.c, Note [temporary elision]) ---- */

struct pdt_arg;

/* a or b (borrowed), when `a op b` may write its result into that operand
 * (x and y: a and b as operands); NULL otherwise.  Sets no exception. */
PyObject *pdt_elide_target(pdt_state *S, PyObject *a, PyObject *b, pdt_binary_op op,
                           const struct pdt_arg *x, const struct pdt_arg *y);
extern PyMethodDef pdt_elide_functions[];

int pdt_dtype_type_init(PyObject *module, pdt_state *S);
/* obj: dtype, str, numpy dtype-like, or None (-> dflt, may be -1 for "infer"). */
int pdt_dtype_from_object(pdt_state *S, PyObject *obj, int dflt, int *out);
PyObject *pdt_dtype_object(pdt_state *S, pdt_dtype dt); /* new reference */
extern PyMethodDef pdt_dtype_functions[];               /* promote_types */

/* ---- tensors (tensor_object.c and friends) ---- */

/* Memory formats (memory_format.c; pdt_memory_format: above pdt_state). */
/* obj: a pydevtensor.memory_format or its name; None: preserve_format; NULL (not
 * given): dflt.  Else a TypeError naming where ("clone()"); 0 or -1. */
int pdt_memory_format_from_object(pdt_state *S, PyObject *obj, pdt_memory_format dflt,
                                  const char *where, pdt_memory_format *out);
/* The rank channels_last(_3d) takes and its dims in memory order, outermost first. */
int pdt_memory_format_perm(pdt_memory_format fmt, const int **perm);
/* 1 when t is laid out as fmt (channels_last(_3d): of its rank, with those strides;
 * contiguous_format: row-major; not for preserve_format). */
int pdt_follows_memory_format(const pdt_tensor *t, pdt_memory_format fmt);
/* A new EMPTY tensor c (seen by no one yet; others are left alone) in the memory
 * order perm (n dims, outermost first) gets the strides PyTorch gives it: products
 * of the sizes inside, zeros included (row-major strides count a zero size as 1),
 * so that it is contiguous in that format as torch's is. */
void pdt_empty_format_strides(pdt_tensor *c, int n, const int *perm);
/* 0 when t has the rank fmt (channels_last(_3d)) takes, else -1 and an
 * InvalidArgumentError naming where, the shape and the device. */
int pdt_check_memory_format_rank(pdt_state *S, const pdt_tensor *t, pdt_memory_format fmt,
                                 const char *where);
/* The layout of a *_like(src, memory_format=obj) result, as PyTorch's: preserve_format
 * (obj NULL or None too) src's memory order (Note [memory order] in pdt_tensor.h, as
 * clone() keeps it), contiguous_format row-major, channels_last(_3d) theirs (src of
 * their rank, else InvalidArgumentError naming where).  *order: NULL for row-major,
 * else the dims outermost first (perm, PDT_MAX_DIMS slots, or a static table).
 * -1 with an exception set. */
int pdt_like_order(pdt_state *S, PyObject *obj, const pdt_tensor *src, const char *where, int *perm,
                   const int **order);
/* The one argument memory_format, keyword-only as PyTorch's (a positional one
 * is a TypeError), of the method fname ("clone"; where: "clone()"), parsed as
 * above (dflt when not given). */
int pdt_memory_format_arg(pdt_state *S, const char *fname, const char *where, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames, pdt_memory_format dflt,
                          pdt_memory_format *out);
extern PyMethodDef pdt_memory_format_functions[]; /* _set_memory_formats */

int pdt_tensor_type_init(PyObject *module, pdt_state *S);
/* Wraps t (takes over its storage reference) in a new Tensor; on failure
 * releases t and returns NULL. */
PyObject *pdt_tensor_wrap_new(pdt_state *S, pdt_tensor *t);
/* Note [empty outs] in tensor_object.c: *fresh a new empty Tensor of shape (out's
 * dtype and device) when out= has no elements and is no view, else NULL; -1 with an
 * exception set on failure.  pdt_out_adopt: out takes fresh's storage (and fresh's
 * reference is dropped), once the op has written fresh. */
int pdt_out_fresh(pdt_state *S, PyObject *out, int ndim, const int64_t *shape, PyObject **fresh);
int pdt_out_adopt(PyObject *out, PyObject *fresh);
/* The tuple (a, b) of two new Tensors wrapping a and b (taken over); on failure
 * releases what is not yet wrapped and returns NULL. */
static inline PyObject *pdt_tensor_wrap_pair(pdt_state *S, pdt_tensor *a, pdt_tensor *b)
{
    PyObject *pa = pdt_tensor_wrap_new(S, a);
    if (!pa) {
        pdt_tensor_release(b);
        return NULL;
    }
    PyObject *pb = pdt_tensor_wrap_new(S, b);
    if (!pb) {
        Py_DECREF(pa);
        return NULL;
    }
    return Py_BuildValue("(NN)", pa, pb);
}
static inline int pdt_is_tensor(pdt_state *S, PyObject *o)
{
    return PyObject_TypeCheck(o, S->tensor_type);
}
static inline pdt_tensor *pdt_tensor_of(PyObject *o) { return &((PdtTensorObject *)o)->t; }

/* Note [the GIL and storages]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * While the GIL is released, another thread may run `x.data = y`, which
 * rewrites x's pdt_tensor in place and drops x's storage reference: a core
 * call handed pdt_tensor_of(x) would then read a half-written view, or memory
 * already freed.  So before releasing the GIL an op takes a view of its own
 * (a storage reference) of every tensor it reads or writes, with pdt_hold,
 * passes those views to the core, and drops them with pdt_hold_release once
 * it holds the GIL again.  The core also calls back into Python in the
 * middle of an op (placement logging, the transfer guard's log: Python code
 * that lets other threads run), so the op bindings hold their views for the
 * whole call, whether or not they release the GIL themselves. */
#define PDT_HOLD_MAX 6
typedef struct {
    int n;
    pdt_tensor v[PDT_HOLD_MAX];
} pdt_hold;
/* A view of t (NULL for NULL) that lives until pdt_hold_release(h). */
static inline const pdt_tensor *pdt_hold_view(pdt_hold *h, const pdt_tensor *t)
{
    if (!t)
        return NULL;
    pdt_tensor_share(&h->v[h->n], t);
    return &h->v[h->n++];
}
static inline void pdt_hold_release(pdt_hold *h)
{
    while (h->n > 0)
        pdt_tensor_release(&h->v[--h->n]);
}
/* Releases the views; None, or the exception of st (an op with no result). */
static inline PyObject *pdt_hold_done(pdt_state *S, pdt_hold *h, pdt_status st)
{
    pdt_hold_release(h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    Py_RETURN_NONE;
}

/* ---- storage references (storage_ref.c, Note [exports hold the storage]) ---- */

int pdt_storage_ref_type_init(PyObject *module, pdt_state *S);
/* A new _StorageRef holding a view of t's storage (a buffer exporter for CPU
 * memory). */
PyObject *pdt_storage_ref_new(pdt_state *S, const pdt_tensor *t);
/* A CPU tensor's _StorageRef, whose buffer shows bfloat16 as uint16 bits
 * (Note [bfloat16 at the NumPy boundary] in tensor_export.c). */
PyObject *pdt_tensor_buffer(PyObject *tensor);
/* The same, taking over t's reference (released on failure). */
PyObject *pdt_storage_ref_steal(pdt_state *S, pdt_tensor *t);
/* The view a _StorageRef holds. */
const pdt_tensor *pdt_storage_ref_tensor(PyObject *ref);

/* A size argument list: ints, or a single tuple/list of ints (PyTorch style). */
int pdt_parse_sizes(PyObject *const *args, Py_ssize_t nargs, int *ndim, int64_t *shape,
                    const char *fname);
/* "(2, 3)" */
PyObject *pdt_shape_tuple(const pdt_tensor *t);

/* Creation functions (tensor_create.c), conversions (tensor_convert.c), copies
 * (tensor_copy.c), queries (queries.c): method tables added to the module. */
extern PyMethodDef pdt_create_functions[];
extern PyMethodDef pdt_convert_functions[];
extern PyMethodDef pdt_query_functions[];
extern PyMethodDef pdt_tensor_copy_methods[];
extern PyMethodDef pdt_tensor_export_methods[]; /* tensor_export.c */
/* The value of a one-element tensor as a Python number, read on the host (the
 * transfer guard names the copy `what`, e.g. "item()"); NULL with an exception. */
PyObject *pdt_tensor_scalar_value(PyObject *t, const char *what);
extern PyType_Slot pdt_tensor_export_slots[];
extern PyMethodDef pdt_export_functions[];      /* to_numpy */
extern PyMethodDef pdt_random_functions[];      /* tensor_random.c: rand, randn, ... */
extern PyMethodDef pdt_tensor_random_methods[]; /* tensor_random.c: uniform_, normal_ */
/* Issue 4's files, one concern each: */
extern PyMethodDef pdt_math_methods[], pdt_math_functions[];       /* tensor_math.c   */
extern PyMethodDef pdt_round_methods[], pdt_round_functions[];     /* tensor_round.c */
extern PyMethodDef pdt_clamp_methods[], pdt_clamp_functions[];     /* tensor_clamp.c */
extern PyMethodDef pdt_erf_methods[], pdt_erf_functions[];         /* tensor_erf.c */
extern PyMethodDef pdt_gamma_methods[], pdt_gamma_functions[];     /* tensor_gamma.c */
extern PyMethodDef pdt_trig_methods[], pdt_trig_functions[];       /* tensor_trig.c */
extern PyMethodDef pdt_bitwise_methods[], pdt_bitwise_functions[]; /* tensor_bitwise.c */
extern PyMethodDef pdt_conv_functions[];                           /* tensor_conv.c */
extern PyMethodDef pdt_rnn_functions[];                            /* tensor_rnn.c */
extern PyType_Slot pdt_math_slots[];
extern PyType_Slot pdt_bitwise_slots[]; /* tensor_bitwise.c: & | ^ ~ and their forms */
/* a op b as the number slots do it (tensor_math.c, Note [lean operators]); in place
 * writes into a.  NotImplemented for an operand that is not a tensor or a number. */
PyObject *pdt_number_binary(PyObject *a, PyObject *b, pdt_binary_op op, const char *name,
                            int in_place);
/* o is our Tensor, or a subclass that kept our number slots */
int pdt_quick_is_tensor(PyObject *o);
extern PyMethodDef pdt_reduce_methods[], pdt_reduce_functions[]; /* tensor_reduce.c */
extern PyMethodDef pdt_view_methods[], pdt_view_functions[];     /* tensor_view.c   */
extern PyGetSetDef pdt_view_getset[];
/* The Python result of a core view call of self (a new view marked as self's, or the
 * error of st raised). */
PyObject *pdt_view_result(PyObject *self, pdt_status st, pdt_tensor *out);
/* self's tensor, held in h until pdt_hold_release(h) (tensor_view.c). */
const pdt_tensor *pdt_held_self(pdt_hold *h, PyObject *self);
extern PyMethodDef pdt_subscript_functions[]; /* tensor_subscript.c: t[...], t[...] = v */
extern PyType_Slot pdt_subscript_slots[];
extern PyMethodDef pdt_matmul_methods[], pdt_matmul_functions[]; /* tensor_matmul.c */
extern PyType_Slot pdt_matmul_slots[];
extern PyMethodDef pdt_event_functions[]; /* events.c        */
/* generator.c: _C._Generator; generator= of the random functions (None: NULL, the
 * default generator; else a Generator, or TypeError naming fname). */
extern PyMethodDef pdt_generator_functions[];
int pdt_generator_type_init(PyObject *module, pdt_state *S);
/* op_wrappers.c: _AutocastOp, _RecordedOp and _autocast_set_threads */
extern PyMethodDef pdt_autocast_functions[];
int pdt_op_wrapper_types_init(PyObject *module, pdt_state *S);
int pdt_generator_arg(pdt_state *S, PyObject *obj, const char *fname, pdt_generator **out);
int pdt_events_init(PyObject *module, pdt_state *S);
extern PyMethodDef pdt_config_functions[];     /* config.c        */
extern PyMethodDef pdt_collective_functions[]; /* collective.c: _allreduce_sum, _nccl_available */
/* Logs "Copying N bytes from a to b" when placement logging is on (config.c). */
void pdt_placement_note_copy(pdt_copy_kind kind, pdt_device dst, pdt_device src, size_t nbytes);

/* Builds a tensor from nested sequences, scalars, buffers, or anything
 * pdt_import_array takes (tensor_convert.c); `where` ("tensor()", "as_tensor()")
 * begins its error messages. */
PyObject *pdt_tensor_from_data(pdt_state *S, PyObject *data, int dtype, pdt_device device, int pin,
                               const char *where);
/* Wraps obj's buffer (the buffer protocol) as a CPU tensor, zero-copy: 0; 1
 * (no exception) when writable is asked and the buffer is read-only; -1 with
 * an exception naming `where` (tensor_convert.c). */
int pdt_wrap_buffer(pdt_state *S, PyObject *obj, int writable, const char *where, pdt_tensor *out);
/* Why obj's buffer cannot be wrapped as it is, though tensor() and as_tensor()
 * can copy it (from_numpy() refuses it): stored in the other byte order (a
 * big-endian NumPy array on a little-endian machine), or numbers of a type
 * pydevtensor lacks (uint16, uint32, uint64, long double), or data not aligned to
 * its elements (np.frombuffer(b, offset=1)); 0 when none, or obj has no buffer. */
enum { PDT_BUFFER_FOREIGN_ORDER = 1, PDT_BUFFER_NARROW_TYPE = 2, PDT_BUFFER_UNALIGNED = 3 };
int pdt_buffer_conversion(PyObject *obj);
/* A NumPy array sharing CPU tensor `tensor`'s memory (its base holds the
 * storage: Note [exports hold the storage]) (tensor_export.c). */
PyObject *pdt_numpy_view(PyObject *tensor);
/* -1 with exc(message) set when self requires grad, else 0 (Note [exports of tensors
 * that require grad] in tensor_export.c) */
int pdt_refuse_grad_export(PyObject *self, PyObject *exc, const char *message);
#define PDT_NUMPY_GRAD_MESSAGE                                                                     \
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
/* numpy_bfloat16.c: when obj is a NumPy array of ml_dtypes.bfloat16, 1 and
 * *as_bits a new float16 view of its memory; else 0 (-1 with an exception). */
int pdt_bf16_array_view(PyObject *obj, PyObject **as_bits);
/* The ml_dtypes.bfloat16 view of a uint16 array of bfloat16 bits (new
 * reference), or NULL with TypeError when ml_dtypes is not installed. */
PyObject *pdt_bf16_numpy_from_bits(PyObject *bits);

/* ---- the NumPy/DLPack boundary (interop.c) and the transfer guard (guard.c) ---- */
extern PyMethodDef pdt_interop_methods[], pdt_interop_functions[]; /* interop.c */
extern PyMethodDef pdt_linalg_functions[];                         /* linalg.c: LU, Cholesky */
extern PyMethodDef pdt_index_functions[];                          /* tensor_index.c (issue 17) */
extern PyMethodDef pdt_coords_functions[];                         /* tensor_coords.c */
extern PyMethodDef pdt_setitem_functions[];                        /* tensor_setitem.c */
/* x[key] for a tuple of index vectors, ranges, lists and ints over the leading dims of a
 * contiguous CPU x (Note [coordinates in C] in tensor_coords.c): a new tensor, or NULL
 * with no exception set for any other key (the Python path takes it, with its errors). */
PyObject *pdt_coords_subscript(pdt_state *S, PyObject *self, PyObject *key);
/* x.index_select(dim, index) into a new contiguous tensor, out (index: contiguous
 * 1-d int64 on x's device; 0 <= dim < x.ndim; negative_ok: indices may count from
 * the end, as x[:, v]'s do; op names the caller in errors, which on a GPU may come
 * at the next synchronisation: Note [deferred index checks] in pdt_index.h).
 * Holds the views and releases the GIL around large selections; raises nothing. */
pdt_status pdt_index_select_new(const char *op, const pdt_tensor *x, int dim,
                                const pdt_tensor *index, int negative_ok, pdt_tensor *out);
/* A contiguous x's k leading dims merged into one, the strides row-major (x's own may be
 * anything on a dim of size 1, which pdt_tensor_is_contiguous does not look at: a review
 * of Note [masks in C]); a view sharing x's storage, not a new reference. */
static inline pdt_tensor pdt_merged_rows(const pdt_tensor *x, int k)
{
    pdt_tensor rows = *x;
    int64_t lead = 1, step = 1;
    for (int d = 0; d < k; d++)
        lead *= x->shape[d];
    rows.ndim = 1 + x->ndim - k, rows.shape[0] = lead;
    memcpy(rows.shape + 1, x->shape + k, (size_t)(x->ndim - k) * sizeof *x->shape);
    for (int d = rows.ndim - 1; d >= 0; d--)
        rows.strides[d] = step, step *= rows.shape[d];
    return rows;
}
/* x[mask] into a new contiguous tensor, out, for a contiguous bool mask over the leading
 * dims of a contiguous x, both on the CPU (Note [masks in C] in tensor_index.c);
 * PDT_ERR_UNSUPPORTED, with nothing made, for any other pair (the Python path takes it,
 * with its errors).  Holds the views and releases the GIL around large selections. */
pdt_status pdt_mask_rows_new(const pdt_tensor *x, const pdt_tensor *mask, pdt_tensor *out);
/* x[key] = value in place for a bool mask and a number, or an int64 vector (CPU) or a
 * tuple of coordinates and a number or a tensor (Note [mask writes in C] in
 * tensor_setitem.c): 1 when written, 0 (nothing done, no error) for the keys, values and
 * tensors the hook must take, -1 with an exception set. */
int pdt_setitem_fast(pdt_state *S, PyObject *self, PyObject *key, PyObject *value);
/* value as a 0-d tensor of x's dtype (1), 0 for a value that is not a number of a kind
 * x's dtype holds, -1 with an exception set. */
int pdt_number_for(pdt_state *S, const char *op, const pdt_tensor *x, PyObject *value,
                   pdt_tensor *number);
/* -1 with the error raised when v, a value written into x, does not fit x's dtype
 * (pdt_scalar_fits: the message names op, x's shape and device); else 0. */
int pdt_number_refused(pdt_state *S, const char *op, pdt_scalar v, const pdt_tensor *x);
/* A Python number's kind (0 bool, 1 int, 2 float; -1 none) and a dtype's (0 bool, 1
 * integer, 2 floating): a number goes into a dtype of its kind or above. */
static inline int pdt_number_category(PyObject *o)
{
    return PyBool_Check(o) ? 0 : PyLong_CheckExact(o) ? 1 : PyFloat_CheckExact(o) ? 2 : -1;
}
static inline int pdt_dtype_category(pdt_dtype d)
{
    return d == PDT_BOOL ? 0 : pdt_dtype_is_floating(d) ? 2 : 1;
}
/* A write's ending (tensor_setitem.c): 0 for PDT_ERR_UNSUPPORTED (nothing written: the
 * hook's path), -1 with st raised, else 1 with self's version counter bumped. */
int pdt_write_done(pdt_state *S, PyObject *self, pdt_status st);
/* x[key] = value (a tensor of x's dtype, broadcast) for the keys of Note [coordinates in
 * C] (tensor_coords.c), x requiring no grad: 1, 0 for other keys, -1 with an exception. */
int pdt_coords_put(pdt_state *S, PyObject *self, PyObject *key, const pdt_tensor *value);
/* Whether key's items are of the kinds pdt_coords_put takes (a cheap look before anything
 * is made: the values are read by pdt_coords_put). */
int pdt_coords_key_plausible(pdt_state *S, const pdt_tensor *x, PyObject *key);
/* Whether index can be pdt_index_select_new's: a contiguous 1-d int64 tensor. */
static inline int pdt_index_is_vector(const pdt_tensor *index)
{
    return index->dtype == PDT_INT64 && index->ndim == 1 && pdt_tensor_is_contiguous(index);
}
extern PyMethodDef pdt_optional_functions[]; /* optional.c */
extern PyGetSetDef pdt_interop_getset[];
extern PyMethodDef pdt_guard_functions[]; /* guard.c   */
/* Installs the transfer guard's copy hook (once per process). */
int pdt_guard_init(void);
/* pdt_copy_to_new(src, device, dtype) on behalf of op ("item()", "to_numpy()"),
 * which the transfer guard sees as implicit when implicit is 1 (Note [implicit
 * and explicit transfers] in guard.c).  The GIL is released across devices.
 * 0, or -1 with an exception set. */
int pdt_copy_for(pdt_state *S, const pdt_tensor *src, pdt_device device, pdt_dtype dtype,
                 const char *op, int implicit, pdt_tensor *out);
/* A CPU tensor holding t's values: a new view of t on the CPU, else an
 * implicit, counted device-to-host copy made for op. */
int pdt_host_values(pdt_state *S, const pdt_tensor *t, const char *op, pdt_tensor *out);
/* Wraps foreign memory as a tensor (zero-copy).  first: the address of element
 * (0, ..., 0); strides in elements, NULL for row-major contiguous.  release(ctx)
 * runs when the last view dies; on failure it is not called (the caller keeps
 * ctx) and an exception naming `where` is set.  0 or -1. */
int pdt_wrap_foreign(pdt_state *S, pdt_device device, pdt_dtype dtype, int ndim,
                     const int64_t *shape, const int64_t *strides, char *first,
                     void (*release)(void *ctx), void *ctx, const char *where, pdt_tensor *out);
/* DLPack (dlpack.c): the __dlpack__ and __dlpack_device__ methods, and the
 * import of a capsule or of an object with __dlpack__ (copy: -1 for None, 0
 * or 1): 0 with a zero-copy tensor, 1 with a copy (read-only memory and copy
 * 1), -1 with an exception set. */
PyObject *pdt_dlpack_export(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames);
PyObject *pdt_dlpack_device(PyObject *self, PyObject *unused);
int pdt_import_dlpack(pdt_state *S, PyObject *obj, int copy, pdt_tensor *out);
/* Imports obj zero-copy when it offers __dlpack__, __cuda_array_interface__ or
 * __array_interface__ (read-only memory is copied).  1 with *out set, 0 when
 * obj offers none of them, -1 with an exception set. */
int pdt_import_array(pdt_state *S, PyObject *obj, const char *where, pdt_tensor *out);

/* ---- autograd (autograd.c, Note [where the graph is recorded]) ---- */
extern PyMethodDef pdt_autograd_methods[], pdt_autograd_functions[];
extern PyGetSetDef pdt_autograd_getset[];
/* The Python function that records ops (pydevtensor/autograd/dispatch.py),
 * NULL until pydevtensor.autograd is imported. */
extern PyObject *pdt_autograd_dispatcher;
/* The Tensor type of the module whose package installed the dispatcher (NULL till then):
 * Note [the autograd globals] in autograd.c. */
extern PyTypeObject *pdt_autograd_tensor_type;
int pdt_grad_enabled(void); /* thread-local: no_grad() turns it off */
int pdt_grad_set(int on);   /* sets it; returns the previous mode */
/* 1 when o requires grad, or is a view whose base does (its place in the graph may
 * have to follow the base's: Note [views and their base] in autograd_view.c). */
static inline int pdt_tensor_object_requires_grad(const PdtTensorObject *o)
{
    return o->requires_grad || (o->base && ((const PdtTensorObject *)o->base)->requires_grad);
}
/* 1 when o is a Tensor that requires grad (or a list or tuple, a subclass too, holding
 * one: a namedtuple of tensors is looked into, as dispatch.py's _wants_grad does). */
static inline int pdt_arg_requires_grad(PyObject *o)
{
    if (!pdt_autograd_tensor_type) /* no dispatcher yet: nothing is recorded */
        return 0;
    if (PyObject_TypeCheck(o, pdt_autograd_tensor_type))
        return pdt_tensor_object_requires_grad((PdtTensorObject *)o);
    if (PyList_Check(o) || PyTuple_Check(o)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; i++)
            if (PyObject_TypeCheck(items[i], pdt_autograd_tensor_type) &&
                pdt_tensor_object_requires_grad((PdtTensorObject *)items[i]))
                return 1;
    }
    return 0;
}
/* The one cheap check an op binding makes: does any argument (self, the
 * positional and the keyword values) require grad, with grad mode on? */
static inline int pdt_autograd_wanted(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    int any = self && pdt_arg_requires_grad(self);
    Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    for (Py_ssize_t i = 0; !any && i < n; i++)
        any = pdt_arg_requires_grad(args[i]);
    return any && pdt_autograd_dispatcher && pdt_grad_enabled();
}
/* Runs op `name` through the recorder: dispatcher(name, method, args, kwargs)
 * where args starts with self when self is not NULL; method: 1 for
 * Tensor.name, 0 for the function pydevtensor._C.name. */
PyObject *pdt_autograd_call(const char *name, int method, PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames);
/* The recorder's common case in C (autograd_record.c, Note [recording in C]):
 * sets *handled and returns the result (NULL: an exception) when it took the
 * call; otherwise *handled is 0 and the Python dispatcher is to run. */
PyObject *pdt_autograd_record(const char *name, int method, PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames, int *handled);
/* Turns the C recorder off (a new dispatcher must see every call). */
void pdt_autograd_recorder_off(void);
/* A Node's edges (next_functions; Note [edges in C], autograd_record.c): a new
 * reference to what next_functions gives, and next_functions = edges (a tuple). */
PyObject *pdt_node_edges(PyObject *node);
int pdt_node_set_edges(PyObject *node, PyObject *edges);
extern PyMethodDef pdt_autograd_record_functions[];
extern PyMethodDef pdt_autograd_engine_functions[]; /* autograd_engine.c */
/* The hook each op binding starts with: one place per op.  NAME must be a
 * string literal: the C recorder keys its cache by the address. */
#define PDT_AUTOGRAD_HOOK(NAME, METHOD, SELF, ARGS, NARGS, KWNAMES)                                \
    do {                                                                                           \
        if (pdt_autograd_wanted(SELF, ARGS, NARGS, KWNAMES))                                       \
            return pdt_autograd_call(NAME, METHOD, SELF, ARGS, NARGS, KWNAMES);                    \
    } while (0)
/* After a write in place into t (Note [version counter] in pdt_tensor.h). */
static inline void pdt_bump_version(PyObject *t) { pdt_tensor_bump_version(pdt_tensor_of(t)); }
/* requires_grad=True at creation: checks the dtype; 0 or -1. */
int pdt_set_requires_grad(PyObject *t, int flag, const char *fname);
/* r (a new tensor or NULL), with requires_grad set when the keyword
 * requires_grad (among kwnames, values at kwvalues) is true. */
PyObject *pdt_finish_requires_grad(PyObject *r, PyObject *const *kwvalues, PyObject *kwnames,
                                   const char *fname);
/* Marks o as output nr of node (a new reference is taken), or, node NULL, as a
 * leaf that requires no grad (_set_grad_fn, the C recorder). */
void pdt_autograd_set_grad_fn(PdtTensorObject *o, PyObject *node, int nr);
/* Views (autograd_view.c, Note [views and their base]). */
enum { PDT_VIEW_NO_GRAD = 1, PDT_VIEW_MULTI_OUTPUT = 2 };
/* view (a new tensor object) is a view of src when they share storage and version
 * counter: it records src's base (or src) as its own, and the grad mode. */
void pdt_mark_view(PyObject *view, PyObject *src);
/* A view whose base requires grad and was modified in place since the view's place in
 * the graph was set takes its new place (the Python regenerator); 0 or -1. */
int pdt_view_refresh(PyObject *t);
extern PyMethodDef pdt_autograd_view_methods[], pdt_autograd_view_functions[];
/* The private kernels that write in place without recording (_index_put, _index_add,
 * _basic_setitem) refuse, with grad mode on, a destination or a value that requires
 * grad: the write would be silently missing from the graph (a backward's own
 * computation under create_graph=True, say).  0, or -1 with RuntimeError set. */
int pdt_refuse_unrecorded_write(const char *fname, PyObject *dst, PyObject *value);
extern PyGetSetDef pdt_autograd_view_getset[];
/* Drops the autograd fields (dealloc). */
void pdt_autograd_clear(PdtTensorObject *o);

/* Releases the GIL around work on more than this many elements. */
#define PDT_GIL_RELEASE_NUMEL 65536
/* Runs STMT (which touches no Python object) without the GIL when numel is past
 * PDT_GIL_RELEASE_NUMEL, else with it; the caller holds the storages it uses. */
#define PDT_RUN_RELEASING_GIL(numel, STMT)                                                         \
    do {                                                                                           \
        if ((numel) > PDT_GIL_RELEASE_NUMEL) {                                                     \
            Py_BEGIN_ALLOW_THREADS                                                                 \
            STMT;                                                                                  \
            Py_END_ALLOW_THREADS                                                                   \
        } else {                                                                                   \
            STMT;                                                                                  \
        }                                                                                          \
    } while (0)

#endif /* PDT_MODULE_H */
