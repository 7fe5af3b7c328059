// EventLog: the device-local, append-only event log (`DeviceLocal/events.jsonl`).
import Foundation
import Glibc
import SystemKit

/// Appends events as JSON lines and reads them back oldest first. Device-local: never backed up.
///
/// A crash during an append can leave the last line torn (no newline, not a whole event). Reading tolerates
/// it (`Contents.tornLines`, a warning for the commands); the next append first ends the torn line with
/// `EventLog.tornTerminator` (RS, newline), so the fragment stays recognisable as torn and is never taken for
/// a malformed event later. Any other line that is not an event is a malformed log.
public struct EventLog: Sendable {
    /// The largest log read whole (about a million events).
    public static let limit = 256 << 20
    /// What ends a torn line when the next append starts a new one: ASCII RS (never in a JSON line, which
    /// escapes control characters) and a newline.
    public static let tornTerminator: [UInt8] = [0x1E, UInt8(ascii: "\n")]
    let directory: ContainedRoot
    let cache: EventLogCache

    /// The log as read: its events and the torn lines tolerated.
    public struct Contents: Sendable, Equatable {
        /// Every event, oldest first (stable by time; equal times keep log order).
        public var events: [DeviceEvent]
        /// The 1-based line numbers of torn appends skipped (the final line, or one a later append ended).
        public var tornLines: [Int]
        /// Whether the final line is torn and not ended yet (the next append ends it).
        public var endsTorn = false
    }

    public init(device: Device) {
        directory = device.directory
        cache = device.eventLogCache
    }

    /// The log's absolute path, for messages.
    public var path: String { directory.display(DeviceLayout.events) }

    /// Appends `event` with one `write(2)` on an `O_APPEND` descriptor, fsynced. When the log's last line is
    /// torn (a crash during an earlier append), the line is ended with `tornTerminator` first, in the same write.
    public func append(_ event: DeviceEvent) throws {
        var line = event.jsonLine
        line.append(UInt8(ascii: "\n"))
        let file = try directory.openRegular(DeviceLayout.events, flags: O_RDWR | O_APPEND | O_CREAT, mode: 0o644)
        do {
            if try lastLineUnended(file) { line = EventLog.tornTerminator + line }
            try file.write(line)
            try file.sync()
        } catch {
            try? file.close()
            throw error
        }
        try file.close()
    }

    /// Whether the open log's last byte is not a newline (an append was cut short).
    private func lastLineUnended(_ file: borrowing FileDescriptor) throws(SystemError) -> Bool {
        let size = try file.status().size
        guard size > 0 else { return false }
        var last: UInt8 = 0
        let count = pread(file.rawValue, &last, 1, off_t(size - 1))
        guard count == 1 else { throw SystemError("pread", path: file.path) }
        return last != UInt8(ascii: "\n")
    }

    /// Every event, oldest first (stable by time; equal times keep log order). A torn line is skipped.
    public func events() throws -> [DeviceEvent] {
        try contents().events
    }

    /// The events and the torn lines skipped; throws `DeviceError.malformedFile` for a line that is neither
    /// an event nor a torn append.
    public func contents() throws -> Contents {
        let bytes: [UInt8]
        let key: EventLogCache.Key
        do throws(SystemError) {
            // The file's state first (one O_PATH open): unchanged since this device handle last parsed it, the
            // same events. A change between this and the read only makes the next call read it again.
            guard let status = try directory.status(DeviceLayout.events) else { return Contents(events: [], tornLines: []) }
            key = EventLogCache.Key(status)
            if let cached = cache.contents(for: key) { return cached }
            guard let read = try directory.read(DeviceLayout.events, limit: EventLog.limit) else {
                return Contents(events: [], tornLines: [])
            }
            bytes = read
        } catch {
            throw DeviceError.malformedFile(path: path, reason: "cannot be read: \(error.phrase)")
        }
        var events: [DeviceEvent] = []
        var torn: [Int] = []
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            // Ended by a later append (RS, newline): torn unless the cut fell just before the newline.
            let ended = line.last == EventLog.tornTerminator[0]
            guard let event = EventLineParser.event(ended ? line.dropLast() : line) else {
                // The final line has no newline: an append cut short. Anything else is a malformed log.
                guard ended || index == lines.count - 1 else {
                    throw DeviceError.malformedFile(path: path, reason: "line \(index + 1) is not an event")
                }
                torn.append(index + 1)
                continue
            }
            events.append(event)
        }
        let endsTorn = torn.last == lines.count
        // Each time read once (not once a comparison).
        let times = events.map { Timestamp.parse($0.time) ?? .distantPast }
        let sorted = events.indices.sorted { a, b in times[a] != times[b] ? times[a] < times[b] : a < b }.map { events[$0] }
        let contents = Contents(events: sorted, tornLines: torn, endsTorn: endsTorn)
        cache.store(contents, for: key)
        return contents
    }

    /// The warning for a torn final line (nil when the log ends with a whole line), naming the log and the
    /// line. Torn lines a later append ended were warned about then, and are skipped silently.
    public static func tornWarning(_ contents: Contents, path: String) -> String? {
        guard contents.endsTorn, let line = contents.tornLines.last else { return nil }
        return "\(path): line \(line) was cut short by an interrupted write (a crash while logging) and is "
            + "ignored; the next event starts a new line"
    }
}
