// EventLogCache: the event log as one device handle last read it, kept while the file is unchanged.
import Synchronization
import SystemKit

/// What `EventLog.contents()` last parsed for one `Device` (its copies share it), with the file's identity and
/// state when it was read (device, inode, size, modification and change times). A command reads the log several
/// times (`launch`: the clock, the launch, the notifications due and cancelled), and parsing was most of the cost; a later read
/// that finds the same file unchanged (one `statx` of an `O_PATH` descriptor) takes the parsed events again. An append changes the size, a
/// replacement the inode (devicectl only appends, under the device lock), and then the log is read again. What a
/// handle cannot see: someone else rewriting the file in place, to the same length, within one tick of the kernel's
/// file clock of the read (a coarse clock where timestamps are not fine-grained), during one command.
final class EventLogCache: Sendable {
    /// The state of the file a parse was made from.
    struct Key: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: UInt64
        let modifiedSeconds: Int64
        let modifiedNanoseconds: UInt32
        let changedSeconds: Int64
        let changedNanoseconds: UInt32

        init(_ status: FileStatus) {
            device = status.device
            inode = status.inode
            size = status.size
            modifiedSeconds = status.mtimeSeconds
            modifiedNanoseconds = status.mtimeNanoseconds
            changedSeconds = status.ctimeSeconds
            changedNanoseconds = status.ctimeNanoseconds
        }
    }

    private let last = Mutex<(key: Key, contents: EventLog.Contents)?>(nil)

    /// The contents parsed from the file in state `key`, if that is the last one read.
    func contents(for key: Key) -> EventLog.Contents? {
        last.withLock { entry in entry.flatMap { $0.key == key ? $0.contents : nil } }
    }

    func store(_ contents: EventLog.Contents, for key: Key) {
        last.withLock { $0 = (key, contents) }
    }
}
