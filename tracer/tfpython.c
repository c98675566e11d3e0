/* tfpython: CPython's own command-line interpreter with the tracer module `tfjit`
 * built in. Tests of the tracer run their Python scripts with it, so that under the
 * asan preset the tracer's C code runs instrumented without LD_PRELOAD tricks. */
#include "tr_module.h"

int main(int argc, char **argv)
{
    if (PyImport_AppendInittab("tfjit", PyInit_tfjit) < 0) {
        fprintf(stderr, "tfpython: cannot register the tfjit module\n");
        return 1;
    }
    return Py_BytesMain(argc, argv);
}
