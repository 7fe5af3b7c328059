#ifndef DEVICECTL_CLZMA_SHIM_H
#define DEVICECTL_CLZMA_SHIM_H
// liblzma from Debian (the header from liblzma-dev; the library, liblzma5 5.4 or later, is one libarchive13 depends
// on): restore, verify and list decode xz, lzip and lzma themselves, under a memory limit (TarKit's LzmaDecoder).
// Loaded on first use (Lazy.c).
#include <lzma.h>

/// The decoders' flag for concatenated .xz streams and .lz members (as `xz -d` reads them), which Swift cannot
/// import.
static const uint32_t CLZMA_CONCATENATED = LZMA_CONCATENATED;
#endif
