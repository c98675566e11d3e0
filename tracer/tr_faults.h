/* tr_faults.h: named bugs injected into the tracer on request (docs/FAULTS.md).
 * Off by default. Read from TRACEFUZZ_FAULTS at module init and set through
 * tfjit.set_faults("a,b"). They exist to measure the harness: each must be found. */
#ifndef TR_FAULTS_H
#define TR_FAULTS_H

#define TR_FAULT_LIST(X) \
    X(ASSUME_STABLE_ATTRS, "assume_stable_attrs") \
    X(DICT_BEFORE_DATA_DESC, "dict_before_data_desc") \
    X(NO_GETATTR_AFTER_GETTER_ERROR, "no_getattr_after_getter_error") \
    X(STALE_CLASS_ATTR, "stale_class_attr") \
    X(STALE_GUARD_CLASS_ATTR, "stale_guard_class_attr") \
    X(SKIP_GETTER_ON_REPLAY, "skip_getter_on_replay") \
    X(NO_INVALIDATE_ON_STORE, "no_invalidate_on_store") \
    X(DICT_SHADOW_UNGUARDED, "dict_shadow_unguarded") \
    X(CLASSMETHOD_BINDS_INSTANCE, "classmethod_binds_instance") \
    X(CACHED_PROPERTY_RECOMPUTED, "cached_property_recomputed") \
    X(UNSET_SLOT_IS_NONE, "unset_slot_is_none") \
    X(GETATTRIBUTE_IGNORED, "getattribute_ignored") \
    X(META_DATA_DESC_LOSES, "meta_data_desc_loses") \
    X(STALE_DICT_WRITE, "stale_dict_write")

typedef enum {
#define TR_FAULT_ENUM(id, name) TR_FAULT_##id,
    TR_FAULT_LIST(TR_FAULT_ENUM)
#undef TR_FAULT_ENUM
    TR_FAULT__COUNT
} TrFault;

/* Parses a comma-separated list of fault names; 0 on success, -1 with ValueError
 * naming the unknown fault. An empty string or NULL clears all faults. */
int tr_faults_set(const char *csv);
unsigned tr_faults_active(void);          /* bitmask of (1u << TrFault) */
const char *tr_fault_name(TrFault f);
#define TR_FAULT_ON(run, f) (((run)->faults >> (f)) & 1u)

#endif
