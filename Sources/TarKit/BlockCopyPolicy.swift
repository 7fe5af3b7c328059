// BlockCopyPolicy: how a zstd archive's writing thread fills the blocks the compressing thread reads: plain stores,
// or streaming stores while the compressing thread's cache is measured far away.
//
// Every byte of a zstd backup's stream is written into a 2 MiB block by the thread that formats it and read by the
// thread that compresses it. Where the two cores share a cache, those bytes pass through it. Where they do not (a
// virtual machine whose host places its two CPUs far apart for seconds at a time: docs/PERFORMANCE.md, 2026-12-07),
// each line is fetched from the other core's cache twice a round: by the writer before it overwrites a recycled
// block, and by the compressor after. Streaming (non-temporal) stores send the lines to memory instead, so neither
// fetch crosses; where the cache is shared they cost the compressor its cache hits. Measured on the bench tree's
// like-for-like zstd backup (alternating rounds with the placement probe): streaming stores always, 0.92x the time
// with the CPUs far apart and 1.04x near; this policy, which measures the distance from each recycled block, took
// the better of the two in each.
import CSupport

/// Whether the next block is filled with streaming stores: always, never, or as measured (the default).
public struct BlockCopyPolicy: Sendable {
    /// How the choice is made.
    public enum Mode: Sendable, Equatable {
        /// From the latency of loads from each block the compressing thread recycled (`observe`).
        case measured
        /// Plain stores (memcpy) for every block.
        case regular
        /// Streaming stores for every block.
        case streaming
    }

    /// Mean load latency (ns) above which the compressing thread's cache counts as far: near, an AMD EPYC VM's loads
    /// from a block the other thread had just read took 37-93 ns (an L3 shared by both cores; median 55), far
    /// 93-220 ns (median 110-137; 12 backups each way, 123 blocks each).
    static let farLatency = 90.0
    /// Readings whose median decides (one slow reading, an interrupt's, changes nothing).
    static let window = 5
    /// Dependent loads per reading (about 1 to 3 µs of a block's few milliseconds).
    static let loads: Int32 = 16

    public let mode: Mode
    /// The latest readings, oldest first (at most `window`).
    private var readings: [Double] = []
    /// Whether the next block gets streaming stores.
    public private(set) var streaming: Bool

    public init(_ mode: Mode) {
        self.mode = mode
        streaming = mode == .streaming
    }

    public static let measured = BlockCopyPolicy(.measured)

    /// Whether `observe` needs a reading (only the measured mode takes any).
    var measures: Bool { mode == .measured }

    /// Takes the mean load latency in nanoseconds from a block the compressing thread recycled; decides the next
    /// block's stores from the median of the latest `window` readings.
    mutating func observe(latency: Double) {
        guard mode == .measured else { return }
        if readings.count == Self.window { readings.removeFirst() }
        readings.append(latency)
        let sorted = readings.sorted()
        streaming = sorted[sorted.count / 2] > Self.farLatency
    }

    /// Measures `block` (a block the compressing thread recycled) and decides the next block's stores.
    mutating func measure(_ block: UnsafeRawBufferPointer) {
        guard measures, let base = block.baseAddress else { return }
        observe(latency: csupport_line_latency(base, block.count, Self.loads))
    }
}
