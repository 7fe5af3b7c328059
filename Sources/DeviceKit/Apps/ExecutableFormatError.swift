// ExecutableFormatError: why an app's executable is not a Mach-O file devicectl can read entitlements from.

/// An app executable that is not a well-formed Mach-O file (thin 64-bit or fat), in the user's terms: what in
/// the file is wrong (an offset past its end, a count too large, ...). The caller names the file.
struct ExecutableFormatError: Error, CustomStringConvertible, Sendable {
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    var description: String { reason }
}
