#ifndef DEVICECTL_CARCHIVE_SHIM_H
#define DEVICECTL_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
