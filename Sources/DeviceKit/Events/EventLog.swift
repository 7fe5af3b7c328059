// EventLog: the device-local, append-only event log (`DeviceLocal/events.jsonl`).
import Foundation
import Glibc
import SystemKit

/// Appends events as JSON lines and reads them back oldest first. Device-local: never backed up.
public struct EventLog: Sendable {
    /// The largest log read whole (about a million events).
    public static let limit = 256 << 20
    let directory: ContainedRoot

    public init(device: Device) {
        directory = device.directory
    }

    /// The log's absolute path, for messages.
    public var path: String { directory.display(DeviceLayout.events) }

    /// Appends `event` with one `write(2)` on an `O_APPEND` descriptor, fsynced.
    public func append(_ event: DeviceEvent) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = Array(try encoder.encode(event))
        line.append(UInt8(ascii: "\n"))
        let file = try directory.openRegular(DeviceLayout.events, flags: O_WRONLY | O_APPEND | O_CREAT, mode: 0o644)
        try file.write(line)
        try file.sync()
        try file.close()
    }

    /// Every event, oldest first (stable by time; equal times keep log order).
    public func events() throws -> [DeviceEvent] {
        let bytes: [UInt8]
        do {
            guard let read = try directory.read(DeviceLayout.events, limit: EventLog.limit) else { return [] }
            bytes = read
        } catch {
            throw DeviceError.malformedFile(path: path, reason: "cannot be read: \(error.reason)")
        }
        let decoder = JSONDecoder()
        var events: [DeviceEvent] = []
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() where !line.isEmpty {
            do {
                events.append(try decoder.decode(DeviceEvent.self, from: Data(line)))
            } catch {
                throw DeviceError.malformedFile(path: path, reason: "line \(number + 1) is not an event")
            }
        }
        return events.enumerated().sorted { a, b in
            let (ta, tb) = (Timestamp.parse(a.element.time) ?? .distantPast, Timestamp.parse(b.element.time) ?? .distantPast)
            return ta != tb ? ta < tb : a.offset < b.offset
        }.map(\.element)
    }
}
