// Lazy: libzstd loaded by the first call into it, not at start-up (see CSupportLazy.h and CArchive's Lazy.c). Each
// function below has the prototype zstd.h declares and forwards to libzstd's own; they are hidden, so libarchive's
// calls into libzstd (when it decompresses) never come through them.
#pragma GCC visibility push(hidden)
// zstd.h marks its declarations visibility("default") unless told otherwise: these definitions must stay hidden
// (exported from the static release binary, they would take libarchive's own calls into libzstd).
#define ZSTDLIB_VISIBLE
#include "shim.h"
#include "CSupportLazy.h"

static struct csupport_library zstd = {{"libzstd.so.1", "libzstd.so"}, "libzstd1", 0};

CSUPPORT_LAZY(zstd, ZSTD_CCtx *, ZSTD_createCCtx, (void), ())
CSUPPORT_LAZY(zstd, size_t, ZSTD_freeCCtx, (ZSTD_CCtx * p0), (p0))
CSUPPORT_LAZY(zstd, size_t, ZSTD_CCtx_setParameter, (ZSTD_CCtx * p0, ZSTD_cParameter p1, int p2), (p0, p1, p2))
CSUPPORT_LAZY(zstd, size_t, ZSTD_compress2, (ZSTD_CCtx * p0, void * p1, size_t p2, const void * p3, size_t p4), (p0, p1, p2, p3, p4))
CSUPPORT_LAZY(zstd, size_t, ZSTD_compressBound, (size_t p0), (p0))
CSUPPORT_LAZY(zstd, unsigned, ZSTD_isError, (size_t p0), (p0))
CSUPPORT_LAZY(zstd, const char *, ZSTD_getErrorName, (size_t p0), (p0))

#pragma GCC visibility pop
