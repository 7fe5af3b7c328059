// JSONOutput: the one encoder every `--json` line goes through (docs/JSON.md describes what it writes).
import DeviceKit
import Foundation

/// How devicectl writes JSON: sorted keys (stable output), slashes unescaped, dates as ISO-8601 UTC.
enum JSONOutput {
    /// `value` as one line of JSON text (no newline). Encoding devicectl's own types cannot fail but for a
    /// non-finite number; that case yields an error object rather than a half-written line.
    static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            return #"{"command":null,"exitStatus":1,"message":"internal error: a result could not be written as "#
                + #"JSON","path":null,"type":"error"}"#
        }
    }
}
