// CSupportMemory: copies that bypass the cache, and a measure of how far another core's cache is.
#ifndef DEVICECTL_CSUPPORT_MEMORY_H
#define DEVICECTL_CSUPPORT_MEMORY_H

#include <stddef.h>

/// Copies `count` bytes like memcpy, with non-temporal (streaming) stores for the whole 64-byte lines of
/// `destination` (plain stores for a partial line at either end): the lines go to memory instead of this core's cache,
/// and copies of them in other cores' caches are invalidated without their data being fetched first. Another thread
/// may read them only after `csupport_store_fence` and a hand-off. memcpy on other architectures.
void csupport_copy_streaming(void *destination, const void *source, size_t count);

/// Orders every streaming store before it ahead of every store after it (sfence), so that a hand-off published
/// afterwards publishes their bytes too.
void csupport_store_fence(void);

/// The mean time in nanoseconds of `loads` dependent loads from lines spread over the `size` bytes at `base` (at
/// least 64; every load waits for the one before): about an L3 hit for memory another core sharing this core's L3
/// read last, and a remote cache's or memory's latency when that core is farther away.
double csupport_line_latency(const void *base, size_t size, int loads);

#endif
