// InitCommand+JSON: `init --json` (docs/JSON.md).

extension InitCommand {
    /// `init --json` and `init --repair --json`.
    struct Result: Encodable {
        var root: String
        var udid: String
        /// Whether `--repair` gave an existing device root a new identity.
        var repaired: Bool
    }
}
