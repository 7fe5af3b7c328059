// CSupportLazy: C libraries loaded on first use (dlopen), not at start-up.
#ifndef DEVICECTL_CSUPPORT_LAZY_H
#define DEVICECTL_CSUPPORT_LAZY_H

#include <stdatomic.h>

/// A shared library loaded by the first call that needs it. `names`: its soname, then a fallback (the development
/// symlink); `package`: the Debian package that installs it, named if it cannot be loaded.
struct csupport_library {
    const char *names[2];
    const char *package;
    _Atomic(void *) handle;
};

/// The address of `symbol` in `library`, loading the library on first use (thread-safe: a race loads it twice,
/// which dlopen counts, and both get the same address). A library or symbol that cannot be loaded ends the process
/// with exit status 127 and one line on standard error naming the library, the package and the loader's reason:
/// what the dynamic loader does at start-up when a library is missing.
void *csupport_lazy_symbol(struct csupport_library *library, const char *symbol);

/// The function a stub's `slot` holds, looked up in `library` by `name` on the first call (then kept).
static inline void *csupport_lazy_resolve(_Atomic(void *) *slot, struct csupport_library *library, const char *name) {
    void *function = atomic_load_explicit(slot, memory_order_acquire);
    if (function == 0) {
        function = csupport_lazy_symbol(library, name);
        atomic_store_explicit(slot, function, memory_order_release);
    }
    return function;
}

/// Defines `name` with the prototype its header declares, forwarding to the library's definition (resolved once).
/// `params`: the parenthesised parameter list with names; `args`: the parenthesised names.
#define CSUPPORT_LAZY(library, ret, name, params, args) \
    ret name params { \
        static _Atomic(void *) slot; \
        return ((ret(*) params)csupport_lazy_resolve(&slot, &library, #name)) args; \
    }

/// CSUPPORT_LAZY for a function returning void.
#define CSUPPORT_LAZY_VOID(library, name, params, args) \
    void name params { \
        static _Atomic(void *) slot; \
        ((void(*) params)csupport_lazy_resolve(&slot, &library, #name)) args; \
    }

#endif
