// MobileSyncError: why a MobileSync piece could not be written, keeping the message and the cause apart.

/// A failure of the MobileSync layer. Each case names the file and the library call; SQLite's own text is kept
/// as the cause.
public enum MobileSyncError: Error, CustomStringConvertible, Sendable {
    /// SQLite failed: `operation` (e.g. `sqlite3_step`), the database's path, SQLite's extended result code and
    /// its message.
    case database(path: String, operation: String, code: Int32, message: String)
    /// A libcrypto call failed (random bytes, a key derivation or a key wrap).
    case crypto(call: String)

    public var description: String {
        switch self {
        case .database(let path, _, _, let message):
            "cannot write \(path): \(message)"
        case .crypto(let call):
            "the cryptographic library failed (\(call))"
        }
    }
}
