/* tensor_matmul.c - @, matmul, mm, bmm, addmm, dot.  (Issue 4: to be implemented.) */
#include "args.h"

PyMethodDef pdt_matmul_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef pdt_matmul_functions[] = {{NULL, NULL, 0, NULL}};
PyType_Slot pdt_matmul_slots[] = {{0, NULL}};
