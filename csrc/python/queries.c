/* queries.c - module functions that ask the core about devices, memory,
 * transfers and the build: the C side of pydevtensor.cuda, memory stats,
 * transfer_stats() and build_info().  the modules in pydevtensor/ give them their public
 * names and shapes. */
#include "args.h"
#include "docstrings_queries.h"
#include "pdt_interop.h"
#include "pdt_library.h"

static int device_arg(pdt_state *S, PyObject *obj, pdt_device *out)
{
    pdt_device dflt = {PDT_CUDA, pdt_current_cuda()};
    return pdt_device_from_object(S, obj, dflt, out);
}

static PyObject *q_device_count(PyObject *m, PyObject *kind_obj)
{
    (void)m;
    long kind = PyLong_AsLong(kind_obj);
    if (kind == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(pdt_device_count((int)kind));
}

static PyObject *q_cuda_status(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    const pdt_backend *b = pdt_backend_of(PDT_CUDA);
    if (!b)
        return Py_BuildValue("(OO)", Py_False, Py_None);
    const char *why = b->device_count() > 0 ? NULL : b->unavailable_reason();
    return Py_BuildValue("(Os)", Py_True, why);
}

/* Whether the build has the CUDA backend, without asking for devices: the first device
 * query initialises the driver, after which a forked child cannot use CUDA (Note [CUDA in
 * a forked child], cuda_check.h), so import asks this instead of _cuda_status. */
static PyObject *q_cuda_built(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    return PyBool_FromLong(pdt_backend_of(PDT_CUDA) != NULL);
}

static PyObject *q_check_device(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st = pdt_device_check(d);
    return st == PDT_OK ? pdt_device_object(S, d) : pdt_raise(S, st);
}

static PyObject *q_current_device(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    return PyLong_FromLong(pdt_current_cuda());
}

static PyObject *q_set_device(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    if (d.kind != PDT_CUDA) {
        PyErr_SetString(PyExc_ValueError, "set_device(): expected a CUDA device");
        return NULL;
    }
    pdt_status st = pdt_set_current_cuda(d.index);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    Py_RETURN_NONE;
}

static PyObject *q_properties(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    pdt_device_props p;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st = pdt_device_check(d);
    if (st == PDT_OK)
        st = pdt_backend_of(d.kind)->properties(d.index, &p);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    const unsigned char *u = p.uuid;
    char uuid[37]; /* 8-4-4-4-12 hex digits, as PyTorch prints cudaDeviceProp::uuid */
    snprintf(uuid, sizeof uuid,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    return Py_BuildValue(
        "{s:s,s:K,s:i,s:i,s:i,s:N,s:N,s:i,s:i,s:i,s:i,s:K,s:K,s:K,s:i,s:s,s:i,s:i,s:i,s:N}", "name",
        p.name, "total_memory", (unsigned long long)p.total_memory, "multi_processor_count",
        p.multiprocessors, "major", p.major, "minor", p.minor, "is_integrated",
        PyBool_FromLong(p.is_integrated), "is_multi_gpu_board",
        PyBool_FromLong(p.is_multi_gpu_board), "max_threads_per_block", p.max_threads_per_block,
        "max_threads_per_multi_processor", p.max_threads_per_sm, "warp_size", p.warp_size,
        "regs_per_multiprocessor", p.regs_per_sm, "shared_memory_per_block",
        (unsigned long long)p.shared_per_block, "shared_memory_per_block_optin",
        (unsigned long long)p.shared_per_block_optin, "shared_memory_per_multiprocessor",
        (unsigned long long)p.shared_per_sm, "L2_cache_size", p.l2_cache_size, "uuid", uuid,
        "pci_bus_id", p.pci_bus_id, "pci_device_id", p.pci_device_id, "pci_domain_id",
        p.pci_domain_id, "_memory_pools", PyBool_FromLong(p.memory_pools));
}

/* _can_access_peer(device, peer): two device objects of one kind, each checked */
static PyObject *q_can_access_peer(PyObject *m, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(m);
    PyObject *a, *b;
    pdt_device d, peer;
    int can = 0;
    if (!PyArg_ParseTuple(args, "OO:_can_access_peer", &a, &b) || device_arg(S, a, &d) < 0 ||
        device_arg(S, b, &peer) < 0)
        return NULL;
    pdt_status st = pdt_device_check(d);
    if (st == PDT_OK)
        st = pdt_device_check(peer);
    const pdt_backend *be = st == PDT_OK ? pdt_backend_of(d.kind) : NULL;
    if (st == PDT_OK && peer.kind == d.kind && be->can_access_peer)
        st = be->can_access_peer(d.index, peer.index, &can);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return PyBool_FromLong(can);
}

static PyObject *q_mem_get_info(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    size_t free_b = 0, total_b = 0;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st = pdt_device_check(d);
    if (st == PDT_OK)
        st = pdt_backend_of(d.kind)->mem_info(d.index, &free_b, &total_b);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return Py_BuildValue("(KK)", (unsigned long long)free_b, (unsigned long long)total_b);
}

static PyObject *q_memory_stats(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    pdt_memory_stats ms = {0};
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st = pdt_memory_get(d, &ms);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K}", "allocated", (unsigned long long)ms.allocated,
                         "peak", (unsigned long long)ms.peak, "reserved",
                         (unsigned long long)ms.reserved, "reserved_peak",
                         (unsigned long long)ms.reserved_peak, "limit",
                         (unsigned long long)ms.limit);
}

static PyObject *q_reset_peak(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st = pdt_memory_reset_peak(d);
    return st == PDT_OK ? Py_NewRef(Py_None) : pdt_raise(S, st);
}

static PyObject *q_empty_cache(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st = pdt_memory_empty_cache(d);
    return st == PDT_OK ? Py_NewRef(Py_None) : pdt_raise(S, st);
}

static PyObject *q_set_memory_limit(PyObject *m, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(m);
    PyObject *obj;
    unsigned long long limit;
    pdt_device d;
    if (!PyArg_ParseTuple(args, "OK:_set_memory_limit", &obj, &limit) || device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st = pdt_memory_set_limit(d, limit);
    return st == PDT_OK ? Py_NewRef(Py_None) : pdt_raise(S, st);
}

static PyObject *q_synchronize(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_synchronize(d);
    Py_END_ALLOW_THREADS
    return st == PDT_OK ? Py_NewRef(Py_None) : pdt_raise(S, st);
}

static PyObject *q_stream_query(PyObject *m, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(m);
    pdt_device d;
    if (device_arg(S, obj, &d) < 0)
        return NULL;
    int done = 1;
    pdt_status st = pdt_stream_query(d, &done);
    return st == PDT_OK ? PyBool_FromLong(done) : pdt_raise(S, st);
}

static const char *const transfer_names[5] = {NULL, "host_to_device", "device_to_host",
                                              "device_to_device", "peer"};

static PyObject *q_transfer_stats(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    pdt_transfer_stats ts;
    pdt_transfer_stats_get(&ts);
    PyObject *d = PyDict_New();
    for (int k = 1; d && k < 5; k++) {
        PyObject *v = Py_BuildValue("{s:K,s:K}", "count", (unsigned long long)ts.count[k], "bytes",
                                    (unsigned long long)ts.bytes[k]);
        if (!v || PyDict_SetItemString(d, transfer_names[k], v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    /* Note [collectives are counted] in pdt_collective.h */
    PyObject *v = d ? Py_BuildValue("{s:K,s:K}", "count", (unsigned long long)ts.collective_count,
                                    "bytes", (unsigned long long)ts.collective_bytes)
                    : NULL;
    if (d && (!v || PyDict_SetItemString(d, "collective", v) < 0))
        Py_CLEAR(d);
    Py_XDECREF(v);
    return d;
}

static PyObject *q_reset_transfer_stats(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    pdt_transfer_stats_reset();
    Py_RETURN_NONE;
}

static PyObject *q_versions(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    const pdt_backend *b = pdt_backend_of(PDT_CUDA);
    int driver = 0, runtime = 0;
    if (b && b->versions)
        b->versions(&driver, &runtime);
    return Py_BuildValue("(ii)", driver, runtime);
}

static PyObject *q_describe(PyObject *m, PyObject *kind_obj)
{
    (void)m;
    long kind = PyLong_AsLong(kind_obj);
    if (kind == -1 && PyErr_Occurred())
        return NULL;
    char buf[512];
    pdt_backend_prepare_gemm((int)kind); /* a library that sets the environment: under the GIL */
    Py_BEGIN_ALLOW_THREADS               /* may load a library */
    pdt_backend_describe((int)kind, buf, sizeof buf);
    Py_END_ALLOW_THREADS
    if (!buf[0])
        Py_RETURN_NONE;
    return PyUnicode_FromString(buf);
}

static PyObject *q_add_library_dir(PyObject *m, PyObject *args)
{
    (void)m;
    int kind;
    const char *dir;
    if (!PyArg_ParseTuple(args, "is:_add_library_dir", &kind, &dir))
        return NULL;
    pdt_backend_add_library_dir(kind, dir);
    Py_RETURN_NONE;
}

static PyObject *q_set_num_threads(PyObject *m, PyObject *n_obj)
{
    (void)m;
    long n = PyLong_AsLong(n_obj);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 1 || n > 1 << 20) {
        PyErr_Format(PyExc_ValueError,
                     "set_num_threads(%ld): the number of threads must be at least 1 and at "
                     "most 2^20",
                     n);
        return NULL;
    }
    int used;
    Py_BEGIN_ALLOW_THREADS /* waits for a parallel loop; may load OpenBLAS */
    used = pdt_backend_set_num_threads(PDT_CPU, (int)n);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(used);
}

static PyObject *q_get_num_threads(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    int n;
    Py_BEGIN_ALLOW_THREADS /* starts the pool on first use */
    n = pdt_backend_num_threads(PDT_CPU);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(n);
}

/* _set_flush_denormal(on): FTZ/DAZ in this thread and the CPU pool's; True when set. */
static PyObject *q_set_flush_denormal(PyObject *m, PyObject *on)
{
    (void)m;
    return PyBool_FromLong(pdt_backend_set_flush_denormal(PDT_CPU, on == Py_True));
}

/* Note [warn always]: set_warn_always(True) makes the warnings given once a process
 * (PyTorch's TORCH_WARN_ONCE: float() of a tensor that requires grad, x.T) warn every time. */
int pdt_warn_always;

static PyObject *q_set_warn_always(PyObject *m, PyObject *on)
{
    (void)m;
    pdt_warn_always = on == Py_True;
    Py_RETURN_NONE;
}

/* "" -> None, else the text (file-system encoding: paths). */
static PyObject *text_or_none(void *text)
{
    const char *s = text;
    if (!s[0])
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(s);
}

/* _libraries(kind): for each library kind's backend loads on first use (loading it
 * now), (name, soname, path or None, error or None, install, [directories searched]). */
static PyObject *q_libraries(PyObject *m, PyObject *kind_obj)
{
    (void)m;
    int kind = (int)PyLong_AsLong(kind_obj);
    if (kind == -1 && PyErr_Occurred())
        return NULL;
    PyObject *out = PyList_New(0);
    pdt_library *lib;
    for (int i = 0; out && (lib = pdt_backend_library(kind, i)) != NULL; i++) {
        char path[PDT_LIBRARY_PATH_MAX], error[sizeof lib->error];
        /* loads the library: without the GIL, unless the load sets the environment
         * (load_env: pdt_library.h) */
        PyThreadState *released = lib->load_env ? NULL : PyEval_SaveThread();
        pdt_library_report(lib, path, sizeof path, error, sizeof error);
        if (released)
            PyEval_RestoreThread(released);
        PyObject *dirs = PyList_New(0);
        for (int d = 0; dirs && d < lib->ndirs; d++) { /* fixed once loading was tried */
            PyObject *s = PyUnicode_DecodeFSDefault(lib->dirs[d]);
            if (!s || PyList_Append(dirs, s) < 0)
                Py_CLEAR(dirs);
            Py_XDECREF(s);
        }
        PyObject *row = dirs ? Py_BuildValue("(ssO&O&sN)", lib->what, lib->soname, text_or_none,
                                             path, text_or_none, error, lib->install, dirs)
                             : NULL;
        if (!row || PyList_Append(out, row) < 0)
            Py_CLEAR(out);
        Py_XDECREF(row);
    }
    return out;
}

static PyObject *q_set_size_type(PyObject *m, PyObject *tp)
{
    pdt_state *S = pdt_state_of_module(m);
    Py_XSETREF(S->size_type, Py_NewRef(tp));
    Py_RETURN_NONE;
}

PyMethodDef pdt_query_functions[] = {
    {"_device_count", q_device_count, METH_O, "_device_count(kind): 0 = cpu, 1 = cuda"},
    {"_cuda_status", q_cuda_status, METH_NOARGS, "(built_with_cuda, why_unavailable or None)"},
    {"_cuda_built", q_cuda_built, METH_NOARGS, "built with CUDA (asks for no device)"},
    {"_check_device", q_check_device, METH_O, "the device object, or the error saying why not"},
    {"_current_device", q_current_device, METH_NOARGS, NULL},
    {"_set_device", q_set_device, METH_O, NULL},
    {"_properties", q_properties, METH_O, NULL},
    {"_can_access_peer", q_can_access_peer, METH_VARARGS,
     "_can_access_peer(device, peer): whether device can address peer's memory"},
    {"_mem_get_info", q_mem_get_info, METH_O, NULL},
    {"_memory_stats", q_memory_stats, METH_O, NULL},
    {"_reset_peak", q_reset_peak, METH_O, NULL},
    {"_empty_cache", q_empty_cache, METH_O, NULL},
    {"_set_memory_limit", q_set_memory_limit, METH_VARARGS, NULL},
    {"_synchronize", q_synchronize, METH_O, NULL},
    {"_stream_query", q_stream_query, METH_O, NULL},
    {"_versions", q_versions, METH_NOARGS, "(driver, runtime) as 1000*major + 10*minor"},
    {"_describe", q_describe, METH_O, NULL},
    {"_set_size_type", q_set_size_type, METH_O, NULL},
    {"_add_library_dir", q_add_library_dir, METH_VARARGS,
     "_add_library_dir(kind, dir): search dir first for the libraries kind loads on first use"},
    {"_set_num_threads", q_set_num_threads, METH_O,
     "_set_num_threads(n): the CPU pool and OpenBLAS use at most n threads; returns the pool's"},
    {"_get_num_threads", q_get_num_threads, METH_NOARGS, "the CPU pool's thread count"},
    {"_set_flush_denormal", q_set_flush_denormal, METH_O,
     "_set_flush_denormal(on): FTZ/DAZ in this thread and the CPU pool's; True when set"},
    {"_set_warn_always", q_set_warn_always, METH_O,
     "_set_warn_always(on): the warnings given once a process warn every time"},
    {"_libraries", q_libraries, METH_O,
     "_libraries(kind): [(name, soname, path, error, install, dirs)], loading each library"},
    {"transfer_stats", q_transfer_stats, METH_NOARGS, doc_transfer_stats},
    {"reset_transfer_stats", q_reset_transfer_stats, METH_NOARGS, doc_reset_transfer_stats},
    {NULL, NULL, 0, NULL},
};
