/* module.c - pydevtensor._C: multi-phase initialisation, the module state and
 * the one accessor to it. */
#include "pdt_module.h"

pdt_state *pdt_state_of_module(PyObject *module) { return (pdt_state *)PyModule_GetState(module); }

pdt_state *pdt_state_of_type(PyTypeObject *tp)
{
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *module = PyType_GetModuleByDef(tp, &pdt_module_def);
    return module ? pdt_state_of_module(module) : NULL;
#else
    PyObject *mro = tp->tp_mro;
    for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (!(base->tp_flags & Py_TPFLAGS_HEAPTYPE))
            continue;
        PyObject *module = ((PyHeapTypeObject *)base)->ht_module;
        if (module && PyModule_GetDef(module) == &pdt_module_def)
            return pdt_state_of_module(module);
    }
    PyErr_Format(PyExc_TypeError, "%s is not a pydevtensor type", tp->tp_name);
    return NULL;
#endif
}

static int module_exec(PyObject *module)
{
    pdt_state *S = pdt_state_of_module(module);
    PyMethodDef *tables[] = {pdt_create_functions,
                             pdt_random_functions,
                             pdt_convert_functions,
                             pdt_query_functions,
                             pdt_math_functions,
                             pdt_reduce_functions,
                             pdt_view_functions,
                             pdt_subscript_functions,
                             pdt_matmul_functions,
                             pdt_event_functions,
                             pdt_interop_functions,
                             pdt_guard_functions,
                             pdt_config_functions,
                             pdt_collective_functions,
                             pdt_autograd_functions,
                             pdt_index_functions,
                             pdt_default_device_functions,
                             pdt_dtype_functions,
                             pdt_elide_functions,
                             pdt_autograd_record_functions,
                             pdt_optional_functions,
                             pdt_autograd_engine_functions,
                             pdt_round_functions,
                             pdt_clamp_functions,
                             pdt_erf_functions,
                             pdt_conv_functions,
                             pdt_rnn_functions,
                             pdt_memory_format_functions,
                             pdt_export_functions,
                             pdt_generator_functions,
                             pdt_gamma_functions,
                             pdt_linalg_functions,
                             pdt_trig_functions,
                             pdt_bitwise_functions,
                             pdt_autograd_view_functions,
                             pdt_autocast_functions,
                             pdt_coords_functions,
                             pdt_setitem_functions};
    if (pdt_errors_init(module, S) < 0 || pdt_device_type_init(module, S) < 0 ||
        pdt_size_type_init(module) < 0 || pdt_dtype_type_init(module, S) < 0 ||
        pdt_tensor_type_init(module, S) < 0 || pdt_storage_ref_type_init(module, S) < 0 ||
        pdt_events_init(module, S) < 0 || pdt_generator_type_init(module, S) < 0 ||
        pdt_op_wrapper_types_init(module, S) < 0 || pdt_guard_init() < 0)
        return -1;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (PyModule_AddFunctions(module, tables[i]) < 0)
            return -1;
    if (PyModule_AddIntConstant(module, "_KIND_CPU", PDT_CPU) < 0 ||
        PyModule_AddIntConstant(module, "_KIND_CUDA", PDT_CUDA) < 0 ||
        PyModule_AddIntConstant(module, "_MAX_DIMS", PDT_MAX_DIMS) < 0)
        return -1;
    return 0;
}

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    pdt_state *S = pdt_state_of_module(module);
    Py_VISIT(S->device_type);
    Py_VISIT(S->dtype_type);
    Py_VISIT(S->tensor_type);
    Py_VISIT(S->storage_ref_type);
    Py_VISIT(S->generator_type);
    Py_VISIT(S->autocast_op_type);
    Py_VISIT(S->recorded_op_type);
    Py_VISIT(S->size_type);
    Py_VISIT(S->getitem_hook);
    Py_VISIT(S->setitem_hook);
    Py_VISIT(S->operator_fallback);
    Py_VISIT(S->numpy_asarray);
    for (int i = 0; i < PDT_NUM_MEMORY_FORMATS; i++)
        Py_VISIT(S->memory_formats[i]);
    for (int i = 0; i < PDT_NUM_DTYPES; i++)
        Py_VISIT(S->dtypes[i]);
    Py_VISIT(S->OutOfMemoryError);
    Py_VISIT(S->TransferError);
    Py_VISIT(S->DeviceError);
    Py_VISIT(S->InvalidArgumentError);
    Py_VISIT(S->IndexOutOfRangeError);
    Py_VISIT(S->DTypeError);
    for (int k = 0; k < PDT_NUM_KINDS; k++)
        for (int i = 0; i < PDT_MAX_DEVICES; i++)
            Py_VISIT(S->devices[k][i]);
    return 0;
}

static int module_clear(PyObject *module)
{
    pdt_state *S = pdt_state_of_module(module);
    for (int k = 0; k < PDT_NUM_KINDS; k++)
        for (int i = 0; i < PDT_MAX_DEVICES; i++)
            Py_CLEAR(S->devices[k][i]);
    for (int i = 0; i < PDT_NUM_DTYPES; i++)
        Py_CLEAR(S->dtypes[i]);
    S->default_dtype = NULL;
    Py_CLEAR(S->size_type);
    Py_CLEAR(S->getitem_hook);
    Py_CLEAR(S->setitem_hook);
    Py_CLEAR(S->operator_fallback);
    Py_CLEAR(S->numpy_asarray);
    for (int i = 0; i < PDT_NUM_MEMORY_FORMATS; i++)
        Py_CLEAR(S->memory_formats[i]);
    Py_CLEAR(S->OutOfMemoryError);
    Py_CLEAR(S->TransferError);
    Py_CLEAR(S->DeviceError);
    Py_CLEAR(S->InvalidArgumentError);
    Py_CLEAR(S->IndexOutOfRangeError);
    Py_CLEAR(S->DTypeError);
    Py_CLEAR(S->storage_ref_type);
    Py_CLEAR(S->generator_type);
    Py_CLEAR(S->autocast_op_type);
    Py_CLEAR(S->recorded_op_type);
    Py_CLEAR(S->tensor_type);
    Py_CLEAR(S->dtype_type);
    Py_CLEAR(S->device_type);
    return 0;
}

static void module_free(void *module) { module_clear((PyObject *)module); }

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#if PY_VERSION_HEX >= 0x030C0000
    /* the autograd hooks and the C recorder are process-wide (autograd.c,
     * autograd_record.c): one interpreter at a time */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
    {0, NULL},
};

PyModuleDef pdt_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pydevtensor._C",
    .m_doc = "The C core of pydevtensor: devices, tensors and copies.",
    .m_size = sizeof(pdt_state),
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__C(void) { return PyModuleDef_Init(&pdt_module_def); }
