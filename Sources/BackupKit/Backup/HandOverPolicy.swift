// HandOverPolicy: which files a plain tar backup's reading thread hands to the formatting thread to read.

/// The files the reading thread hands over (`ArchivingVisitor.handOver`): whole files (no holes) of at least `from`
/// bytes, while their descriptors' numbers stay under `descriptorLimit` (the kernel gives the lowest free number, so
/// this bounds the descriptors batches carry at once: with a formatter far behind, or in a process that holds many
/// files open, the reader reads them itself).
struct HandOverPolicy: Sendable, Equatable {
    var from: UInt64
    var descriptorLimit: Int32

    /// 64 KiB and more: 44% of the bench tree's bytes, in 245 of its 40,065 files (from 16 KiB, 58% in 1,054 files,
    /// measured level with it); at most 256 descriptors, a quarter of the usual RLIMIT_NOFILE.
    static let standard = HandOverPolicy(from: 64 << 10, descriptorLimit: 256)
}
