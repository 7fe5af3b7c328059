// Memory: streaming copies and the line-latency measure (CSupportMemory.h).
#include "CSupportMemory.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <emmintrin.h>

void csupport_copy_streaming(void *destination, const void *source, size_t count) {
    unsigned char *to = destination;
    const unsigned char *from = source;
    size_t head = (64 - ((uintptr_t)to & 63)) & 63;
    if (head > count) head = count;
    memcpy(to, from, head);
    to += head;
    from += head;
    count -= head;
    for (; count >= 64; to += 64, from += 64, count -= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)from), b = _mm_loadu_si128((const __m128i *)(from + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(from + 32)), d = _mm_loadu_si128((const __m128i *)(from + 48));
        _mm_stream_si128((__m128i *)to, a);
        _mm_stream_si128((__m128i *)(to + 16), b);
        _mm_stream_si128((__m128i *)(to + 32), c);
        _mm_stream_si128((__m128i *)(to + 48), d);
    }
    memcpy(to, from, count);
}

void csupport_store_fence(void) {
    _mm_sfence();
}
#else
void csupport_copy_streaming(void *destination, const void *source, size_t count) {
    memcpy(destination, source, count);
}

void csupport_store_fence(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

/// Always zero; read through a volatile so that the compiler cannot see that each load's address does not depend on
/// the value the load before it returned.
static volatile uint64_t csupport_no_offset = 0;

double csupport_line_latency(const void *base, size_t size, int loads) {
    const volatile unsigned char *bytes = base;
    size_t lines = size / 64;
    if (lines == 0 || loads <= 0) return 0;
    uint64_t value = 0, mask = csupport_no_offset;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < loads; i++) {
        // A prime stride over the lines: no two loads in one line or in a pattern the prefetchers follow.
        size_t line = ((size_t)i * 1031 + 17) % lines;
        value = bytes[line * 64 + (value & mask)];
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    csupport_no_offset = value & mask;
    return ((double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec)) / loads;
}
