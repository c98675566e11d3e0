/* tr_faults.c: the fault switch of tr_faults.h (docs/FAULTS.md).
 *
 * A fault is a named, documented bug the tracer can be told to have. The set of
 * active faults is one process-wide bitmask: the module sets it from the
 * environment (TRACEFUZZ_FAULTS) at init and from tfjit.set_faults(); each TrRun
 * snapshots it when it starts (TrRun.faults), so switching faults never changes a
 * call already under way. Parsing is all-or-nothing: an unknown name leaves the
 * previous set untouched.
 */
#include <string.h>

#include "tr_faults.h"
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static const char *const fault_names[TR_FAULT__COUNT] = {
#define TR_FAULT_NAME(id, name) name,
    TR_FAULT_LIST(TR_FAULT_NAME)
#undef TR_FAULT_NAME
};

static unsigned active_faults;

const char *tr_fault_name(TrFault f)
{
    if ((int)f < 0 || f >= TR_FAULT__COUNT)
        return "?";
    return fault_names[f];
}

unsigned tr_faults_active(void)
{
    return active_faults;
}

/* Returns the fault whose name is s[0..len), or -1. */
static int fault_by_name(const char *s, size_t len)
{
    for (int f = 0; f < TR_FAULT__COUNT; f++) {
        if (strlen(fault_names[f]) == len && memcmp(fault_names[f], s, len) == 0)
            return f;
    }
    return -1;
}

/* Sets ValueError naming the unknown fault and listing the known ones. */
static void unknown_fault(const char *s, size_t len)
{
    char known[512] = "";
    for (int f = 0; f < TR_FAULT__COUNT; f++) {
        if (f > 0)
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, fault_names[f], sizeof known - strlen(known) - 1);
    }
    PyObject *bad = PyUnicode_DecodeUTF8(s, (Py_ssize_t)(len > 100 ? 100 : len), "replace");
    if (bad == NULL)
        return;
    PyErr_Format(PyExc_ValueError, "unknown tracer fault '%U' (known faults: %s)", bad, known);
    Py_DECREF(bad);
}

int tr_faults_set(const char *csv)
{
    unsigned mask = 0;
    const char *p = csv ? csv : "";
    while (*p) {
        /* One comma-separated item, surrounding blanks ignored, empty items skipped. */
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *s = p;
        size_t len = n;
        while (len > 0 && (*s == ' ' || *s == '\t')) {
            s++;
            len--;
        }
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n'))
            len--;
        if (len > 0) {
            int f = fault_by_name(s, len);
            if (f < 0) {
                unknown_fault(s, len);
                return -1;
            }
            mask |= 1u << f;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    active_faults = mask;
    return 0;
}
