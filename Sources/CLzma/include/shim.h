#ifndef DEVICECTL_CLZMA_SHIM_H
#define DEVICECTL_CLZMA_SHIM_H
// liblzma from Debian (the header from liblzma-dev; the library, liblzma5, is one libarchive13 depends on): restore,
// verify and list decode xz themselves, under a memory limit (TarKit's XzDecoder). Loaded on first use (Lazy.c).
#include <lzma.h>

/// lzma_stream_decoder's flag for concatenated .xz streams (as `xz -d` reads them), which Swift cannot import.
static const uint32_t CLZMA_CONCATENATED = LZMA_CONCATENATED;
#endif
