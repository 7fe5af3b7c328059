// CompletionValue: what a shell offers for one argument or option value, read off its metavariable.

/// What to complete for a value named `ROOT`, `ARCHIVE`, `none|gzip|zstd|xz`, `BUNDLE_ID`...
enum CompletionValue: Equatable {
    /// A file or directory name (ROOT, ARCHIVE, PATH, FILE, DIR).
    case path
    /// One of fixed words (a metavariable spelled `a|b|c`).
    case choice([String])
    /// Free text the shell cannot guess (an id, a time, a number).
    case text

    /// Metavariables that name something on disk.
    static let pathNames: Set<String> = ["ROOT", "ARCHIVE", "PATH", "FILE", "DIR"]

    init(metavariable: String) {
        if Self.pathNames.contains(metavariable) {
            self = .path
        } else if metavariable.contains("|") {
            self = .choice(metavariable.split(separator: "|").map(String.init))
        } else {
            self = .text
        }
    }
}
