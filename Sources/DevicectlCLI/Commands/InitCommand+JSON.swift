// InitCommand+JSON: `init --json` (docs/JSON.md).

extension InitCommand {
    /// `init --json` and `init --repair --json`.
    struct Result: Encodable {
        var root: String
        var udid: String
        /// Whether `--repair` gave an existing device root a new identity.
        var repaired: Bool
    }

    /// `init --adopt --json`: the device made of a data directory, and the apps found in it.
    struct AdoptResult: Encodable {
        var root: String
        var udid: String
        /// The bundle ids of the apps found (bundle container with a data container), sorted.
        var adopted: [String]
    }
}
