// Manifest+JSONLine: the header, totals and members lines written by `JSONText`, byte for byte what JSONEncoder wrote.
import SystemKit

extension Manifest.Header {
    /// The header line, without its newline. Throws for a widget delay that is not a finite number (JSON has none;
    /// JSONEncoder threw too).
    func jsonLine() throws(BackupError) -> [UInt8] {
        for app in apps {
            if let delay = app.widget?.delaySeconds, !delay.isFinite {
                throw .output("\(app.bundleId)'s widget delay (\(delay)) cannot be written as JSON")
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(512)
        var fields: [(key: String, value: (inout [UInt8]) -> Void)] = [
            ("apps", { out in JSONText.appendArray(apps, to: &out) { $0.append(to: &$1) } }),
            ("created", { JSONText.appendString(created, to: &$0) }),
            ("format", { JSONText.appendString(format, to: &$0) }),
            ("formatVersion", { JSONText.appendNumber(formatVersion, to: &$0) }),
            ("groups", { out in JSONText.appendArray(groups, to: &out) { JSONText.appendString($0, to: &$1) } }),
            ("kind", { JSONText.appendString(kind, to: &$0) }),
            ("source", { out in
                JSONText.appendObject([("udid", { out in
                    if let udid = source.udid { JSONText.appendString(udid, to: &out) } else { JSONText.appendNull(to: &out) }
                })], to: &out)
            }),
            ("tool", { JSONText.appendString(tool, to: &$0) }),
            ("widgets", { out in
                JSONText.appendArray(widgets, to: &out) { widget, out in
                    JSONText.appendObject([("app", { JSONText.appendString(widget.app, to: &$0) })], to: &out)
                }
            }),
        ]
        // Absent, not null, when the header has none (synthesized Codable's `encodeIfPresent`).
        if let engine { fields.append(("engine", { JSONText.appendString(engine.rawValue, to: &$0) })) }
        JSONText.appendObject(fields, to: &out)
        return out
    }
}

extension Manifest.App {
    /// `widget` and a nil one as `null` (Manifest+NullEncoding).
    fileprivate func append(to out: inout [UInt8]) {
        JSONText.appendObject([
            ("bundleId", { JSONText.appendString(bundleId, to: &$0) }),
            ("groups", { out in JSONText.appendArray(groups, to: &out) { JSONText.appendString($0, to: &$1) } }),
            ("name", { JSONText.appendString(name, to: &$0) }),
            ("widget", { out in if let widget { widget.append(to: &out) } else { JSONText.appendNull(to: &out) } }),
        ], to: &out)
    }
}

extension Manifest.WidgetSettings {
    /// A finite `delaySeconds` (the header checks).
    fileprivate func append(to out: inout [UInt8]) {
        JSONText.appendObject([
            ("body", { JSONText.appendString(body, to: &$0) }),
            ("delaySeconds", { _ = JSONText.appendNumber(delaySeconds, to: &$0) }),
            ("flagKey", { JSONText.appendString(flagKey, to: &$0) }),
            ("markerFileName", { JSONText.appendString(markerFileName, to: &$0) }),
            ("policy", { JSONText.appendString(policy.rawValue, to: &$0) }),
            ("title", { JSONText.appendString(title, to: &$0) }),
        ], to: &out)
    }
}

extension Manifest.Count {
    fileprivate func append(to out: inout [UInt8]) {
        JSONText.appendObject([
            ("bytes", { JSONText.appendNumber(bytes, to: &$0) }), ("files", { JSONText.appendNumber(files, to: &$0) }),
        ], to: &out)
    }
}

extension Manifest.Totals {
    /// The totals line, without its newline.
    func jsonLine() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONText.appendObject([
            ("bytes", { JSONText.appendNumber(bytes, to: &$0) }),
            ("directories", { JSONText.appendNumber(directories, to: &$0) }),
            ("excluded", { out in
                JSONText.appendObject([
                    ("byReason", { out in
                        JSONText.appendObject(
                            excluded.byReason.map { reason, count in (reason, { count.append(to: &$0) }) }, to: &out)
                    }),
                    ("bytes", { JSONText.appendNumber(excluded.bytes, to: &$0) }),
                    ("files", { JSONText.appendNumber(excluded.files, to: &$0) }),
                ], to: &out)
            }),
            ("files", { JSONText.appendNumber(files, to: &$0) }),
            ("hardlinks", { JSONText.appendNumber(hardlinks, to: &$0) }),
            ("kind", { JSONText.appendString(kind, to: &$0) }),
            ("symlinks", { JSONText.appendNumber(symlinks, to: &$0) }),
        ], to: &out)
        return out
    }
}

extension Manifest.Members {
    /// The members line, without its newline.
    func jsonLine() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(192)
        JSONText.appendObject([
            ("count", { JSONText.appendNumber(count, to: &$0) }),
            ("kind", { JSONText.appendString(kind, to: &$0) }),
            ("manifestSha256", { JSONText.appendString(manifestSha256, to: &$0) }),
            ("sha256", { JSONText.appendString(sha256, to: &$0) }),
        ], to: &out)
        return out
    }
}
