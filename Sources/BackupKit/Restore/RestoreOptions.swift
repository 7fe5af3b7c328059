// RestoreOptions: limits and hooks for one restore.
import Foundation
import SystemKit
import TarKit

/// How a restore runs.
public struct RestoreOptions {
    /// Extract at most this many bytes of file data (default: ROOT's free space minus `reserveBytes`).
    public var maxBytes: UInt64?
    /// Free space left untouched on ROOT's file system.
    public var reserveBytes: UInt64 = 16 << 20
    /// Free inodes left untouched on ROOT's file system.
    public var reserveInodes: UInt64 = 1024
    /// Flush the staged tree to disk (syncfs) before moving it into place, so a crash never exposes
    /// half-written files under ROOT.
    public var syncsBeforeMove = true
    /// Polled between blocks; a signal number aborts and undoes the restore.
    public var interruption: @Sendable () -> Int32? = { ProcessSignals.received }
    /// Called after each member with the running counts, on the calling thread (cheap; throttle in the callback).
    public var progress: ((ReadProgress) -> Void)?
    /// Called with each member staged in ROOT (its normalised name and kind), in archive order, on the calling
    /// thread (`restore -v`); never for the manifest, ROOT itself, DeviceLocal or a path ROOT flags excluded.
    public var restored: ((MemberPath, ArchiveReader.Kind) -> Void)?
    /// The time a new device's identity is created at (ROOT absent or empty).
    public var now = Date()
    /// Called once, before waiting, when another devicectl holds the device (its lock) and the restore must wait.
    public var waitingForDevice: (() -> Void)?
    /// An encrypted MobileSync backup's password, asked for only when one is opened (nil: none given).
    public var password: () throws -> [UInt8]? = { nil }
    /// Which thread creates regular files (tests pin one of them).
    var fileCreation = FileCreation.writer

    /// Whether every regular file is created by the reading thread (the writer only writes and closes) instead of
    /// by the writer. Pinned, every system call that names a path is made on one thread in the archive's order,
    /// so fault injection by call count (strace counts per thread) always hits the same step; the CLI pins with
    /// `DEVICECTL_THREADS=pinned`. Either way the choice holds for the whole restore.
    public var pinsThreads: Bool {
        get { fileCreation == .reader }
        set { fileCreation = newValue ? .reader : .writer }
    }

    public init() {}
}
