// DeviceValue: the checks every value from outside passes before it is used: a CLI option, a backup
// manifest's header and a device root's plists (all three hostile) go through the same rules.

/// Validators for the values that describe apps and their widgets, and the limits they enforce. Each
/// returns the value unchanged or throws a `DeviceValueError` naming `field`.
public enum DeviceValue {
    /// An App Group or container identifier: a file-name component's limit.
    public static let maxIdentifierBytes = 255
    /// A bundle id leaves room for its widget extension's identifier, `<bundle id>.NudgeWidget`.
    public static let maxBundleIdBytes = maxIdentifierBytes - widgetExtensionSuffix.utf8.count
    /// An app name becomes the directory `<name>.app`, which must fit a file-name component.
    public static let maxAppNameBytes = 255 - ".app".utf8.count
    /// A file name (the marker): one component.
    public static let maxFileNameBytes = 255
    /// A shared-defaults key.
    public static let maxFlagKeyBytes = 255
    /// A notification's title.
    public static let maxTitleBytes = 1024
    /// A notification's body.
    public static let maxBodyBytes = 4096
    /// The nudge delay's upper bound: one year (beyond it a nudge is pointless, and a date stays exact).
    public static let maxDelaySeconds: Double = 366 * 86_400
    /// App Groups one app may belong to.
    public static let maxGroupsPerApp = 32

    static let widgetExtensionSuffix = ".NudgeWidget"

    /// A bundle, App Group or container identifier: letters, digits, `-`, `_` and `.`, not `.` or `..`,
    /// at most `maxBytes` bytes.
    @discardableResult
    public static func identifier(
        _ value: String, field: String, maxBytes: Int = maxIdentifierBytes
    ) throws(DeviceValueError) -> String {
        try length(value, field: field, limit: maxBytes)
        for byte in value.utf8 where !isIdentifierByte(byte) {
            throw DeviceValueError(field: field, value: value, problem: .notIdentifier(shown(byte, in: value)))
        }
        if value == "." || value == ".." { throw DeviceValueError(field: field, value: value, problem: .dotName) }
        return value
    }

    /// A bundle id: an identifier short enough for its widget extension's identifier.
    @discardableResult
    public static func bundleIdentifier(_ value: String, field: String) throws(DeviceValueError) -> String {
        try identifier(value, field: field, maxBytes: maxBundleIdBytes)
    }

    /// An app's display name, the directory `<name>.app`: a file name of at most `maxAppNameBytes` bytes.
    @discardableResult
    public static func appName(_ value: String, field: String) throws(DeviceValueError) -> String {
        try name(value, field: field, limit: maxAppNameBytes, kind: "an app name")
    }

    /// A file name (one path component): not empty, `.` or `..`; no `/`, NUL or control character.
    @discardableResult
    public static func fileName(_ value: String, field: String) throws(DeviceValueError) -> String {
        try name(value, field: field, limit: maxFileNameBytes, kind: "a file name")
    }

    /// A shared-defaults key: not empty, at most `maxFlagKeyBytes` bytes, no control character.
    @discardableResult
    public static func flagKey(_ value: String, field: String) throws(DeviceValueError) -> String {
        try length(value, field: field, limit: maxFlagKeyBytes)
        try noControls(value, field: field, kind: "a key", allowing: [])
        return value
    }

    /// A text shown to the user (a title, a body): not empty, at most `maxBytes` bytes, no control
    /// character other than a newline or a tab.
    @discardableResult
    public static func text(_ value: String, field: String, maxBytes: Int) throws(DeviceValueError) -> String {
        try length(value, field: field, limit: maxBytes)
        try noControls(value, field: field, kind: "a text", allowing: ["\n", "\t"])
        return value
    }

    /// A delay in seconds: finite, from 0 to `maxDelaySeconds`.
    @discardableResult
    public static func delay(_ seconds: Double, field: String) throws(DeviceValueError) -> Double {
        guard seconds.isFinite else {
            throw DeviceValueError(field: field, displayValue: "\(seconds)", problem: .notFinite)
        }
        guard seconds >= 0, seconds <= maxDelaySeconds else {
            throw DeviceValueError(
                field: field, displayValue: DeviceValueError.number(seconds),
                problem: .outOfRange(min: 0, max: maxDelaySeconds, unit: "seconds"))
        }
        return seconds
    }

    /// At most `limit` entries in `count`.
    public static func count(_ count: Int, field: String, limit: Int) throws(DeviceValueError) {
        guard count <= limit else {
            throw DeviceValueError(
                field: field, displayValue: "\(count)", problem: .tooMany(count: count, limit: limit))
        }
    }

    // MARK: - Rules

    /// C0 controls (NUL included), DEL and the C1 controls.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    private static func length(_ value: String, field: String, limit: Int) throws(DeviceValueError) {
        if value.isEmpty { throw DeviceValueError(field: field, value: value, problem: .empty) }
        let bytes = value.utf8.count
        guard bytes <= limit else {
            throw DeviceValueError(field: field, value: value, problem: .tooLong(bytes: bytes, limit: limit))
        }
    }

    private static func name(
        _ value: String, field: String, limit: Int, kind: String
    ) throws(DeviceValueError) -> String {
        try length(value, field: field, limit: limit)
        if value == "." || value == ".." { throw DeviceValueError(field: field, value: value, problem: .dotName) }
        if value.utf8.contains(UInt8(ascii: "/")) {
            throw DeviceValueError(field: field, value: value, problem: .forbidden("'/'", kind: kind))
        }
        try noControls(value, field: field, kind: kind, allowing: [])
        return value
    }

    private static func noControls(
        _ value: String, field: String, kind: String, allowing allowed: Set<Unicode.Scalar>
    ) throws(DeviceValueError) {
        for scalar in value.unicodeScalars where isControl(scalar) && !allowed.contains(scalar) {
            let what = scalar.value == 0 ? "a NUL character" : "the control character \(codePoint(scalar))"
            throw DeviceValueError(field: field, value: value, problem: .forbidden(what, kind: kind))
        }
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The first character of `value` holding `byte`, for a message: `'/'`, or a code point when unprintable.
    private static func shown(_ byte: UInt8, in value: String) -> String {
        guard let scalar = value.unicodeScalars.first(where: { $0.utf8.contains(byte) }) else { return "a byte" }
        if isControl(scalar) || scalar.value >= 0x80 { return codePoint(scalar) }
        return "'\(Character(scalar))'"
    }
}
