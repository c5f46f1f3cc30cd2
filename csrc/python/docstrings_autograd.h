/* Docstrings of Tensor's autograd attributes and methods and of is_grad_enabled
 * (csrc/python/autograd.c), in numpydoc form under CPython's text signature; the examples run as
 * doctests in tests/test_docstrings.py. */
#ifndef PDT_DOCSTRINGS_AUTOGRAD_H
#define PDT_DOCSTRINGS_AUTOGRAD_H

#include "pdt_module.h" /* PyDoc_STRVAR */

PyDoc_STRVAR(
    doc_requires_grad,
    "Whether operations on this tensor record how their results were made (settable on a leaf).\n"
    "\n"
    "Examples\n"
    "--------\n"
    ">>> w = pydevtensor.ones(2, requires_grad=True)\n"
    ">>> y = (w * 3).sum()\n"
    ">>> w.requires_grad, pydevtensor.ones(2).requires_grad\n"
    "(True, False)\n");
PyDoc_STRVAR(doc_grad,
             "The gradient that backward() accumulated into this leaf, or None; settable.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> w = pydevtensor.ones(2, requires_grad=True)\n"
             ">>> y = (w * 3).sum()\n"
             ">>> y.backward()\n"
             ">>> w.grad\n"
             "tensor([3., 3.])\n");
PyDoc_STRVAR(doc_grad_fn, "The Node that made this tensor, None for a leaf.\n"
                          "\n"
                          "Examples\n"
                          "--------\n"
                          ">>> w = pydevtensor.ones(2, requires_grad=True)\n"
                          ">>> y = (w * 3).sum()\n"
                          ">>> y.grad_fn.name()\n"
                          "'SumBackward0'\n"
                          ">>> w.grad_fn is None\n"
                          "True\n");
PyDoc_STRVAR(doc_is_leaf, "True unless a recorded operation made this tensor.\n"
                          "\n"
                          "Examples\n"
                          "--------\n"
                          ">>> w = pydevtensor.ones(2, requires_grad=True)\n"
                          ">>> y = (w * 3).sum()\n"
                          ">>> w.is_leaf, y.is_leaf\n"
                          "(True, False)\n");
PyDoc_STRVAR(doc_output_nr, "Which output of grad_fn this tensor is.\n"
                            "\n"
                            "Examples\n"
                            "--------\n"
                            ">>> w = pydevtensor.ones(2, requires_grad=True)\n"
                            ">>> y = (w * 3).sum()\n"
                            ">>> y.output_nr\n"
                            "0\n");
PyDoc_STRVAR(doc_requires_grad_, "requires_grad_(requires_grad=True)\n--\n\n"
                                 "Sets requires_grad in place (on a leaf).\n"
                                 "\n"
                                 "Parameters\n"
                                 "----------\n"
                                 "requires_grad : bool, optional\n"
                                 "    The new value (default True).\n"
                                 "\n"
                                 "Returns\n"
                                 "-------\n"
                                 "Tensor\n"
                                 "    self.\n"
                                 "\n"
                                 "Raises\n"
                                 "------\n"
                                 "RuntimeError\n"
                                 "    On a non-leaf, or for an integer tensor.\n"
                                 "\n"
                                 "Examples\n"
                                 "--------\n"
                                 ">>> pydevtensor.ones(2).requires_grad_()\n"
                                 "tensor([1., 1.], requires_grad=True)\n");
PyDoc_STRVAR(doc_detach, "detach()\n--\n\n"
                         "A new tensor sharing this one's storage, outside the graph.\n"
                         "\n"
                         "Returns\n"
                         "-------\n"
                         "Tensor\n"
                         "    A leaf that does not require grad.\n"
                         "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> w = pydevtensor.ones(2, requires_grad=True)\n"
                         ">>> y = (w * 3).sum()\n"
                         ">>> y.detach()\n"
                         "tensor(6.)\n");
PyDoc_STRVAR(
    doc_detach_,
    "detach_()\n--\n\n"
    "Takes this tensor out of the graph in place: it becomes a leaf that does not require grad.\n"
    "\n"
    "Returns\n"
    "-------\n"
    "Tensor\n"
    "    self.\n"
    "\n"
    "Examples\n"
    "--------\n"
    ">>> w = pydevtensor.ones(2, requires_grad=True)\n"
    ">>> y = (w * 3).sum()\n"
    ">>> y.detach_().is_leaf\n"
    "True\n");
PyDoc_STRVAR(doc_is_grad_enabled,
             "is_grad_enabled()\n--\n\n"
             "Whether operations record a graph in this thread (no_grad turns it off).\n"
             "\n"
             "Returns\n"
             "-------\n"
             "bool\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> pydevtensor.is_grad_enabled()\n"
             "True\n"
             ">>> with pydevtensor.no_grad():\n"
             "...     pydevtensor.is_grad_enabled()\n"
             "False\n");

#endif
