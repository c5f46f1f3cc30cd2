/* events.c - pydevtensor._C.Event (cuda.Event), synchronize and the TF32
 * switch.  (Issue 4: to be implemented.) */
#include "args.h"

PyMethodDef pdt_event_functions[] = {{NULL, NULL, 0, NULL}};

int pdt_events_init(PyObject *module, pdt_state *S)
{
    (void)module, (void)S;
    return 0;
}
