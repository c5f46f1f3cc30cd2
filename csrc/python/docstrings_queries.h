/* Docstrings of transfer_stats and reset_transfer_stats (csrc/python/queries.c), in numpydoc form
 * under CPython's text signature; the examples run as doctests in tests/test_docstrings.py. */
#ifndef PDT_DOCSTRINGS_QUERIES_H
#define PDT_DOCSTRINGS_QUERIES_H

#include "pdt_module.h" /* PyDoc_STRVAR */

PyDoc_STRVAR(doc_transfer_stats,
             "transfer_stats()\n--\n\n"
             "The counts and bytes of every copy between devices since the last "
             "reset_transfer_stats(): host_to_device, device_to_host, device_to_device and peer; "
             "and collective: collective calls and the bytes this process sent in them.  "
             "Copies within one device are not counted.\n"
             "\n"
             "Returns\n"
             "-------\n"
             "dict\n"
             "    {kind: {'count': int, 'bytes': int}} for each kind.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> pydevtensor.reset_transfer_stats()\n"
             ">>> x = pydevtensor.ones(1000).to(pydevtensor.try_gpu())\n"
             ">>> n = pydevtensor.transfer_stats()['host_to_device']['bytes']\n"
             ">>> n == (4000 if x.is_cuda else 0)\n"
             "True\n");
PyDoc_STRVAR(doc_reset_transfer_stats, "reset_transfer_stats()\n--\n\n"
                                       "Sets every transfer counter to zero.\n"
                                       "\n"
                                       "Returns\n"
                                       "-------\n"
                                       "None\n"
                                       "\n"
                                       "Examples\n"
                                       "--------\n"
                                       ">>> pydevtensor.reset_transfer_stats()\n"
                                       ">>> pydevtensor.transfer_stats()['device_to_host']\n"
                                       "{'count': 0, 'bytes': 0}\n");

#endif
