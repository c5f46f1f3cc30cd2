/* tensor_math.c - elementwise arithmetic, comparisons and unary functions:
 * the number protocol, rich comparisons, and their function and method forms.
 * (Issue 4: to be implemented.) */
#include "args.h"

PyMethodDef pdt_math_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef pdt_math_functions[] = {{NULL, NULL, 0, NULL}};
PyType_Slot pdt_math_slots[] = {{0, NULL}};
