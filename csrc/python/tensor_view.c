/* tensor_view.c - views and indexing: reshape/view, transpose/T/permute,
 * squeeze/unsqueeze, flatten, t[...] and t[...] = value.  (Issue 4: to be implemented.) */
#include "args.h"

PyMethodDef pdt_view_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef pdt_view_functions[] = {{NULL, NULL, 0, NULL}};
PyGetSetDef pdt_view_getset[] = {{NULL, NULL, NULL, NULL, NULL}};
PyType_Slot pdt_view_slots[] = {{0, NULL}};
