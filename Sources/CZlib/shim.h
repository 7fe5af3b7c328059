#ifndef DEVICECTL_CZLIB_SHIM_H
#define DEVICECTL_CZLIB_SHIM_H
#include <zlib.h>
#endif
