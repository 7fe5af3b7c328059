#ifndef DEVICECTL_CZSTD_SHIM_H
#define DEVICECTL_CZSTD_SHIM_H
// libzstd from Debian (the header from libzstd-dev; the library, libzstd1, is one libarchive13 depends on): a zstd
// backup compresses its stream as independent frames (TarKit's ZstdFrameEncoder). Loaded on first use (Lazy.c).
#include <zstd.h>
#endif
