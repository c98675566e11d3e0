/* crashsig_test.c: the crash state of an exception object (harness/exec/hz_crashsig.c):
 * chains unwrapped as Python does, cycles guarded, the target's own frames only,
 * messages normalised without running the program's code. One ctest per case. */
#include <Python.h>

#include "hz_crashsig.h"
#include "hz_embed.h"
#include "../tf_check.h"

#include <stdio.h>
#include <string.h>

/* Code of the "target", compiled as /opt/jit/interp.py: raises what `how` asks. */
static const char *TARGET =
    "class InterpreterError(Exception):\n"
    "    pass\n"
    "def run_native(key):\n"
    "    return {}[key]\n"
    "def load(how, prog):\n"
    "    if how == 'cause':\n"
    "        try:\n"
    "            run_native('attr_3')\n"
    "        except KeyError as e:\n"
    "            raise InterpreterError('cannot load') from e\n"
    "    if how == 'context':\n"
    "        try:\n"
    "            run_native('x')\n"
    "        except KeyError:\n"
    "            raise ValueError('while handling')\n"
    "    if how == 'suppressed':\n"
    "        try:\n"
    "            run_native('x')\n"
    "        except KeyError:\n"
    "            raise ValueError('fresh') from None\n"
    "    if how == 'program':\n"
    "        prog()\n"
    "    if how == 'cycle':\n"
    "        a, b = KeyError('a'), ValueError('b')\n"
    "        a.__cause__ = b\n"
    "        b.__cause__ = a\n"
    "        raise a\n";

/* The "program", compiled as prog.py: its frames are never the target's. */
static const char *PROGRAM =
    "LOG = []\n"
    "class Widget:\n"
    "    pass\n"
    "class Loud(Exception):\n"
    "    def __str__(self):\n"
    "        LOG.append('str')\n"
    "        return 'loud'\n"
    "def boom():\n"
    "    raise Loud('Widget broke at 0x7f001234')\n";

static PyObject *target_ns, *program_ns;

static PyObject *
load_module(const char *src, const char *file)
{
    PyObject *ns = PyDict_New();
    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
    PyObject *code = Py_CompileString(src, file, Py_file_input);
    PyObject *r = code ? PyEval_EvalCode(code, ns, ns) : NULL;
    if (r == NULL) {
        PyErr_Print();
    }
    Py_XDECREF(r);
    Py_XDECREF(code);
    return ns;
}

/* Calls load(how, boom) and returns the exception it raised (new reference). */
static PyObject *
raised(const char *how)
{
    PyObject *load = PyDict_GetItemString(target_ns, "load");
    PyObject *boom = PyDict_GetItemString(program_ns, "boom");
    PyObject *r = PyObject_CallFunction(load, "sO", how, boom);
    Py_XDECREF(r);
    CHECK(r == NULL, "%s: nothing raised", how);
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL) {
        PyException_SetTraceback(v, tb);
    }
    Py_XDECREF(t);
    Py_XDECREF(tb);
    return v;
}

static void
check_state(const char *how, const char *want_state, const char *want_msg)
{
    char state[HZ_CRASH_STATE_MAX], msg[HZ_CRASH_MSG_MAX];
    PyObject *exc = raised(how);
    hz_crash_state(exc, "prog.py", program_ns, state, msg);
    CHECK(strcmp(state, want_state) == 0, "%s: state %s, want %s", how, state, want_state);
    CHECK(strcmp(msg, want_msg) == 0, "%s: message %s, want %s", how, msg, want_msg);
    CHECK(!PyErr_Occurred(), "%s: an exception was left set", how);
    Py_XDECREF(exc);
}

static void
cause(void)
{
    check_state("cause", "InterpreterError<-KeyError@interp.py:run_native,load", "'*'");
}

static void
context(void)
{
    check_state("context", "ValueError<-KeyError@interp.py:run_native,load", "'*'");
}

static void
suppressed(void)
{
    check_state("suppressed", "ValueError@interp.py:load", "fresh");
}

static void
cycle(void)
{
    check_state("cycle", "KeyError<-ValueError@interp.py:load", "b");
}

/* The program's frame is skipped, its __str__ is not run, its names are masked. */
static void
program_frames(void)
{
    check_state("program", "Loud@interp.py:load", "*_broke_at_0x*");
    PyObject *log = PyDict_GetItemString(program_ns, "LOG");
    CHECK(PyList_GET_SIZE(log) == 0, "the program's __str__ ran");
}

#define CRASHSIG_TESTS(X) X(cause) X(context) X(suppressed) X(cycle) X(program_frames)

int
main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } tests[] = {
#define ENTRY(n) {#n, n},
        CRASHSIG_TESTS(ENTRY)
#undef ENTRY
    };
    char err[256];
    if (argc != 2 || hz_embed_init(NULL, err, sizeof err) < 0) {
        fprintf(stderr, "usage: crashsig_test NAME (%s)\n", argc == 2 ? err : "");
        return 2;
    }
    target_ns = load_module(TARGET, "/opt/jit/interp.py");
    program_ns = load_module(PROGRAM, "prog.py");
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (strcmp(argv[1], tests[i].name) == 0) {
            tests[i].fn();
            return tf_failures != 0;
        }
    }
    fprintf(stderr, "crashsig_test: no test %s\n", argv[1]);
    return 2;
}
