/* tr_module.c: the Python face of the tracer, module `tfjit` (docs/TRACER.md).
 *
 *   tfjit.jit(fn) -> callable      trace fn's bytecode on each call
 *   tfjit.Unsupported              raised when the tracer cannot trace something
 *   tfjit.ProvenanceError          a provenance assertion failed
 *   tfjit.LimitExceeded            instruction or call-depth budget exhausted
 */
#include "tr_module.h"
#include "tr_run.h"

PyObject *tr_ProvenanceError;
PyObject *tr_Unsupported;
PyObject *tr_LimitExceeded;

static struct PyModuleDef tr_moduledef = {
    PyModuleDef_HEAD_INIT, "tfjit",
    "tracefuzz's reference tracer: a provenance-tracking interpreter of CPython 3.11 bytecode.",
    -1, NULL,
};

/* Returns a new reference to the exception type, also stored in *slot (owned by
 * the module for the life of the process). */
static int add_exception(PyObject *m, const char *name, PyObject *base, PyObject **slot,
                         const char *doc)
{
    char qual[64];
    snprintf(qual, sizeof qual, "tfjit.%s", name);
    if (*slot == NULL) {
        *slot = PyErr_NewExceptionWithDoc(qual, doc, base, NULL);
        if (*slot == NULL)
            return -1;
    }
    return PyModule_AddObjectRef(m, name, *slot);
}

PyMODINIT_FUNC PyInit_tfjit(void)
{
    PyObject *m = PyModule_Create(&tr_moduledef);
    if (m == NULL)
        return NULL;
    if (add_exception(m, "ProvenanceError", PyExc_AssertionError, &tr_ProvenanceError,
                      "A value reused by the tracer is not the object CPython returns.") < 0 ||
        add_exception(m, "Unsupported", PyExc_Exception, &tr_Unsupported,
                      "The tracer cannot trace this function or construct.") < 0 ||
        add_exception(m, "LimitExceeded", PyExc_Exception, &tr_LimitExceeded,
                      "The traced call exceeded the instruction or call-depth budget.") < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
