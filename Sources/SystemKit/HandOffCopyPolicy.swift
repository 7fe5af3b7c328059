// HandOffCopyPolicy: how a thread copies bytes into the buffers it hands to another thread (`HandOff`): plain stores,
// or streaming stores while the other thread's cache is measured far away.
//
// A zstd backup's stream is written into 2 MiB blocks by the thread that formats it and read by the thread that
// compresses it (`StreamCompressor`). Where the two cores share a cache, those bytes pass through it. Where they do not (a virtual machine whose host places its two CPUs far apart for
// seconds at a time: docs/PERFORMANCE.md, 2026-12-07), each line is fetched from the other core's cache twice a
// round: by the producer before it overwrites a recycled buffer, and by the consumer after. Streaming
// (non-temporal) stores send the lines to memory instead, so neither fetch crosses; where the cache is shared they
// cost the consumer its cache hits. Measured on the bench tree's like-for-like zstd backup (alternating rounds with
// the placement probe, docs/PERFORMANCE.md): streaming stores for every block, 0.89-0.92x the time with the CPUs far
// apart and 1.02-1.05x near; this policy, which reads the distance off each recycled block, 0.88x far (0.831 ->
// 0.733x `tar --zstd`, 28 rounds) and level near (0.739 -> 0.738, 72). A restore's batches filled the same way
// measured level both ways (0.999x far, 18 rounds): its writer still fetched every line, from memory instead; a
// restore keeps its larger files' bytes on the reading thread instead (`StagingPipeline.writesWhereRead`).
import CSupport

/// Whether the producer fills the next buffer with streaming stores: always, never, or as measured (the default).
/// Used by the producing thread only.
public struct HandOffCopyPolicy: Sendable {
    /// How the choice is made.
    public enum Mode: Sendable, Equatable {
        /// From the latency of loads from each buffer the consumer recycled (`measure`).
        case measured
        /// Plain stores (memcpy) always.
        case regular
        /// Streaming stores always.
        case streaming
    }

    /// Mean load latency (ns) above which the consumer's cache counts as far. On an AMD EPYC VM, readings of the
    /// blocks of a bench-tree zstd backup (123 each) had a median of 55 ns with the CPUs near (10th-90th percentile
    /// 37-93: an L3 both cores share) and of 110-138 ns in 11 backups with them far apart (93-222).
    static let farLatency = 90.0
    /// Readings whose median decides (one slow reading, an interrupt's, changes nothing).
    static let window = 5
    /// Dependent loads per reading (about 1 to 3 µs).
    static let loads: Int32 = 16

    public let mode: Mode
    /// The latest readings, oldest first (at most `window`).
    private var readings: [Double] = []
    /// Whether the next copies are streaming stores.
    public private(set) var streaming: Bool
    /// Streaming stores made since the last `publish`.
    private var unpublished = false
    /// Buffers published after streaming stores.
    public private(set) var buffersStreamed = 0

    public init(_ mode: Mode) {
        self.mode = mode
        streaming = mode == .streaming
    }

    public static let measured = HandOffCopyPolicy(.measured)

    /// Whether `measure` takes readings (only the measured mode does).
    public var measures: Bool { mode == .measured }

    /// Copies `bytes` to `destination` with the stores the policy says.
    public mutating func copy(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if streaming {
            csupport_copy_streaming(destination, source, bytes.count)
            unpublished = true
        } else {
            destination.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    /// Orders the streaming stores made since the last call ahead of the hand-off that follows (sfence); call it
    /// before handing a buffer over (nothing to do after plain stores).
    public mutating func publish() {
        guard unpublished else { return }
        csupport_store_fence()
        unpublished = false
        buffersStreamed += 1
    }

    /// Reads the latency of `buffer`, one the consumer recycled (its lines were read last over there), and decides
    /// the next copies' stores from the median of the latest `window` readings.
    public mutating func measure(_ buffer: UnsafeRawBufferPointer) {
        guard measures, let base = buffer.baseAddress else { return }
        observe(latency: csupport_line_latency(base, buffer.count, Self.loads))
    }

    /// Takes one reading (ns).
    mutating func observe(latency: Double) {
        guard measures else { return }
        if readings.count == Self.window { readings.removeFirst() }
        readings.append(latency)
        let sorted = readings.sorted()
        streaming = sorted[sorted.count / 2] > Self.farLatency
    }
}
