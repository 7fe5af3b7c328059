// SharedDescriptor: one FileDescriptor held by several owners (a reference), closed when the last lets go.
import SystemKit

/// A `FileDescriptor` behind a reference, for a descriptor no single owner outlives: ROOT and the staging
/// directory (held by the restore's placement, staging tree and digest log), a parent directory that queued
/// staging operations hold, a file on its way from the reader thread to the writer (`take`).
final class SharedDescriptor: @unchecked Sendable {
    /// The descriptor; nil once taken.
    private var file: FileDescriptor?
    /// The path it was opened at, for messages.
    let path: String

    init(_ file: consuming FileDescriptor) {
        path = file.path
        self.file = consume file
    }

    /// The raw descriptor; -1 once taken.
    var rawValue: Int32 { file?.rawValue ?? -1 }

    /// `statx` of the open file.
    func status() throws(SystemError) -> FileStatus {
        try FileStatus.of("", descriptor: rawValue, emptyPath: true, displayPath: path)
    }

    /// Moves the descriptor out (to the one owner left); nil when it was taken before.
    func take() -> FileDescriptor? {
        file.take()
    }
}
