// Manifest+Validation: the header of a manifest read from an archive (hostile) checked as a whole before
// a restore uses any of it, with DeviceKit's validators, the same that `devicectl install` applies to its options.
import DeviceKit

extension Manifest.Header {
    /// Apps a header may list. A restore reinstalls each one (four containers and an Info.plist): 1,000 is
    /// far beyond any real phone's widget-carrying apps and restores in about a second.
    public static let maxApps = 1000
    /// App Groups a header may list: every app its own group plus shared ones.
    public static let maxGroups = 2 * maxApps
    /// The `tool` and `created` strings (shown by `list`).
    public static let maxToolBytes = 256
    public static let maxCreatedBytes = 64
    /// A source UDID (devicectl's are UUIDs, 36 bytes).
    public static let maxUDIDBytes = 64

    /// Checks every value the header holds, as a restore and verify read it (`ManifestCheck`):
    /// `tool`, `created` (an ISO-8601 time), `source.udid`, each app (`AppInstallation.validate`: bundle
    /// id, name, groups, widget settings) with no bundle id twice, `groups` (identifiers, no duplicates,
    /// exactly the groups the apps belong to, as a backup writes it) and `widgets` (each naming a listed app
    /// that has a widget, none twice), and the caps on apps and groups. Throws the first problem, naming the
    /// field (`apps[3].widget.markerFileName`) and the value.
    public func validate() throws(DeviceValueError) {
        try DeviceValue.text(tool, field: "tool", maxBytes: Manifest.Header.maxToolBytes)
        if created.utf8.count > Manifest.Header.maxCreatedBytes || !Manifest.Header.isTimestamp(created) {
            throw DeviceValueError(field: "created", value: created, problem: .notTimestamp)
        }
        if let udid = source.udid {
            try DeviceValue.identifier(udid, field: "source.udid", maxBytes: Manifest.Header.maxUDIDBytes)
        }
        try DeviceValue.count(apps.count, field: "apps", limit: Manifest.Header.maxApps)
        try DeviceValue.count(widgets.count, field: "widgets", limit: Manifest.Header.maxApps)
        var appIndex: [String: Int] = [:]
        for (index, app) in apps.enumerated() {
            let field = "apps[\(index)]."
            do {
                try DeviceValue.appName(app.name, field: "name")
                try app.installation.validate()
            } catch {
                throw error.within(field)
            }
            if let first = appIndex[app.bundleId] {
                throw DeviceValueError(
                    field: field + "bundleId", value: app.bundleId, problem: .duplicate(first: "apps[\(first)]"))
            }
            appIndex[app.bundleId] = index
        }
        try AppInstallation.validate(groups: groups, field: "groups", limit: Manifest.Header.maxGroups)
        let listed = Set(groups)
        var used = Set<String>()
        for (index, app) in apps.enumerated() {
            for (position, group) in app.groups.enumerated() {
                guard listed.contains(group) else {
                    throw DeviceValueError(
                        field: "apps[\(index)].groups[\(position)]", value: group,
                        problem: .unlisted("the header's groups"))
                }
                used.insert(group)
            }
        }
        if let index = groups.firstIndex(where: { !used.contains($0) }) {
            throw DeviceValueError(
                field: "groups[\(index)]", value: groups[index], problem: .unlisted("the groups of the header's apps"))
        }
        var placed: [String: Int] = [:]
        for (index, widget) in widgets.enumerated() {
            let field = "widgets[\(index)].app"
            try DeviceValue.bundleIdentifier(widget.app, field: field)
            guard let app = appIndex[widget.app], apps[app].widget != nil else {
                throw DeviceValueError(
                    field: field, value: widget.app, problem: .unlisted("the header's apps with a widget"))
            }
            if let first = placed[widget.app] {
                throw DeviceValueError(
                    field: field, value: widget.app, problem: .duplicate(first: "widgets[\(first)]"))
            }
            placed[widget.app] = index
        }
    }

    /// Whether `text` is a UTC time as backups write it (`Timestamp.format`): `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction of 1 to 9 digits, `Z`; each field in range (the day for its month). Checked by hand, not with
    /// Foundation's ISO 8601 parser, which loads ICU's time zone data into every restore and verify.
    static func isTimestamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), hour < 24, minute < 60, second < 61
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        let fraction = 19..<(bytes.count - 1)
        if fraction.isEmpty { return true }
        return bytes[19] == UInt8(ascii: ".") && (2...10).contains(fraction.count)
            && number(20..<(bytes.count - 1)) != nil
    }
}

extension Manifest.App {
    /// The install request that reinstalls this app.
    public var installation: AppInstallation {
        AppInstallation(bundleId: bundleId, name: name, groups: groups, widget: widget?.settings)
    }
}
