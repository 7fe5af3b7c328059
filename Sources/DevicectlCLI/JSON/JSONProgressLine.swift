// JSONProgressLine: a progress line on stderr under --json (docs/JSON.md, "ProgressLine"), as restic's `status`.

/// The counts of the work done so far, written on stderr at most ten times a second while a backup, restore or
/// verify runs with `--json` on a terminal or with `--progress`; stdout keeps its one result object.
struct JSONProgressLine: Encodable {
    var type = "progress"
    @OrNull var command: String?
    var files: UInt64
    var bytes: UInt64
    /// The input's size in bytes when it is known (an archive file being read); null otherwise.
    @OrNull var total: UInt64?
    /// The share done, 0 to 100, when known.
    @OrNull var percent: Double?
    /// The time left, from the rate so far, once 1% is done.
    @OrNull var secondsRemaining: Double?
    /// Seconds since the work started.
    var seconds: Double
}
