/* guard.c - the transfer guard's C side: the levels (a process-wide default
 * and a per-thread override), the copy hook the core calls before every
 * counted copy, and the marking of copies as implicit.  pydevtensor/_guard.py
 * wraps it as transfer_guard(level) and config.set_transfer_guard(level).
 *
 * Note [implicit and explicit transfers]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An explicit transfer is one the caller asked for: .cpu(), .to(), .cuda(),
 * copy_(), tensor(t, device=...), to_numpy(t), .numpy(force=True), a DLPack
 * export to another device.  An implicit one is a read of device data that
 * copies as a side effect: item(), float(), int(), bool(), tolist(), repr()
 * and str().  The core cannot tell the two apart, so the bindings that make an
 * implicit copy say so: they run it through pdt_copy_for() with implicit=1,
 * which records (op, tensor) in a thread-local slot for the length of that one
 * pdt_copy; the hook reads the slot.  The slot is per thread because the copy
 * runs on the thread that asked for it (with or without the GIL).  A read the
 * core makes on its own (an index check reading an index's min and max before a
 * write) is marked in the core (pdt_set_implicit_read) and is implicit too.
 *
 * Copies within one device (clone() on a GPU) are counted by the core but are
 * not transfers: the guard lets them through at every level.
 *
 * Note [guard levels]
 * ~~~~~~~~~~~~~~~~~~~
 * As in JAX: transfer_guard(level) sets the calling thread's level for a
 * block; config.set_transfer_guard(level) sets the default that threads
 * without an override use.  The copy hook is installed once, at module init;
 * at "allow" it returns at once (two loads), without the GIL.  It takes the
 * GIL only to log; a refused transfer records a PDT_ERR_TRANSFER message,
 * which the binding raises as TransferError.  The levels live in C statics,
 * not in module state, because the core's hook is process-wide.
 *
 * Note [sync debug mode]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * torch.cuda.set_sync_debug_mode: 'warn' (1) warns and 'error' (2) raises on
 * an operation that makes the host wait for a GPU.  Here the hook sees them
 * where the transfer guard does: an implicit device-to-host transfer (the reads
 * of Note [implicit and explicit transfers], and the core's own reads, an index
 * check), each of which waits for the device's stream.  It does not see the
 * explicit copies (.cpu(), .to('cpu'), which wait too unless non_blocking), nor
 * cuda.synchronize(), Event.synchronize() or Stream.synchronize(), which
 * PyTorch's also flags.  The warning points at the nearest frame outside
 * pydevtensor (_runtime_flags.outside_level); the error is a TransferError, a
 * RuntimeError as PyTorch's.  The mode is process-wide, as PyTorch's.  The
 * transfer guard decides first: a transfer it refuses does not run, so it waits
 * for nothing and is not reported as synchronising (its TransferError alone).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "args.h"

enum {
    GUARD_ALLOW = 0,
    GUARD_LOG,
    GUARD_DISALLOW,
    GUARD_LOG_EXPLICIT,
    GUARD_DISALLOW_EXPLICIT,
    GUARD_NUM_LEVELS
};

static const char *const level_names[GUARD_NUM_LEVELS] = {"allow", "log", "disallow",
                                                          "log_explicit", "disallow_explicit"};

static atomic_int global_level;            /* GUARD_ALLOW until set */
static atomic_int sync_debug_mode;         /* Note [sync debug mode]: 0, 1 warn, 2 error */
static _Thread_local int local_level = -1; /* -1: use global_level */

/* The copy being made on this thread, when a binding described it. */
static _Thread_local const char *copy_op;
static _Thread_local const pdt_tensor *copy_src;
static _Thread_local int copy_implicit;

static int effective_level(void)
{
    return local_level >= 0 ? local_level
                            : atomic_load_explicit(&global_level, memory_order_relaxed);
}

static const char *const kind_words[5] = {"host-to-host", "host-to-device", "device-to-host",
                                          "device-to-device", "device-to-device (peer)"};

/* "float32 tensor of shape (2, 3)" */
static void tensor_words(const pdt_tensor *t, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "%s tensor of shape (", pdt_dtype_name(t->dtype));
    for (int i = 0; i < t->ndim && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? ", " : "",
                                 (long long)t->shape[i]);
    if (used < n)
        snprintf(buf + used, n - used, t->ndim == 1 ? ",)" : ")");
}

/* "implicit device-to-host transfer by item() of a float32 tensor of shape
 * (2, 3) from cuda:0 to cpu (24 bytes)" */
static void describe(pdt_copy_kind kind, pdt_device dst, pdt_device src, size_t nbytes,
                     int implicit, const char *op, char *buf, size_t n)
{
    char what[200] = "", dn[32], sn[32], bytes[32];
    if (copy_src)
        tensor_words(copy_src, what, sizeof what);
    snprintf(buf, n, "%s %s transfer%s%s%s%s from %s to %s (%s)",
             implicit ? "implicit" : "explicit", kind_words[kind], op ? " by " : "", op ? op : "",
             copy_src ? " of a " : "", what, pdt_device_str(src, sn, sizeof sn),
             pdt_device_str(dst, dn, sizeof dn), pdt_format_bytes(nbytes, bytes, sizeof bytes));
}

static int interpreter_finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

/* Runs call(msg) with the GIL for log_transfer and warn_sync: may be called
 * with or without the GIL, does nothing once the interpreter is finalizing, and
 * keeps an exception already set.  call returns 0, or -1 with its exception
 * (if any) left set for the binding to raise: then the copy is cancelled with
 * "<what> failed: <msg>". */
static pdt_status in_python(int (*call)(const char *msg), const char *what, const char *msg)
{
    if (!Py_IsInitialized() || interpreter_finalizing())
        return PDT_OK;
    pdt_status st = PDT_OK;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (call(msg) == 0) {
        PyErr_Restore(et, ev, tb);
    } else {
        Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
        st = pdt_fail(PDT_ERR_TRANSFER, "%s failed: %s", what, msg);
    }
    PyGILState_Release(gil);
    return st;
}

/* Logs msg at WARNING on the logger "pydevtensor.transfer" (with the GIL:
 * in_python); a failure of the logging call cancels the copy. */
static int log_transfer(const char *msg)
{
    PyObject *logging = PyImport_ImportModule("logging");
    PyObject *logger = logging
                           ? PyObject_CallMethod(logging, "getLogger", "s", "pydevtensor.transfer")
                           : NULL;
    PyObject *r = logger ? PyObject_CallMethod(logger, "warning", "ss", "%s", msg) : NULL;
    const int rc = r ? 0 : -1;
    Py_XDECREF(r);
    Py_XDECREF(logger);
    Py_XDECREF(logging);
    return rc;
}

/* Warns (a UserWarning at the nearest frame outside pydevtensor) that msg's
 * transfer synchronises (Note [sync debug mode]; with the GIL: in_python); a
 * warning turned into an error cancels the copy. */
static int warn_sync(const char *msg)
{
    PyObject *flags = PyImport_ImportModule("pydevtensor._runtime_flags");
    PyObject *level = flags ? PyObject_CallMethod(flags, "outside_level", NULL) : NULL;
    const long stacklevel = level ? PyLong_AsLong(level) : -1;
    int rc = -1;
    if (stacklevel > 0)
        rc = PyErr_WarnFormat(PyExc_UserWarning, stacklevel,
                              "called a synchronizing CUDA operation: %s "
                              "(cuda.set_sync_debug_mode('warn'))",
                              msg);
    Py_XDECREF(level);
    Py_XDECREF(flags);
    return rc;
}

/* The core's copy hook (pdt_set_copy_hook): the transfer guard decides, then an
 * allowed copy is noted for placement logging (config.c). */
static pdt_status guard_hook(pdt_copy_kind kind, pdt_device dst, pdt_device src, size_t nbytes)
{
    if (kind == PDT_COPY_H2H || kind == PDT_COPY_D2D)
        return PDT_OK; /* within one device: not a transfer */
    int level = effective_level();
    /* a read the core makes for an op on its own (an index check): implicit */
    const char *core_op = copy_op ? NULL : pdt_implicit_read();
    char core_words[120];
    if (core_op)
        snprintf(core_words, sizeof core_words, "the index check of %s", core_op);
    const int implicit = copy_implicit || core_op;
    /* the guard first: a refused transfer does not run, so it syncs nothing */
    const int deny = level == GUARD_DISALLOW_EXPLICIT || (level == GUARD_DISALLOW && implicit);
    const int log = level == GUARD_LOG_EXPLICIT || (level == GUARD_LOG && implicit);
    const int sync_mode = atomic_load_explicit(&sync_debug_mode, memory_order_relaxed);
    const int sync = sync_mode && implicit && kind == PDT_COPY_D2H;
    if (deny || log || sync) {
        char msg[400];
        describe(kind, dst, src, nbytes, implicit, core_op ? core_words : copy_op, msg, sizeof msg);
        if (deny)
            return pdt_fail(PDT_ERR_TRANSFER, "%s refused: the transfer guard is '%s' (%s)%s", msg,
                            level_names[level],
                            level == GUARD_DISALLOW ? "implicit transfers raise"
                                                    : "every transfer between devices raises",
                            level == GUARD_DISALLOW
                                ? "; copy explicitly with .cpu(), .to() or pydevtensor.to_numpy(t)"
                                : "; allow it with pydevtensor.transfer_guard('allow')");
        if (sync && sync_mode == 2)
            return pdt_fail(PDT_ERR_TRANSFER,
                            "called a synchronizing CUDA operation: %s refused: the sync debug "
                            "mode is 'error' (cuda.set_sync_debug_mode(0) lets it run)",
                            msg);
        pdt_status st = sync
                            ? in_python(warn_sync, "warning of a synchronizing CUDA operation", msg)
                            : PDT_OK;
        if (st == PDT_OK && log)
            st = in_python(log_transfer, "logging a transfer", msg);
        if (st != PDT_OK)
            return st;
    }
    pdt_placement_note_copy(kind, dst, src, nbytes);
    return PDT_OK;
}

int pdt_guard_init(void)
{
    pdt_set_copy_hook(guard_hook);
    return 0;
}

int pdt_copy_for(pdt_state *S, const pdt_tensor *src, pdt_device device, pdt_dtype dtype,
                 const char *op, int implicit, pdt_tensor *out)
{
    const char *saved_op = copy_op;
    const pdt_tensor *saved_src = copy_src;
    int saved_implicit = copy_implicit;
    pdt_status st;
    copy_op = op, copy_src = src, copy_implicit = implicit;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    copy_src = src = pdt_hold_view(&h, src);
    if (!pdt_device_eq(device, src->device) || pdt_tensor_numel(src) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        st = pdt_copy_to_new(src, device, dtype, 0, 0, out);
        Py_END_ALLOW_THREADS
    } else {
        st = pdt_copy_to_new(src, device, dtype, 0, 0, out);
    }
    pdt_hold_release(&h);
    copy_op = saved_op, copy_src = saved_src, copy_implicit = saved_implicit;
    return st == PDT_OK ? 0 : pdt_raise_int(S, st);
}

int pdt_host_values(pdt_state *S, const pdt_tensor *t, const char *op, pdt_tensor *out)
{
    if (t->device.kind == PDT_CPU) {
        pdt_tensor_share(out, t);
        return 0;
    }
    pdt_device cpu = {PDT_CPU, 0};
    return pdt_copy_for(S, t, cpu, t->dtype, op, 1, out);
}

/* ---- Python functions (wrapped by pydevtensor/_guard.py and config.py) ---- */

/* The level named by obj; None gives -1 when allow_none. */
static int level_from_object(PyObject *obj, int allow_none)
{
    if (allow_none && obj == Py_None)
        return -1;
    if (PyUnicode_Check(obj)) {
        for (int i = 0; i < GUARD_NUM_LEVELS; i++)
            if (PyUnicode_CompareWithASCIIString(obj, level_names[i]) == 0)
                return i;
    } else {
        PyErr_Format(PyExc_TypeError, "transfer guard level must be a str, got %.100s",
                     Py_TYPE(obj)->tp_name);
        return -2;
    }
    PyErr_Format(PyExc_ValueError,
                 "unknown transfer guard level %R; expected one of 'allow', 'log', "
                 "'disallow', 'log_explicit', 'disallow_explicit'",
                 obj);
    return -2;
}

static PyObject *level_object(int level)
{
    return level < 0 ? Py_NewRef(Py_None) : PyUnicode_FromString(level_names[level]);
}

/* _check_transfer_guard(level): raises for an unknown level. */
static PyObject *g_check(PyObject *m, PyObject *level)
{
    (void)m;
    return level_from_object(level, 0) < 0 ? NULL : Py_NewRef(Py_None);
}

/* _set_transfer_guard(level) -> the previous default level. */
static PyObject *g_set_global(PyObject *m, PyObject *level)
{
    (void)m;
    int v = level_from_object(level, 0);
    return v < 0 ? NULL : level_object(atomic_exchange(&global_level, v));
}

/* _set_thread_transfer_guard(level or None) -> the thread's previous override or None. */
static PyObject *g_set_local(PyObject *m, PyObject *level)
{
    (void)m;
    int v = level_from_object(level, 1);
    if (v < -1)
        return NULL;
    int previous = local_level;
    local_level = v;
    return level_object(previous);
}

/* _get_transfer_guard() -> the level in effect on the calling thread. */
static PyObject *g_get(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    return level_object(effective_level());
}

/* _implicit_cpu(t, op): t itself on the CPU, else a counted copy the guard
 * sees as an implicit read by op (repr() uses it). */
static PyObject *g_implicit_cpu(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(m);
    const char *op;
    if (nargs != 2 || !pdt_is_tensor(S, args[0]) || !(op = PyUnicode_AsUTF8(args[1]))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_implicit_cpu(tensor, op: str)");
        return NULL;
    }
    const pdt_tensor *t = pdt_tensor_of(args[0]);
    if (t->device.kind == PDT_CPU)
        return Py_NewRef(args[0]);
    pdt_tensor h;
    if (pdt_host_values(S, t, op, &h) < 0)
        return NULL;
    return pdt_tensor_wrap_new(S, &h);
}

/* _copy_for(t, device, op, implicit): a copy of t on device (t's dtype), made
 * on behalf of op ("pickle") and seen by the transfer guard as implicit or
 * explicit; counted like every copy. */
static PyObject *g_copy_for(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(m);
    const char *op;
    pdt_device d;
    int implicit;
    if (nargs != 4 || !pdt_is_tensor(S, args[0]) || !(op = PyUnicode_AsUTF8(args[2]))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_copy_for(tensor, device, op: str, implicit)");
        return NULL;
    }
    pdt_device cpu = {PDT_CPU, 0};
    if (pdt_device_from_object(S, args[1], cpu, &d) < 0 ||
        (implicit = PyObject_IsTrue(args[3])) < 0)
        return NULL;
    const pdt_tensor *t = pdt_tensor_of(args[0]);
    pdt_tensor c;
    if (pdt_copy_for(S, t, d, t->dtype, op, implicit, &c) < 0)
        return NULL;
    return pdt_tensor_wrap_new(S, &c);
}

/* _guard_probe(kind, op=None): runs the installed copy hook as the core would
 * before a transfer of a (2, 3) float32 tensor between cuda:0 and the CPU
 * (kind: "host_to_device", "device_to_host", "device_to_device" or "peer"),
 * described as an implicit read by op when op is given.  For tests on machines
 * without a GPU, where the CPU makes no counted copies. */
static PyObject *g_probe(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const kinds[5] = {NULL, "host_to_device", "device_to_host",
                                         "device_to_device", "peer"};
    pdt_state *S = pdt_state_of_module(m);
    const char *kind_name = nargs >= 1 && nargs <= 2 ? PyUnicode_AsUTF8(args[0]) : NULL;
    const char *op = nargs == 2 && args[1] != Py_None ? PyUnicode_AsUTF8(args[1]) : NULL;
    int kind = 0;
    for (int k = 1; kind_name && k < 5; k++)
        if (strcmp(kind_name, kinds[k]) == 0)
            kind = k;
    if (!kind || (nargs == 2 && args[1] != Py_None && !op)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_guard_probe(kind, op=None): kind is one of "
                                              "host_to_device, device_to_host, "
                                              "device_to_device, peer");
        return NULL;
    }
    pdt_device cpu = {PDT_CPU, 0}, gpu0 = {PDT_CUDA, 0}, gpu1 = {PDT_CUDA, 1};
    pdt_device src = kind == PDT_COPY_H2D ? cpu : gpu0;
    pdt_device dst = kind == PDT_COPY_D2H ? cpu : kind == PDT_COPY_PEER ? gpu1 : gpu0;
    pdt_tensor fake = {0};
    fake.device = src, fake.dtype = PDT_FLOAT32, fake.ndim = 2;
    fake.shape[0] = 2, fake.shape[1] = 3;
    const char *saved_op = copy_op;
    const pdt_tensor *saved_src = copy_src;
    int saved_implicit = copy_implicit;
    copy_op = op, copy_src = op ? &fake : NULL, copy_implicit = op != NULL;
    pdt_status st = guard_hook((pdt_copy_kind)kind, dst, src, 24);
    copy_op = saved_op, copy_src = saved_src, copy_implicit = saved_implicit;
    return st == PDT_OK ? Py_NewRef(Py_None) : pdt_raise(S, st);
}

/* _set_sync_debug_mode(mode) -> the previous mode (Note [sync debug mode]);
 * pydevtensor/_cuda_sync_debug.py checks mode (0, 1 or 2). */
static PyObject *g_set_sync_debug(PyObject *m, PyObject *mode)
{
    (void)m;
    long v = PyLong_AsLong(mode);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (v < 0 || v > 2) {
        PyErr_Format(PyExc_ValueError, "sync debug mode must be 0, 1 or 2, got %ld", v);
        return NULL;
    }
    return PyLong_FromLong(atomic_exchange(&sync_debug_mode, (int)v));
}

/* _get_sync_debug_mode() -> 0, 1 or 2 */
static PyObject *g_get_sync_debug(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    return PyLong_FromLong(atomic_load(&sync_debug_mode));
}

PyMethodDef pdt_guard_functions[] = {
    {"_check_transfer_guard", g_check, METH_O, NULL},
    {"_set_transfer_guard", g_set_global, METH_O, NULL},
    {"_set_thread_transfer_guard", g_set_local, METH_O, NULL},
    {"_get_transfer_guard", g_get, METH_NOARGS, NULL},
    {"_implicit_cpu", (PyCFunction)(void (*)(void))g_implicit_cpu, METH_FASTCALL, NULL},
    {"_guard_probe", (PyCFunction)(void (*)(void))g_probe, METH_FASTCALL, NULL},
    {"_copy_for", (PyCFunction)(void (*)(void))g_copy_for, METH_FASTCALL, NULL},
    {"_set_sync_debug_mode", g_set_sync_debug, METH_O, NULL},
    {"_get_sync_debug_mode", g_get_sync_debug, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
