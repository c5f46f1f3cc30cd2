/* default_device.c - the device that factory functions use when given none:
 * set_default_device(d) for the process, `with pydevtensor.device(d):` for a
 * block on one thread.
 *
 * Note [the default device]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * As in PyTorch 2, `with pydevtensor.device('cuda:0'):` makes the device the
 * default of the factory functions (zeros, ones, rand, arange, tensor, ...,
 * and so of the parameters a layer makes) inside the block; a device= argument
 * still wins, and *_like functions keep their input's device.  The block's
 * device is a per-thread override, as the transfer guard's level is (Note
 * [guard levels] in guard.c); set_default_device(d) sets the default of every
 * thread without an override (PyTorch keeps that one per thread too; we keep
 * it for the process, as config.set_transfer_guard does, so that threads a
 * library starts see it).  The factories read it on every call, so it lives
 * in two C variables, read under the GIL: no Python lookup, no lock.  Blocks
 * nest; the previous overrides live on a per-thread stack. */
#include "pdt_module.h"

#define NEST_MAX 64

static pdt_device global_default = {PDT_CPU, 0};
static _Thread_local int have_local;
static _Thread_local pdt_device local_default;
static _Thread_local int depth;
static _Thread_local struct {
    int have;
    pdt_device device;
} saved[NEST_MAX];

pdt_device pdt_default_device(void) { return have_local ? local_default : global_default; }

/* device.__enter__(): this thread's factories use the device until __exit__. */
PyObject *pdt_device_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (depth == NEST_MAX) {
        PyErr_Format(PyExc_RuntimeError,
                     "`with device(...)` blocks nest at most %d deep on one thread", NEST_MAX);
        return NULL;
    }
    saved[depth].have = have_local;
    saved[depth].device = local_default;
    depth++;
    have_local = 1;
    local_default = ((PdtDeviceObject *)self)->device;
    return Py_NewRef(self);
}

PyObject *pdt_device_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self, (void)args, (void)nargs;
    if (depth == 0) {
        PyErr_SetString(PyExc_RuntimeError,
                        "device.__exit__() without a matching __enter__() on this thread");
        return NULL;
    }
    depth--;
    have_local = saved[depth].have;
    local_default = saved[depth].device;
    Py_RETURN_FALSE;
}

/* _set_default_device(device) -> the previous process-wide default. */
static PyObject *f_set_default_device(PyObject *module, PyObject *obj)
{
    pdt_state *S = pdt_state_of_module(module);
    pdt_device d, cpu = {PDT_CPU, 0};
    if (pdt_device_from_object_exact(S, obj, cpu, &d) < 0)
        return NULL;
    pdt_device previous = global_default;
    global_default = d;
    return pdt_device_object(S, previous);
}

/* _get_default_device() -> the device factories use now on this thread. */
static PyObject *f_get_default_device(PyObject *module, PyObject *unused)
{
    (void)unused;
    return pdt_device_object(pdt_state_of_module(module), pdt_default_device());
}

PyMethodDef pdt_default_device_functions[] = {
    {"_set_default_device", f_set_default_device, METH_O, NULL},
    {"_get_default_device", f_get_default_device, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
