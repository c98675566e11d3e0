/* hz_emit_class.c: the Python for descriptors: module-level helper descriptors,
 * metaclasses and generated classes, one member kind at a time (DESIGN.md's table
 * of descriptor kinds says what each must exercise).
 *
 * Class creation must never fail, whatever the IR holds; the rules that make it so:
 *   - names are unique in the program (kind name + number), so `__slots__` never
 *     meets a same-named class attribute; only mro_override reuses a name, and it
 *     lives in another class;
 *   - every instance keeps a __dict__ (root slotted classes list "__dict__" in
 *     their __slots__), so cached_property, dict shadowing and inst attributes work;
 *   - a second base is a root class without slots that the first base does not
 *     inherit (hz_decode.c checks), so neither C3 nor the layout can conflict;
 *   - metaclasses form a chain, so the most derived one always wins;
 *   - one __getattr__ and one __getattribute__ per class body (the decoder remaps
 *     a second one; getattr_hook and module_like share one __getattr__). */
#include <string.h>

#include "hz_emit.h"

static bool
uses(const HzProgram *p, HzDescKind k, int variant)
{
    for (int i = 0; i < p->nmetas; i++)
        for (int m = 0; m < p->metas[i].nmembers; m++) {
            const HzMember *mem = &p->metas[i].members[m];
            if (mem->kind == k && (variant < 0 || mem->variant == variant))
                return true;
        }
    for (int i = 0; i < p->nclasses; i++)
        for (int m = 0; m < p->classes[i].nmembers; m++) {
            const HzMember *mem = &p->classes[i].members[m];
            if (mem->kind == k && (variant < 0 || mem->variant == variant))
                return true;
        }
    return false;
}

void
hz_emit_helpers(HzEmitter *e)
{
    const HzProgram *p = e->p;
    bool late = false;
    for (int b = 0; b < p->nbetween; b++)
        late |= p->between[b].kind == HZ_BETWEEN_add_getattr;

    if (uses(p, HZ_DESC_prop_stable, 0) || uses(p, HZ_DESC_getattr_hook, 1))
        EMIT(e, "STABLE = object()  # returned by every stable read\n");
    if (uses(p, HZ_DESC_prop_counter, 0))
        EMIT(e, "COUNTS = {}  # side effects of counter properties\n");
    EMIT(e, "\n");
    if (uses(p, HZ_DESC_data_desc, 0) || uses(p, HZ_DESC_data_desc, 1))
        EMIT(e,
             "\nclass DataDesc:\n"
             "    \"\"\"A data descriptor keeping its value in the instance dict under its own\n"
             "    name: it wins over that dict entry on every read.\"\"\"\n"
             "\n"
             "    def __init__(self, name, default):\n"
             "        self.name = name\n"
             "        self.default = default\n"
             "\n"
             "    def __get__(self, obj, objtype=None):\n"
             "        if obj is None:\n"
             "            return self\n"
             "        LOG.append((\"desc_get\", self.name))\n"
             "        return obj.__dict__.get(self.name, self.default)\n"
             "\n"
             "    def __set__(self, obj, value):\n"
             "        LOG.append((\"desc_set\", self.name))\n"
             "        obj.__dict__[self.name] = value\n\n");
    if (uses(p, HZ_DESC_data_desc, 1))
        EMIT(e,
             "\nclass DataDescDel(DataDesc):\n"
             "    \"\"\"The same, deletable.\"\"\"\n"
             "\n"
             "    def __delete__(self, obj):\n"
             "        LOG.append((\"desc_delete\", self.name))\n"
             "        obj.__dict__.pop(self.name, None)\n\n");
    if (uses(p, HZ_DESC_data_desc, 2))
        EMIT(e,
             "\nclass SetOnlyDesc:\n"
             "    \"\"\"__set__ without __get__: reads find the instance dict first, then the\n"
             "    descriptor object itself.\"\"\"\n"
             "\n"
             "    def __init__(self, name):\n"
             "        self.name = name\n"
             "\n"
             "    def __set__(self, obj, value):\n"
             "        LOG.append((\"desc_set\", self.name))\n"
             "        obj.__dict__[self.name] = (\"stored\", value)\n\n");
    if (uses(p, HZ_DESC_nondata_desc, -1))
        EMIT(e,
             "\nclass NonDataDesc:\n"
             "    \"\"\"__get__ only: an instance dict entry of the same name shadows it.\"\"\"\n"
             "\n"
             "    def __init__(self, name, value, fresh):\n"
             "        self.name = name\n"
             "        self.value = value\n"
             "        self.fresh = fresh\n"
             "\n"
             "    def __get__(self, obj, objtype=None):\n"
             "        LOG.append((\"nondata_get\", self.name, obj is None))\n"
             "        if self.fresh:\n"
             "            return [self.name, self.value]\n"
             "        return (self.name, self.value)\n\n");
    if (uses(p, HZ_DESC_set_name, -1))
        EMIT(e,
             "\nclass NamedDesc:\n"
             "    \"\"\"Learns its attribute name and owner from __set_name__.\"\"\"\n"
             "\n"
             "    def __set_name__(self, owner, name):\n"
             "        self.owner = owner.__name__\n"
             "        self.name = name\n"
             "\n"
             "    def __get__(self, obj, objtype=None):\n"
             "        if obj is None:\n"
             "            return self\n"
             "        LOG.append((\"named_get\", self.owner, self.name))\n"
             "        return obj.__dict__.get(\"_\" + self.name, (self.owner, self.name))\n\n");
    if (uses(p, HZ_DESC_set_name, 1))
        EMIT(e,
             "\nclass NamedDataDesc(NamedDesc):\n"
             "    \"\"\"The same as a data descriptor.\"\"\"\n"
             "\n"
             "    def __set__(self, obj, value):\n"
             "        LOG.append((\"named_set\", self.owner, self.name))\n"
             "        obj.__dict__[\"_\" + self.name] = value\n\n");
    if (uses(p, HZ_DESC_meta_data_desc, -1))
        EMIT(e,
             "\nclass MetaDesc:\n"
             "    \"\"\"A data descriptor for a metaclass: on class access it wins over the\n"
             "    class's own dict entry of the same name.\"\"\"\n"
             "\n"
             "    def __init__(self, name, default):\n"
             "        self.name = name\n"
             "        self.default = default\n"
             "        self.values = {}\n"
             "\n"
             "    def __get__(self, cls, meta=None):\n"
             "        if cls is None:\n"
             "            return self\n"
             "        LOG.append((\"meta_desc_get\", cls.__name__, self.name))\n"
             "        return self.values.get(cls.__name__, (self.name, self.default))\n"
             "\n"
             "    def __set__(self, cls, value):\n"
             "        LOG.append((\"meta_desc_set\", cls.__name__, self.name))\n"
             "        self.values[cls.__name__] = value\n\n");
    if (uses(p, HZ_DESC_callable_attr, 0))
        EMIT(e,
             "\ndef call_target(tag, *args):\n"
             "    \"\"\"Wrapped by functools.partial: called without self.\"\"\"\n"
             "    LOG.append((\"call\", tag))\n"
             "    return (tag, args)\n\n");
    if (uses(p, HZ_DESC_callable_attr, 1))
        EMIT(e,
             "\nclass CallableObj:\n"
             "    \"\"\"Callable, but not a descriptor: no self is bound.\"\"\"\n"
             "\n"
             "    def __init__(self, tag):\n"
             "        self.tag = tag\n"
             "\n"
             "    def __call__(self, *args):\n"
             "        LOG.append((\"call\", self.tag))\n"
             "        return (self.tag, args)\n\n");
    if (uses(p, HZ_DESC_partialmethod, -1))
        EMIT(e,
             "\ndef pm_target(self, tag, *args):\n"
             "    \"\"\"Wrapped by functools.partialmethod: self is bound first.\"\"\"\n"
             "    LOG.append((\"call\", tag, type(self).__name__))\n"
             "    return (tag, type(self).__name__, args)\n\n");
    if (late)
        EMIT(e,
             "\ndef late_getattr(self, name):\n"
             "    \"\"\"Installed as __getattr__ by between().\"\"\"\n"
             "    LOG.append((\"late_getattr\", name))\n"
             "    if name.startswith(\"missing_\") or name.startswith(\"dynamic\"):\n"
             "        return (\"late\", name)\n"
             "    raise AttributeError(name)\n\n");
}

/* ---- metaclasses ---- */

void
hz_emit_metas(HzEmitter *e)
{
    const HzProgram *p = e->p;
    for (int i = 0; i < p->nmetas; i++) {
        const HzMeta *mt = &p->metas[i];
        const char *base = i > 0 ? e->meta_name[i - 1] : (e->has_base ? "type(_Base)" : "type");
        EMIT(e, "\nclass %s(%s):\n", e->meta_name[i], base);
        EMIT(e, "    \"\"\"A metaclass: what it defines is met through class access.\"\"\"\n");
        for (int m = 0; m < mt->nmembers; m++) {
            const HzMember *mem = &mt->members[m];
            HzRef r = {(int8_t)(-1 - i), (uint8_t)m};
            const char *n = hz_emit_name(e, r);
            if (mem->kind == HZ_DESC_meta_prop) {
                EMIT(e, "\n    @property  # tf: desc=meta_prop\n    def %s(cls):\n", n);
                EMIT(e, "        LOG.append((\"meta_get\", cls.__name__, \"%s\"))\n", n);
                if (mem->variant == 0)
                    EMIT(e, "        return (\"meta\", cls.__name__, %d)\n", mem->value);
                else
                    EMIT(e, "        return [cls.__name__, %d]  # a new list per read\n",
                         mem->value);
            } else {
                EMIT(e, "\n    %s = MetaDesc(\"%s\", %d)  # tf: desc=meta_data_desc\n", n, n,
                     mem->value);
            }
        }
        EMIT(e, "\n");
    }
}

/* ---- classes ---- */

static void
emit_property_head(HzEmitter *e, const char *deco, const char *tag, const char *n,
                   const char *cls)
{
    EMIT(e, "\n    @%s  # tf: desc=%s\n    def %s(self):\n", deco, tag, n);
    EMIT(e, "        LOG.append((\"get\", \"%s.%s\"))\n", cls, n);
}

static void
emit_member(HzEmitter *e, int ci, int m)
{
    const HzMember *mem = &e->p->classes[ci].members[m];
    HzRef self = {(int8_t)ci, (uint8_t)m};
    const char *n = hz_emit_name(e, self);
    const char *cls = e->cls_name[ci];
    int v = mem->value;
    switch ((HzDescKind)mem->kind) {
    case HZ_DESC_inst_attr:
        EMIT(e, "\n    # %s: a plain instance attribute, set in make()  # tf: desc=inst_attr\n", n);
        break;
    case HZ_DESC_class_attr:
        if (mem->variant == 0)
            EMIT(e, "\n    %s = %d  # tf: desc=class_attr\n", n, v);
        else if (mem->variant == 1)
            EMIT(e, "\n    %s = \"%s\"  # tf: desc=class_attr\n", n, n);
        else
            EMIT(e, "\n    %s = (%d, \"%s\")  # tf: desc=class_attr\n", n, v, n);
        break;
    case HZ_DESC_class_attr_mut:
        if (mem->variant == 0)
            EMIT(e, "\n    %s = [%d]  # tf: desc=class_attr_mut (shared by all instances)\n", n, v);
        else
            EMIT(e, "\n    %s = {\"k\": %d}  # tf: desc=class_attr_mut (shared by all instances)\n",
                 n, v);
        break;
    case HZ_DESC_prop_fresh:
        emit_property_head(e, "property", "prop_fresh", n, cls);
        if (mem->variant == 0)
            EMIT(e, "        return object()  # a new object per read\n");
        else if (mem->variant == 1)
            EMIT(e, "        return [%d]  # a new list per read\n", v);
        else
            EMIT(e, "        return {\"fresh\": %d}  # a new dict per read\n", v);
        break;
    case HZ_DESC_prop_stable:
        if (mem->variant == 1)
            EMIT(e, "\n    %s_store = [%d]\n", n, v);
        emit_property_head(e, "property", "prop_stable", n, cls);
        if (mem->variant == 0)
            EMIT(e, "        return STABLE  # the same object every time\n");
        else
            EMIT(e, "        return self.%s_store  # the same list every time\n", n);
        break;
    case HZ_DESC_prop_counter:
        /* Variants 2 and 3 keep their state on the class (nn.Module style), where
         * program() reads it back (side_effect_read) and the observation sees it. */
        if (mem->variant == 2)
            EMIT(e, "\n    %s_hits = 0  # a class-level counter the getter bumps\n", n);
        else if (mem->variant == 3)
            EMIT(e, "\n    %s_log = []  # a class-level log the getter appends to\n", n);
        emit_property_head(e, "property", "prop_counter", n, cls);
        if (mem->variant == 2) {
            EMIT(e, "        %s.%s_hits += 1  # a side effect on the class\n", cls, n);
            EMIT(e, "        return %s.%s_hits\n", cls, n);
        } else if (mem->variant == 3) {
            EMIT(e, "        %s.%s_log.append(len(%s.%s_log))  # a side effect on the class\n",
                 cls, n, cls, n);
            EMIT(e, "        return len(%s.%s_log)\n", cls, n);
        } else if (mem->variant == 0) {
            EMIT(e, "        COUNTS[\"%s.%s\"] = COUNTS.get(\"%s.%s\", 0) + 1\n", cls, n, cls, n);
            EMIT(e, "        return COUNTS[\"%s.%s\"]\n", cls, n);
        } else {
            EMIT(e, "        hits = self.__dict__.get(\"%s_hits\", 0) + 1\n", n);
            EMIT(e, "        self.__dict__[\"%s_hits\"] = hits  # a side effect on the instance\n", n);
            EMIT(e, "        return hits\n");
        }
        break;
    case HZ_DESC_prop_attrerror:
        emit_property_head(e, "property", "prop_attrerror", n, cls);
        EMIT(e, "        raise AttributeError(\"%s is not available\")  # __getattr__ may take over\n",
             n);
        break;
    case HZ_DESC_prop_raises: {
        static const char *const exc[] = {"ValueError", "KeyError", "ZeroDivisionError"};
        emit_property_head(e, "property", "prop_raises", n, cls);
        EMIT(e, "        raise %s(\"%s\")\n", exc[mem->variant % 3], n);
        break;
    }
    case HZ_DESC_prop_setdel:
        emit_property_head(e, "property", "prop_setdel", n, cls);
        EMIT(e, "        return self.__dict__.get(\"_%s\", %d)\n", n, v);
        EMIT(e, "\n    @%s.setter\n    def %s(self, value):\n", n, n);
        EMIT(e, "        LOG.append((\"set\", \"%s.%s\"))\n", cls, n);
        EMIT(e, "        self.__dict__[\"_%s\"] = value\n", n);
        EMIT(e, "\n    @%s.deleter\n    def %s(self):\n", n, n);
        EMIT(e, "        LOG.append((\"delete\", \"%s.%s\"))\n", cls, n);
        EMIT(e, "        self.__dict__.pop(\"_%s\", None)\n", n);
        break;
    case HZ_DESC_cached_prop:
        EMIT(e, "\n    @functools.cached_property  # tf: desc=cached_prop\n    def %s(self):\n", n);
        EMIT(e, "        LOG.append((\"compute\", \"%s.%s\"))\n", cls, n);
        EMIT(e, "        return [%d]  # computed once, then served from the instance dict\n", v);
        break;
    case HZ_DESC_method:
        EMIT(e, "\n    def %s(self, *args):  # tf: desc=method\n", n);
        EMIT(e, "        LOG.append((\"call\", \"%s.%s\"))\n", cls, n);
        EMIT(e, "        return (\"%s.%s\", args)\n", cls, n);
        break;
    case HZ_DESC_classmethod:
        EMIT(e, "\n    @classmethod  # tf: desc=classmethod\n    def %s(cls, *args):\n", n);
        EMIT(e, "        LOG.append((\"call\", \"%s.%s\", cls.__name__))\n", cls, n);
        EMIT(e, "        return (cls.__name__, args)\n");
        break;
    case HZ_DESC_staticmethod:
        EMIT(e, "\n    @staticmethod  # tf: desc=staticmethod\n    def %s(*args):\n", n);
        EMIT(e, "        LOG.append((\"call\", \"%s.%s\"))\n", cls, n);
        EMIT(e, "        return (\"%s\", %d, args)\n", n, v);
        break;
    case HZ_DESC_data_desc:
        if (mem->variant == 2)
            EMIT(e, "\n    %s = SetOnlyDesc(\"%s\")  # tf: desc=data_desc\n", n, n);
        else
            EMIT(e, "\n    %s = %s(\"%s\", %d)  # tf: desc=data_desc\n", n,
                 mem->variant == 1 ? "DataDescDel" : "DataDesc", n, v);
        break;
    case HZ_DESC_nondata_desc:
        EMIT(e, "\n    %s = NonDataDesc(\"%s\", %d, %s)  # tf: desc=nondata_desc\n", n, n, v,
             mem->variant ? "True" : "False");
        break;
    case HZ_DESC_set_name:
        EMIT(e, "\n    %s = %s()  # tf: desc=set_name\n", n,
             mem->variant ? "NamedDataDesc" : "NamedDesc");
        break;
    case HZ_DESC_slot:
        EMIT(e, "\n    # %s: a __slots__ member, %s in make()  # tf: desc=slot\n", n,
             mem->variant == 0 ? "set" : "left unset");
        break;
    case HZ_DESC_getattr_hook:   /* in the class's __getattr__ */
        break;
    case HZ_DESC_getattribute_hook:
        EMIT(e, "\n    def __getattribute__(self, name):  # tf: desc=getattribute_hook\n");
        if (mem->variant == 0) {
            EMIT(e, "        if name == \"%s\":  # selective: one name\n", n);
            EMIT(e, "            LOG.append((\"getattribute\", \"%s\", name))\n", cls);
            EMIT(e, "            return (\"hooked\", %d)\n", v);
            EMIT(e, "        return super().__getattribute__(name)\n");
        } else {
            EMIT(e, "        LOG.append((\"getattribute\", \"%s\", name))  # total: every name\n",
                 cls);
            EMIT(e, "        if name == \"%s\":\n", n);
            EMIT(e, "            return (\"hooked\", %d)\n", v);
            EMIT(e, "        return object.__getattribute__(self, name)\n");
        }
        break;
    case HZ_DESC_mro_override: {
        HzRef key = hz_ref_key(&e->lay, self);
        const char *owner = hz_emit_owner(e, key);
        switch (v % 3) {
        case 0:
            EMIT(e, "\n    @property  # tf: desc=mro_override of %s.%s\n    def %s(self):\n",
                 owner, n, n);
            EMIT(e, "        LOG.append((\"get\", \"%s.%s\"))\n", cls, n);
            EMIT(e, "        return (\"override\", super().%s)\n", n);
            break;
        case 1:
            EMIT(e, "\n    %s = \"override\"  # tf: desc=mro_override of %s.%s\n", n, owner, n);
            break;
        default:
            EMIT(e, "\n    def %s(self, *args):  # tf: desc=mro_override of %s.%s\n", n, owner,
                 n);
            EMIT(e, "        LOG.append((\"call\", \"%s.%s\"))\n", cls, n);
            EMIT(e, "        return (\"override\", super().%s, args)\n", n);
            break;
        }
        break;
    }
    case HZ_DESC_callable_attr:
        if (mem->variant == 0)
            EMIT(e, "\n    %s = functools.partial(call_target, \"%s\")  # tf: desc=callable_attr\n",
                 n, n);
        else
            EMIT(e, "\n    %s = CallableObj(\"%s\")  # tf: desc=callable_attr\n", n, n);
        break;
    case HZ_DESC_partialmethod:
        EMIT(e, "\n    %s = functools.partialmethod(pm_target, \"%s\")  # tf: desc=partialmethod\n",
             n, n);
        break;
    case HZ_DESC_module_like:
        EMIT(e, "\n    # %s: kept in self.%s, served by __getattr__  # tf: desc=module_like\n", n,
             mem->variant ? "_modules" : "_parameters");
        break;
    default:
        break;
    }
}

static const HzMember *
find_kind(const HzClass *c, HzDescKind k)
{
    for (int m = 0; m < c->nmembers; m++)
        if (c->members[m].kind == k)
            return &c->members[m];
    return NULL;
}

/* __init__, __setattr__ and __getattr__ of the nn.Module pattern, and the
 * getattr_hook kind's __getattr__ (one method serves both). */
static void
emit_hooks(HzEmitter *e, int ci)
{
    const HzClass *c = &e->p->classes[ci];
    const char *cls = e->cls_name[ci];
    bool module_like = find_kind(c, HZ_DESC_module_like) != NULL;
    const HzMember *ga = find_kind(c, HZ_DESC_getattr_hook);
    /* prop_attrerror's fallback variant: when the class body has no __getattr__ of
     * its own, it gets one serving exactly the names of those properties. */
    if (!module_like && ga == NULL) {
        bool any = false;
        for (int m = 0; m < c->nmembers; m++)
            any |= c->members[m].kind == HZ_DESC_prop_attrerror && c->members[m].variant == 1;
        if (any) {
            EMIT(e, "\n    def __getattr__(self, name):  # the fallback of prop_attrerror\n");
            EMIT(e, "        LOG.append((\"getattr\", \"%s\", name))\n", cls);
            EMIT(e, "        if name in (");
            for (int m = 0; m < c->nmembers; m++)
                if (c->members[m].kind == HZ_DESC_prop_attrerror && c->members[m].variant == 1) {
                    HzRef r = {(int8_t)ci, (uint8_t)m};
                    EMIT(e, "\"%s\", ", hz_emit_name(e, r));
                }
            EMIT(e, "):\n            return (\"fallback\", name)\n");
            EMIT(e, "        raise AttributeError(name)\n");
        }
    }
    bool base_init = e->has_base && c->base1 == 0;
    if (module_like || base_init) {
        EMIT(e, "\n    def __init__(self):\n        super().__init__()\n");
        if (module_like) {
            EMIT(e, "        self.__dict__.setdefault(\"_parameters\", {})\n");
            EMIT(e, "        self.__dict__.setdefault(\"_modules\", {})\n");
        }
    }
    if (module_like) {
        EMIT(e, "\n    def __setattr__(self, name, value):\n");
        EMIT(e, "        if name.startswith(\"param_\"):  # routed like nn.Module parameters\n");
        EMIT(e, "            self.__dict__.setdefault(\"_parameters\", {})[name] = value\n");
        EMIT(e, "        elif name.startswith(\"sub_\"):\n");
        EMIT(e, "            self.__dict__.setdefault(\"_modules\", {})[name] = value\n");
        EMIT(e, "        else:\n            super().__setattr__(name, value)\n");
    }
    if (!module_like && ga == NULL)
        return;
    EMIT(e, "\n    def __getattr__(self, name):%s\n", ga ? "  # tf: desc=getattr_hook" : "");
    EMIT(e, "        LOG.append((\"getattr\", \"%s\", name))\n", cls);
    if (module_like) {
        EMIT(e, "        d = self.__dict__\n");
        EMIT(e, "        for store in (\"_parameters\", \"_modules\"):\n");
        EMIT(e, "            if name in d.get(store, ()):\n");
        EMIT(e, "                return d[store][name]\n");
    }
    if (ga && ga->variant != 2) {
        EMIT(e, "        if name.startswith(\"__\"):\n            raise AttributeError(name)\n");
        if (ga->variant == 0)
            EMIT(e, "        return [name, %d]  # fresh: a new list per miss\n", ga->value);
        else
            EMIT(e, "        return STABLE  # stable: the same object per miss\n");
    } else {
        EMIT(e, "        raise AttributeError(f\"{type(self).__name__!r} object has no attribute "
                "{name!r}\")\n");
    }
}

void
hz_emit_classes(HzEmitter *e)
{
    const HzProgram *p = e->p;
    for (int ci = 0; ci < p->nclasses; ci++) {
        const HzClass *c = &p->classes[ci];
        const HzClassInfo *info = &e->lay.cls[ci];
        char bases[128] = "";
        size_t bl = 0;
        if (c->base1)
            bl += (size_t)snprintf(bases + bl, sizeof(bases) - bl, "%s", e->cls_name[c->base1 - 1]);
        else if (e->has_base)
            bl += (size_t)snprintf(bases + bl, sizeof(bases) - bl, "_Base");
        if (c->base2)
            bl += (size_t)snprintf(bases + bl, sizeof(bases) - bl, ", %s", e->cls_name[c->base2 - 1]);
        if (c->meta)
            bl += (size_t)snprintf(bases + bl, sizeof(bases) - bl, "%smetaclass=%s",
                                   bl ? ", " : "", e->meta_name[c->meta - 1]);
        EMIT(e, "\nclass %s%s%s%s:\n", e->cls_name[ci], bl ? "(" : "", bases, bl ? ")" : "");
        /* A one-line description of the class's shape for the reader. */
        if (c->base1 == 0)
            EMIT(e, "    \"\"\"A root class");
        else if (c->base2 == 0)
            EMIT(e, "    \"\"\"A subclass of %s", e->cls_name[c->base1 - 1]);
        else
            EMIT(e, "    \"\"\"A subclass of %s and %s (multiple inheritance)",
                 e->cls_name[c->base1 - 1], e->cls_name[c->base2 - 1]);
        if (info->eff_meta)
            EMIT(e, ", of metaclass %s", e->meta_name[info->eff_meta - 1]);
        if (info->own_slots)
            EMIT(e, ", with __slots__");
        EMIT(e, ".\"\"\"\n");
        if (info->own_slots) {
            int nslots = 0;
            EMIT(e, "\n    __slots__ = (");
            for (int m = 0; m < c->nmembers; m++)
                if (c->members[m].kind == HZ_DESC_slot) {
                    HzRef r = {(int8_t)ci, (uint8_t)m};
                    EMIT(e, "%s\"%s\"", nslots++ ? ", " : "", hz_emit_name(e, r));
                }
            /* A root keeps an instance dict through its slots; below a class that
             * already has one, "__dict__" would be a TypeError. */
            if (c->base1 == 0 && !e->has_base)
                EMIT(e, ", \"__dict__\"");
            else if (nslots == 1)
                EMIT(e, ",");
            EMIT(e, ")\n");
        }
        /* The class-dict entries a metaclass data descriptor shadows on class access. */
        for (int k = c->meta; k >= 1; k--)
            for (int m = 0; m < p->metas[k - 1].nmembers; m++)
                if (p->metas[k - 1].members[m].kind == HZ_DESC_meta_data_desc) {
                    HzRef r = {(int8_t)(-k), (uint8_t)m};
                    const char *n = hz_emit_name(e, r);
                    EMIT(e, "\n    %s = \"%s from the class dict\"  "
                            "# %s.%s wins on class access\n", n, n, e->meta_name[k - 1], n);
                }
        emit_hooks(e, ci);
        for (int m = 0; m < c->nmembers; m++)
            emit_member(e, ci, m);
        /* super() readers for program()'s super_read statements on this class. */
        for (int s = 0; s < p->nstmts; s++) {
            if (p->stmts[s].pattern != HZ_ACCESS_super_read || p->arg_class[p->stmts[s].arg] != ci)
                continue;
            bool dup = false;
            for (int t = 0; t < s && !dup; t++)
                dup = p->stmts[t].pattern == HZ_ACCESS_super_read
                      && p->arg_class[p->stmts[t].arg] == ci
                      && strcmp(hz_emit_name(e, e->stmt_ref[t]),
                                hz_emit_name(e, e->stmt_ref[s])) == 0;
            if (dup)
                continue;
            const char *n = hz_emit_name(e, e->stmt_ref[s]);
            EMIT(e, "\n    def super_%s(self):\n        return super().%s\n", n, n);
        }
        EMIT(e, "\n");
    }
}
