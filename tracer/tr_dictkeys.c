/* tr_dictkeys.c: "are all keys of this dict exact strs?" without walking the dict, and
 * a key's value found by identity at a remembered entry.
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

/* How far tr_dict_find scans when the hint misses: instance dicts are small; a larger
 * one whose hint missed is looked up by the caller. */
#define TR_FIND_SCAN 16

/* A replayed load meets a new dict version on every iteration where the loop visits
 * another owner (a list of objects) or stored into the owner (acc.total = ...): the
 * guard's and the oracle's memos miss, and each paid tr_dict_keys_all_str and a
 * PyDict_GetItemWithError. An entry of a unicode or split table whose key is name
 * itself is the entry a lookup of name finds (a key is stored once; a deleted entry's
 * key is NULL), and its value is the dict's value for name: me_value in a combined
 * table, the dict's values[i] in a split one (sized for every entry of the shared
 * keys). Out of coverage like the memos it serves (their hits depend on earlier
 * inputs). */
TR_HOT_INLINE PyObject *dict_find(PyObject *d, PyObject *name, int *hint)
{
    PyDictObject *mp = (PyDictObject *)d;
    PyDictKeysObject *dk = mp->ma_keys;
    assert(PyDict_CheckExact(d) && PyUnicode_CheckExact(name));
    if (!DK_IS_UNICODE(dk))
        return NULL;
    PyDictUnicodeEntry *ep = DK_UNICODE_ENTRIES(dk);
    Py_ssize_t n = dk->dk_nentries, i = *hint;
    if (i < 0 || i >= n || ep[i].me_key != name) {
        Py_ssize_t lim = n < TR_FIND_SCAN ? n : TR_FIND_SCAN;
        for (i = 0; i < lim && ep[i].me_key != name; i++)
            ;
        if (i == lim)
            return NULL;
        *hint = (int)i;
    }
    return mp->ma_values != NULL ? mp->ma_values->values[i] : ep[i].me_value;
}

TR_NO_COVERAGE PyObject *tr_dict_find(PyObject *d, PyObject *name, int *hint)
{
    return dict_find(d, name, hint);
}

/* A traced load's miss met a new dict version on almost every load of an owner the loop
 * stores into, and PyDict_GetItemWithError cost ~78 instructions (mixed_store: 59 a
 * call): a key held as name itself is found by the scan above first. Which of the two
 * answered depends only on how the dict's keys were made, yet the answer is the same:
 * out of coverage all the same, like tr_dict_find. */
TR_NO_COVERAGE PyObject *tr_dict_get(PyObject *d, PyObject *name)
{
    if (PyDict_CheckExact(d) && PyUnicode_CheckExact(name)) {
        int hint = -1;
        PyObject *v = dict_find(d, name, &hint);
        if (v != NULL)
            return v;
    }
    return PyDict_GetItemWithError(d, name);
}
