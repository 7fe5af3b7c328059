// DeviceEvent+JSONLine: an event as the log holds it, written by `JSONText`: what JSONEncoder wrote, byte for byte.
import SystemKit

extension DeviceEvent {
    /// The log line, without its newline: `{"app":…,"details":{…},"time":…,"type":…}`, keys sorted, `app` absent when
    /// nil (as synthesized Codable's `encodeIfPresent` leaves it).
    var jsonLine: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        var fields: [(key: String, value: (inout [UInt8]) -> Void)] = [
            ("details", { out in
                JSONText.appendObject(details.map { key, value in (key, { JSONText.appendString(value, to: &$0) }) }, to: &out)
            }),
            ("time", { JSONText.appendString(time, to: &$0) }),
            ("type", { JSONText.appendString(type, to: &$0) }),
        ]
        if let app { fields.append(("app", { JSONText.appendString(app, to: &$0) })) }
        JSONText.appendObject(fields, to: &out)
        return out
    }
}
