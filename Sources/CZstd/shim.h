#ifndef DEVICECTL_CZSTD_SHIM_H
#define DEVICECTL_CZSTD_SHIM_H
#include <zstd.h>
#endif
