/* tr_dictkeys.c: "are all keys of this dict exact strs?" without walking the dict.
 *
 * Guards (tr_guard.c) and the provenance oracle (tr_provcheck.c) only read an instance
 * dict whose keys are all exact strs (another key's __eq__ could run user code during
 * the lookup). Walking the dict for that on every load was the largest item of a
 * replayed call's profile. CPython 3.11 knows it already: a dict's keys table is of the
 * unicode or split kind only while every key is an exact str (insertdict converts the
 * table to the general kind on the first other key), so the kind answers in O(1); a
 * general table (which may still hold only strs, e.g. after the other key was deleted)
 * is walked as before. This file and tr_dict_ptr (tr_core.h) are the readers of CPython's
 * internal dict layout.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_dict.h>
#include "tr_core.h"

/* Out of coverage: the traced-mode oracle asks it only when its memo (whose hits
 * depend on earlier inputs) misses. */
TR_NO_COVERAGE int tr_dict_keys_all_str(PyObject *d)
{
    assert(PyDict_CheckExact(d));
    if (DK_IS_UNICODE(((PyDictObject *)d)->ma_keys))
        return 1;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k))
            return 0;
    }
    return 1;
}
