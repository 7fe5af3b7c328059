// CarriedFile: an open file a batch carries from the reading thread to the writing thread, which reads it.
import SystemKit

/// A regular file the walk opened and checked (exclusion, attributes) but did not read: its descriptor, owned by the
/// batch that carries it, and its status when it was opened, against which the writing thread checks it after
/// reading (`UnchangedCheck`).
struct CarriedFile {
    let descriptor: Int32
    let status: FileStatus
}
