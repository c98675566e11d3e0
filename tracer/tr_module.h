/* tr_module.h: the C entry of module tfjit, for embedders (tfpython, the harness),
 * which register it with PyImport_AppendInittab("tfjit", PyInit_tfjit) before
 * initialising CPython. */
#ifndef TR_MODULE_H
#define TR_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyMODINIT_FUNC PyInit_tfjit(void);

#endif
