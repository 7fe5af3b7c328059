/* placement: how far apart the host has put this VM's CPUs 0 and 1 right now. Two threads, pinned one to each,
 * pass a cache line back and forth (one-way latency, ns) and then 400 buffers of 128 KiB (a backup's batch size)
 * from a writer on CPU 0 to a reader on CPU 1 (GB/s). On the 2-vCPU AMD EPYC VM of 2026-12-07 it read either about
 * 100 ns / 6.7 GB/s or about 300 ns / 2.0 GB/s, for seconds at a time, and devicectl's two-thread backups and
 * restores were 10-15% slower in the second state while a one-thread tar was not (docs/PERFORMANCE.md).
 * Build: cc -O2 -pthread bench/placement.c -o placement. Prints "latency_ns bandwidth_gbps". Not part of the package. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { PINGS = 20000, BUFFERS = 400, SIZE = 128 << 10 };
static _Atomic long flag __attribute__((aligned(64)));
static _Atomic long back __attribute__((aligned(64)));
static uint8_t buffers[2][SIZE] __attribute__((aligned(4096)));

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *pong(void *unused) {
    pin(1);
    for (long i = 1; i <= PINGS; i++) {
        while (atomic_load_explicit(&flag, memory_order_acquire) != i) {}
        atomic_store_explicit(&back, i, memory_order_release);
    }
    return unused;
}

static void *reader(void *unused) {
    pin(1);
    uint64_t sum = 0;
    for (long i = 1; i <= BUFFERS; i++) {
        while (atomic_load_explicit(&flag, memory_order_acquire) < i) {}
        const uint64_t *words = (const uint64_t *)buffers[i & 1];
        for (int k = 0; k < SIZE / 8; k++) sum += words[k];
        atomic_store_explicit(&back, i, memory_order_release);
    }
    return (void *)(uintptr_t)sum;
}

int main(void) {
    pthread_t thread;
    pin(0);
    atomic_store(&flag, 0);
    atomic_store(&back, 0);
    pthread_create(&thread, NULL, pong, NULL);
    double start = now();
    for (long i = 1; i <= PINGS; i++) {
        atomic_store_explicit(&flag, i, memory_order_release);
        while (atomic_load_explicit(&back, memory_order_acquire) != i) {}
    }
    double latency = (now() - start) / PINGS / 2 * 1e9;
    pthread_join(thread, NULL);

    atomic_store(&flag, 0);
    atomic_store(&back, 0);
    pthread_create(&thread, NULL, reader, NULL);
    start = now();
    for (long i = 1; i <= BUFFERS; i++) {
        /* Buffer i & 1 was last read at step i - 2. */
        while (atomic_load_explicit(&back, memory_order_acquire) < i - 2) {}
        memset(buffers[i & 1], (int)i, SIZE);
        atomic_store_explicit(&flag, i, memory_order_release);
    }
    while (atomic_load_explicit(&back, memory_order_acquire) < BUFFERS) {}
    double bandwidth = (double)BUFFERS * SIZE / (now() - start) / 1e9;
    pthread_join(thread, NULL);
    printf("%.0f %.2f\n", latency, bandwidth);
    return 0;
}
