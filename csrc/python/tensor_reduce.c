/* tensor_reduce.c - reductions: sum, mean, max, min, argmax, argmin, prod, norm.
 * (Issue 4: to be implemented.) */
#include "args.h"

PyMethodDef pdt_reduce_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef pdt_reduce_functions[] = {{NULL, NULL, 0, NULL}};
