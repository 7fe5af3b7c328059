// Lazy: liblzma loaded by the first call into it, not at start-up (see CSupportLazy.h and CArchive's Lazy.c). Each
// function below has the prototype lzma.h declares and forwards to liblzma's own; they are hidden, so libarchive's
// calls into liblzma never come through them.
#pragma GCC visibility push(hidden)
#include "shim.h"
#include "CSupportLazy.h"

static struct csupport_library lzma = {{"liblzma.so.5", "liblzma.so"}, "liblzma5", 0};

CSUPPORT_LAZY(lzma, lzma_ret, lzma_stream_decoder, (lzma_stream * p0, uint64_t p1, uint32_t p2), (p0, p1, p2))
CSUPPORT_LAZY(lzma, lzma_ret, lzma_lzip_decoder, (lzma_stream * p0, uint64_t p1, uint32_t p2), (p0, p1, p2))
CSUPPORT_LAZY(lzma, lzma_ret, lzma_alone_decoder, (lzma_stream * p0, uint64_t p1), (p0, p1))
CSUPPORT_LAZY(lzma, lzma_ret, lzma_code, (lzma_stream * p0, lzma_action p1), (p0, p1))
CSUPPORT_LAZY_VOID(lzma, lzma_end, (lzma_stream * p0), (p0))
CSUPPORT_LAZY(lzma, uint64_t, lzma_memusage, (const lzma_stream * p0), (p0))

#pragma GCC visibility pop
