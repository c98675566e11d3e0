/* hz_emit.h: the emitter's shared state, between hz_emit.c (module, make, between,
 * program, the __main__ protocol) and hz_emit_class.c (metaclasses, classes and
 * their members, helper descriptors). Internal to the program-model part. */
#ifndef HZ_EMIT_H
#define HZ_EMIT_H

#include "hz_ir.h"
#include "hz_sbuf.h"

typedef struct {
    HzProgram norm;                     /* the normalised copy emitted */
    const HzProgram *p;                 /* &norm */
    const HzEmitOptions *opts;
    bool has_base;                      /* --base module:Class given */
    HzLayout lay;
    HzSbuf sb;
    char cls_name[HZ_MAX_CLASSES][24];
    char meta_name[HZ_MAX_METAS][16];
    /* Resolved references (index fields of the IR looked up in their lists). */
    HzRef stmt_ref[HZ_MAX_STMTS];
    HzRef mut_ref[HZ_MAX_BETWEEN];
    bool mut_has_ref[HZ_MAX_BETWEEN];
    HzRef other_ref;
    bool other_has_ref;
    char names[4][32];                  /* rotating buffers for nm() */
    int name_rot;
} HzEmitter;

#define EMIT(e, ...) hz_sbuf_printf(&(e)->sb, __VA_ARGS__)

/* The attribute name of r (valid until four more calls). */
const char *hz_emit_name(HzEmitter *e, HzRef r);
/* The class that owns r's own definition, or the metaclass (by name). */
const char *hz_emit_owner(HzEmitter *e, HzRef r);

void hz_emit_helpers(HzEmitter *e);
void hz_emit_metas(HzEmitter *e);
void hz_emit_classes(HzEmitter *e);
/* hz_emit_program.c: program() and the classes its statements swap to. */
void hz_emit_program(HzEmitter *e);
void hz_emit_stmt_classes(HzEmitter *e);

#endif
