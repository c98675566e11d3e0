"""Shared by the cache_* toy targets: an AST-rewriting JIT with a per-call cache of
attribute reads, honest unless a subclass turns one of its shortcuts on.

jit(fn) takes inspect.getsource(fn), rewrites every attribute load into
rt.load(obj, name), every attribute store / delete into rt.store / rt.delete,
every subscript store into rt.setitem and every call into rt.call(f, ...), and
compiles the result in fn.__globals__ (the helper object reaches the code as a
closure variable, so the module's globals gain no name). Each call of the jitted
function starts with an empty cache.

What it caches: reads that run no user code, resolved the way
object.__getattribute__ does: an instance-dict value not behind a data descriptor
("inst"), or a plain class-dict value without __get__ ("class"), on instances of
classes without their own __getattribute__. Everything else (properties,
descriptors, methods, __getattr__, reads on classes) runs natively every time.

When it drops the cache (the honest rules; each toy breaks exactly one):
  - after any call, except to builtins that run no user code and write nothing
    (type, len, range, tuple; vars on an instance without a
    __getattribute__ hook);
  - after a native read that ran Python code (a getter may write);
  - on every attribute store and delete (on instances and on classes, `__class__`
    included: a setter or a class write may change any cached read);
  - on every subscript store into a dict (it may be some instance's __dict__);
    stores into lists (`out[i] = ...`) cannot change attributes.
"""
import ast
import inspect
import textwrap
import types

_MISSING = object()
_OBJECT_GETATTRIBUTE = object.__dict__["__getattribute__"]
_C_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)
_PURE = (type, len, range, tuple)


def _lookup(t, name):
    for k in t.__mro__:
        d = k.__dict__
        if name in d:
            return d[name]
    return _MISSING


def _is_class(obj):
    # not isinstance(obj, type): that reads obj.__class__, through a __getattribute__ hook
    return issubclass(type(obj), type)


def _has(t, name):
    return any(name in k.__dict__ for k in t.__mro__)


class Runtime:
    # The toys' shortcuts (all off: the honest JIT).
    ignore_dict_stores = False      # dict[k] = v and object.__setattr__ keep the cache
    dict_store_keeps_class = False  # ... drop only reads that came from an instance dict
    ignore_class_writes = False     # C.k = v, del C.k, setattr(C, ...) keep the cache
    ignore_class_swap = False       # obj.__class__ = X keeps the cache
    pure_getters = False            # a getter run natively keeps the cache
    pure_setters = False            # obj.k = v through a Python setter drops only k
    ignore_plain_del = False        # del obj.k of an instance-dict entry keeps the cache

    def __init__(self):
        self.cache = {}

    def flush(self, keep=None):
        if keep is None:
            self.cache.clear()
        else:
            self.cache = {k: v for k, v in self.cache.items() if keep(k, v)}

    def resolve(self, obj, name):
        """("inst"|"class", value) for a read that runs no code, else (kind, None)
        with kind "c" (C-level descriptor, no Python code) or "code"."""
        if _is_class(obj):
            return "code", None
        t = type(obj)
        if _lookup(t, "__getattribute__") is not _OBJECT_GETATTRIBUTE:
            return "code", None
        cattr = _lookup(t, name)
        ct = type(cattr)
        has_get = cattr is not _MISSING and _has(ct, "__get__")
        if cattr is not _MISSING and (_has(ct, "__set__") or _has(ct, "__delete__")):
            return ("c" if type(cattr) in _C_DESCRIPTORS else "code"), None
        try:
            d = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            d = None
        if d is not None and name in d:
            return "inst", d[name]
        if cattr is not _MISSING and not has_get:
            return "class", cattr
        return "code", None

    def load(self, obj, name):
        hit = self.cache.get((id(obj), name))
        if hit is not None and hit[0] is obj:
            return hit[1]
        kind, value = self.resolve(obj, name)
        if kind in ("inst", "class"):
            self.cache[(id(obj), name)] = (obj, value, kind)
            return value
        try:
            return getattr(obj, name)
        finally:
            if kind == "code" and not self.pure_getters:
                self.flush()

    def _class_write(self, obj):
        return _is_class(obj) and self.ignore_class_writes

    def store(self, obj, name, value):
        if name == "__class__" and self.ignore_class_swap:
            setattr(obj, name, value)
            return
        if self.pure_setters and not _is_class(obj):
            kind, _ = self.resolve(obj, name)
            if kind == "code":   # a Python setter: assumed to change only `name`
                setattr(obj, name, value)
                self.flush(lambda k, v: k[1] != name)
                return
        setattr(obj, name, value)
        if not self._class_write(obj):
            self.flush()

    def delete(self, obj, name):
        plain = False
        if self.ignore_plain_del and not _is_class(obj):
            kind, _ = self.resolve(obj, name)
            plain = kind == "inst"
        delattr(obj, name)
        if not plain and not self._class_write(obj):
            self.flush()

    def setitem(self, container, key, value):
        container[key] = value
        if type(container) is not dict or self.ignore_dict_stores:
            return
        if self.dict_store_keeps_class:
            self.flush(lambda k, v: v[2] != "inst")
        else:
            self.flush()

    def call(self, f, *args, **kwargs):
        pure = self.pure_call(f, args)
        try:
            return f(*args, **kwargs)
        finally:
            if not pure:
                self.flush()

    def pure_call(self, f, args):
        if any(f is p for p in _PURE):
            return True
        if f is vars:
            return len(args) == 1 and \
                _lookup(type(args[0]), "__getattribute__") is _OBJECT_GETATTRIBUTE
        if f is object.__setattr__ and self.ignore_dict_stores:
            return True
        if f in (setattr, delattr) and args and self._class_write(args[0]):
            return True
        return False


def _rt(name, ctx=ast.Load()):
    return ast.Attribute(ast.Name("__tf_rt", ast.Load()), name, ctx)


class _Rewrite(ast.NodeTransformer):
    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            return ast.Call(_rt("load"), [node.value, ast.Constant(node.attr)], [])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        return ast.Call(_rt("call"), [node.func] + node.args, node.keywords)

    def _target_stmt(self, target, value):
        """A statement storing `value` (an expression) into `target`."""
        if isinstance(target, ast.Attribute):
            return ast.Expr(ast.Call(_rt("store"), [self.visit(target.value),
                                                    ast.Constant(target.attr), value], []))
        if isinstance(target, ast.Subscript):
            return ast.Expr(ast.Call(_rt("setitem"), [self.visit(target.value),
                                                      self.visit(target.slice), value], []))
        return ast.Assign([self.visit(target)], value)

    def visit_Assign(self, node):
        value = self.visit(node.value)
        if len(node.targets) == 1:
            return self._target_stmt(node.targets[0], value)
        out = [ast.Assign([ast.Name("__tf_v", ast.Store())], value)]
        for t in node.targets:   # left to right, as CPython assigns
            out.append(self._target_stmt(t, ast.Name("__tf_v", ast.Load())))
        return out

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.generic_visit(node)
            return node
        # obj.k op= v / c[k] op= v: not in generated programs; a plain rewrite
        load = ast.Attribute(node.target.value, node.target.attr, ast.Load()) \
            if isinstance(node.target, ast.Attribute) else \
            ast.Subscript(node.target.value, node.target.slice, ast.Load())
        return self._target_stmt(node.target,
                                 ast.BinOp(self.visit(load), node.op, self.visit(node.value)))

    def visit_Delete(self, node):
        out = []
        for t in node.targets:
            if isinstance(t, ast.Attribute):
                out.append(ast.Expr(ast.Call(_rt("delete"), [self.visit(t.value),
                                                             ast.Constant(t.attr)], [])))
            else:
                out.append(ast.Delete([self.visit(t)]))
                out.append(ast.Expr(ast.Call(_rt("flush"), [], [])))
        return out


def make_jit(runtime_class):
    """A jit(fn) using runtime_class's rules."""
    def jit(fn):
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        func = tree.body[0]
        func.decorator_list = []
        func = _Rewrite().visit(func)
        # def __tf_make(__tf_rt): <func>; return <name>  -- __tf_rt is a closure cell
        maker = ast.FunctionDef(
            "__tf_make", ast.arguments([], [ast.arg("__tf_rt")], None, [], [], None, []),
            [func, ast.Return(ast.Name(func.name, ast.Load()))], [], None)
        module = ast.fix_missing_locations(ast.Module([maker], []))
        ns = {}
        exec(compile(module, fn.__code__.co_filename, "exec"), fn.__globals__, ns)
        rt = runtime_class()
        compiled = ns["__tf_make"](rt)

        def traced(*args):
            rt.cache = {}   # per call
            return compiled(*args)
        return traced
    return jit


jit = make_jit(Runtime)
