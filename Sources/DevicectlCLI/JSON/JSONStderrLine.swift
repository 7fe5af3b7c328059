// JSONStderrLine: one line on stderr under --json: a warning, a notice or the error that ends the command.

/// What devicectl writes on stderr under `--json`, one object per line, so that stderr stays machine-readable:
/// `warning` (also listed in the result's `warnings`), `notice` (e.g. waiting for the device lock) and `error`
/// (the failure that ends the command, with its exit status). Progress lines have keys of their own
/// (`JSONProgressLine`).
struct JSONStderrLine: Codable, Equatable, Sendable {
    enum Kind: String, Codable, Sendable {
        case warning, notice, error
    }

    var type: Kind
    /// The command's name (`backup`, `exclude check`); nil (null) when none was recognised.
    @OrNull var command: String?
    @OrNull var path: String?
    var message: String
    /// The process's exit status, on the `error` line; nil (null) on the others.
    @OrNull var exitStatus: Int32?
}
