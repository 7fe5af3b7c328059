// Lazy: loading a C library on first use (see CSupportLazy.h).
#include "CSupportLazy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

/// Ends the process as the dynamic loader would have at start-up (status 127), naming what is missing: the library,
/// or (`symbol` non-null) a function it lacks, with the loader's reason.
static void csupport_lazy_fail(struct csupport_library *library, const char *symbol) {
    const char *reason = dlerror();
    if (reason == 0) reason = "unknown reason";
    if (symbol == 0) {
        fprintf(stderr, "devicectl: cannot load %s (Debian package %s): %s\n", library->names[0], library->package,
                reason);
    } else {
        fprintf(stderr, "devicectl: %s (Debian package %s) has no function %s: %s\n", library->names[0],
                library->package, symbol, reason);
    }
    fflush(stderr);
    _exit(127);
}

void *csupport_lazy_symbol(struct csupport_library *library, const char *symbol) {
    void *handle = atomic_load_explicit(&library->handle, memory_order_acquire);
    if (handle == 0) {
        for (int index = 0; index < 2 && handle == 0; index++) {
            if (library->names[index] != 0) handle = dlopen(library->names[index], RTLD_NOW | RTLD_LOCAL);
        }
        if (handle == 0) csupport_lazy_fail(library, 0);
        atomic_store_explicit(&library->handle, handle, memory_order_release);
    }
    void *address = dlsym(handle, symbol);
    if (address == 0) csupport_lazy_fail(library, symbol);
    return address;
}
