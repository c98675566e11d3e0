/* or_value.c: how one value reads in an observation line (docs/OBSERVATION.md,
 * "Values"): plain values by value (ints by their digits, floats by repr, strings
 * escaped to printable ASCII), type names, and the header detail of an object
 * (what names a function, class or module; the value of an int or str subclass;
 * a container's length). Everything is read from the object's C storage, never
 * through a slot a class could override, so no Python code runs. */
#include "or_internal.h"

#include <math.h>
#include <string.h>

/* "...<cap str N>" after a capped text. */
static void
put_cap_str(OrBuf *b, Py_ssize_t n)
{
    or_buf_puts(b, "...<cap str ");
    or_buf_put_i64(b, (long long)n);
    or_buf_putc(b, '>');
}

static const char hex_digits[] = "0123456789abcdef";

/* "\x", "\u" or "\U" and 2, 4 or 8 lowercase hex digits. */
static void
put_hex_escape(OrBuf *b, char kind, Py_UCS4 c, int digits)
{
    char tmp[10];
    tmp[0] = '\\';
    tmp[1] = kind;
    for (int i = digits - 1; i >= 0; i--) {
        tmp[2 + i] = hex_digits[c & 0xf];
        c >>= 4;
    }
    or_buf_putn(b, tmp, 2 + (size_t)digits);
}

static void
put_codepoint(OrBuf *b, Py_UCS4 c, char quote, int escape_space)
{
    if (c == '\\' || (quote && c == (Py_UCS4)quote)) {
        char tmp[2] = {'\\', (char)c};
        or_buf_putn(b, tmp, 2);
    }
    else if (c == '\n') {
        or_buf_putn(b, "\\n", 2);
    }
    else if (c == '\r') {
        or_buf_putn(b, "\\r", 2);
    }
    else if (c == '\t') {
        or_buf_putn(b, "\\t", 2);
    }
    else if (c == ' ' && escape_space) {
        or_buf_putn(b, "\\x20", 4);   /* keeps " = " out of paths */
    }
    else if (c >= 0x20 && c < 0x7f) {
        or_buf_putc(b, (char)c);
    }
    else if (c < 0x100) {
        put_hex_escape(b, 'x', c, 2);
    }
    else if (c < 0x10000) {
        put_hex_escape(b, 'u', c, 4);
    }
    else {
        put_hex_escape(b, 'U', c, 8);
    }
}

static int
is_hex(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of the run of bytes at p[0..n) that put_codepoint would copy as they are
 * (printable ASCII other than the backslash, the quote, an escaped space) and
 * that no "0x" address starts in (OR_TEXT_ADDR): those go out with one memcpy. */
enum {
    STOP_ALWAYS = 1,   /* control, non-ASCII, backslash: always escaped */
    STOP_QUOTE = 2,    /* the quote, when quoted */
    STOP_SPACE = 4,    /* the space, with OR_TEXT_SPACE */
    STOP_ZERO = 8,     /* '0', with OR_TEXT_ADDR: an address may start here */
};

/* Which condition of plain_run stops at each byte; built once, read-only after. */
static unsigned char stop_table[256];

static void
stop_table_init(void)
{
    for (int c = 0; c < 256; c++) {
        stop_table[c] = (unsigned char)((c < 0x20 || c >= 0x7f || c == '\\') ? STOP_ALWAYS
                                        : c == '\'' ? STOP_QUOTE
                                        : c == ' ' ? STOP_SPACE
                                        : c == '0' ? STOP_ZERO : 0);
    }
}

static size_t
plain_run(const unsigned char *p, size_t n, int quote, int flags)
{
    if (stop_table['\\'] == 0) {
        stop_table_init();   /* the GIL is held: no race */
    }
    unsigned mask = STOP_ALWAYS | (quote ? STOP_QUOTE : 0)
                    | ((flags & OR_TEXT_SPACE) ? STOP_SPACE : 0)
                    | ((flags & OR_TEXT_ADDR) ? STOP_ZERO : 0);
    size_t i = 0;
    while (i < n && !(stop_table[p[i]] & mask)) {
        i++;
    }
    return i;
}

/* Writes a str's characters, escaped to printable ASCII, capped at OR_CAP_STR;
 * quoted ('...') when quote is set. Works on str subclasses: reads the storage. */
int
or_put_text(OrBuf *b, PyObject *s, int quote, int flags)
{
    if (PyUnicode_READY(s) < 0) {
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t shown = n < OR_CAP_STR ? n : OR_CAP_STR;
    if (quote) {
        or_buf_putc(b, '\'');
    }
    for (Py_ssize_t i = 0; i < shown; i++) {
        if (kind == PyUnicode_1BYTE_KIND) {
            /* The common case, ASCII and Latin-1: copy the plain run at once. */
            const unsigned char *p = (const unsigned char *)data + i;
            size_t run = plain_run(p, (size_t)(shown - i), quote, flags);
            if (run > 0) {
                or_buf_putn(b, (const char *)p, run);
                i += (Py_ssize_t)run;
                if (i >= shown) {
                    break;
                }
            }
        }
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if ((flags & OR_TEXT_ADDR) && c == '0' && i + 1 < n
            && PyUnicode_READ(kind, data, i + 1) == 'x') {
            Py_ssize_t j = i + 2;
            while (j < n && is_hex(PyUnicode_READ(kind, data, j))) {
                j++;
            }
            if (j - (i + 2) >= 6) {   /* an address from a repr: never the same twice */
                or_buf_putn(b, "0x<addr>", 8);
                i = j - 1;
                continue;
            }
        }
        put_codepoint(b, c, quote ? '\'' : 0, flags & OR_TEXT_SPACE);
    }
    if (quote) {
        or_buf_putc(b, '\'');
    }
    if (shown < n) {
        put_cap_str(b, n);
    }
    return 0;
}

void
or_put_bytes(OrBuf *b, PyObject *o, int flags)
{
    /* bytes and bytearray (subclasses too), from their buffers */
    int array = PyByteArray_Check(o);
    Py_ssize_t n = array ? PyByteArray_GET_SIZE(o) : PyBytes_GET_SIZE(o);
    const unsigned char *p = (const unsigned char *)(array ? PyByteArray_AS_STRING(o)
                                                           : PyBytes_AS_STRING(o));
    Py_ssize_t shown = n < OR_CAP_STR ? n : OR_CAP_STR;
    or_buf_puts(b, "b'");
    for (Py_ssize_t i = 0; i < shown; i++) {
        /* no address scrubbing in bytes: only the space flag matters here */
        size_t run = plain_run(p + i, (size_t)(shown - i), 1, flags & OR_TEXT_SPACE);
        or_buf_putn(b, (const char *)p + i, run);
        i += (Py_ssize_t)run;
        if (i < shown) {
            put_codepoint(b, p[i], '\'', flags & OR_TEXT_SPACE);   /* high bytes: \xHH */
        }
    }
    or_buf_putc(b, '\'');
    if (shown < n) {
        put_cap_str(b, n);
    }
}

/* Decimal by the int's own digits (PyLong_Type's repr, not the object's type's);
 * beyond 4096 bits hexadecimal, which has no digit limit. Subclasses too. */
static int
put_int(OrBuf *b, PyObject *o)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        or_buf_put_i64(b, v);
        return 0;
    }
    size_t bits = _PyLong_NumBits(o);
    if (bits == (size_t)-1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *s = bits <= 4096 ? PyLong_Type.tp_repr(o) : _PyLong_Format(o, 16);
    if (s == NULL) {
        return -1;
    }
    int r = or_put_text(b, s, 0, 0);
    Py_DECREF(s);
    return r;
}

/* repr() of a double, exact: "nan", "-0.0", "inf", "1e+100". */
static int
put_double(OrBuf *b, double v)
{
    /* An integral value below 2**53 is exact, and repr writes exactly its digits
     * and ".0" (fixed notation up to 16 digits; the sign of -0.0 kept): no
     * allocation, no dtoa. Everything else goes through repr's own formatter. */
    if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(long long)v) {
        if (signbit(v)) {
            or_buf_putc(b, '-');
            v = -v;
        }
        or_buf_put_u64(b, (unsigned long long)v);
        or_buf_putn(b, ".0", 2);
        return 0;
    }
    char *s = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (s == NULL) {
        return -1;
    }
    or_buf_puts(b, s);
    PyMem_Free(s);
    return 0;
}

static int
put_complex(OrBuf *b, PyObject *o)
{
    Py_complex c = ((PyComplexObject *)o)->cval;
    or_buf_puts(b, "complex(");
    if (put_double(b, c.real) < 0) {
        return -1;
    }
    or_buf_puts(b, ", ");
    if (put_double(b, c.imag) < 0) {
        return -1;
    }
    or_buf_putc(b, ')');
    return 0;
}

/* Plain values printed by value: 1 written, 0 not a plain value, -1 error. */
int
or_put_scalar(OrBuf *b, PyObject *o, int flags)
{
    if (o == Py_None) {
        or_buf_puts(b, "None");
    }
    else if (o == Py_True) {
        or_buf_puts(b, "True");
    }
    else if (o == Py_False) {
        or_buf_puts(b, "False");
    }
    else if (o == Py_Ellipsis) {
        or_buf_puts(b, "Ellipsis");
    }
    else if (o == Py_NotImplemented) {
        or_buf_puts(b, "NotImplemented");
    }
    else if (PyLong_CheckExact(o)) {
        return put_int(b, o) < 0 ? -1 : 1;
    }
    else if (PyFloat_CheckExact(o)) {
        return put_double(b, PyFloat_AS_DOUBLE(o)) < 0 ? -1 : 1;
    }
    else if (PyComplex_CheckExact(o)) {
        return put_complex(b, o) < 0 ? -1 : 1;
    }
    else if (PyUnicode_CheckExact(o)) {
        return or_put_text(b, o, 1, flags) < 0 ? -1 : 1;
    }
    else if (PyBytes_CheckExact(o)) {
        or_put_bytes(b, o, flags);
    }
    else {
        return 0;
    }
    return 1;
}

/* The value part of an object of a value subclass (int, float, complex, str,
 * bytes), read from its storage; 0 when o is none of those. */
int
or_put_subclass_value(OrBuf *b, PyObject *o, int flags)
{
    if (PyLong_Check(o)) {
        or_buf_putc(b, ' ');
        return put_int(b, o);
    }
    if (PyFloat_Check(o)) {
        or_buf_putc(b, ' ');
        return put_double(b, PyFloat_AS_DOUBLE(o));
    }
    if (PyComplex_Check(o)) {
        or_buf_putc(b, ' ');
        return put_complex(b, o);
    }
    if (PyUnicode_Check(o)) {
        or_buf_putc(b, ' ');
        return or_put_text(b, o, 1, flags);
    }
    if (PyBytes_Check(o) || PyByteArray_Check(o)) {
        or_buf_putc(b, ' ');
        or_put_bytes(b, o, flags);
    }
    return 0;
}

/* A type's name: the qualified name of a class statement, tp_name otherwise. */
int
or_put_type_name(OrBuf *b, PyTypeObject *tp, int flags)
{
    if (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        PyObject *q = ((PyHeapTypeObject *)tp)->ht_qualname;
        if (q != NULL && PyUnicode_Check(q)) {
            return or_put_text(b, q, 0, flags);
        }
    }
    or_buf_puts(b, tp->tp_name);
    return 0;
}

/* "[n]": a container's length. */
static void
put_len(OrBuf *b, Py_ssize_t n)
{
    char tmp[24];
    char *end = tmp + sizeof tmp;
    *--end = ']';
    char *q = or_fmt_u64(end, (unsigned long long)n);
    *--q = '[';
    or_buf_putn(b, q, (size_t)(tmp + sizeof tmp - q));
}

/* The header detail after "#n Type": what names a function, class, module, the
 * value of a value subclass, the length of a container. */
int
or_put_detail(OrBuf *b, PyObject *o)
{
    if (PyExceptionInstance_Check(o)) {
        return 0;
    }
    if (PyType_Check(o)) {
        or_buf_putc(b, ' ');
        return or_put_type_name(b, (PyTypeObject *)o, 0);
    }
    if (PyFunction_Check(o)) {
        PyObject *q = ((PyFunctionObject *)o)->func_qualname;
        if (q != NULL && PyUnicode_Check(q)) {
            or_buf_putc(b, ' ');
            return or_put_text(b, q, 0, 0);
        }
        return 0;
    }
    if (PyCFunction_Check(o)) {
        or_buf_putc(b, ' ');
        or_buf_puts(b, ((PyCFunctionObject *)o)->m_ml->ml_name);
        return 0;
    }
    if (PyModule_Check(o)) {
        PyObject *name = PyModule_GetNameObject(o);   /* new reference */
        if (name == NULL) {
            PyErr_Clear();
            return 0;
        }
        or_buf_putc(b, ' ');
        int r = or_put_text(b, name, 0, 0);
        Py_DECREF(name);
        return r;
    }
    if (PyTuple_Check(o)) {
        put_len(b, PyTuple_GET_SIZE(o));
        return 0;
    }
    if (PyList_Check(o)) {
        put_len(b, PyList_GET_SIZE(o));
        return 0;
    }
    if (PyDict_Check(o)) {
        put_len(b, PyDict_GET_SIZE(o));
        return 0;
    }
    if (PyAnySet_Check(o)) {
        put_len(b, PySet_GET_SIZE(o));
        return 0;
    }
    return or_put_subclass_value(b, o, 0);
}
