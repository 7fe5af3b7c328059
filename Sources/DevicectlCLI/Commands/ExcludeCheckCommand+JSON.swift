// ExcludeCheckCommand+JSON: `exclude check --json` (docs/JSON.md).
import BackupKit

extension ExcludeCommand.Check {
    /// `exclude check --json`: every path checked, and every path that could not be (exit 1 then).
    struct Result: Encodable {
        var paths: [Verdict]
        /// The paths that could not be checked, each with why.
        var errors: [JSONMessage]
    }

    /// One path's answer.
    struct Verdict: Encodable {
        /// The skipped directory above the path that keeps a backup from reaching it.
        struct Ancestor: Encodable {
            var path: String
            var reasons: [String]
        }

        var path: String
        var absolutePath: String
        var excluded: Bool
        var reasons: [String]
        @OrNull var deviceRoot: String?
        @OrNull var ancestor: Ancestor?

        init(_ verdict: ExclusionVerdict) {
            path = verdict.path
            absolutePath = verdict.absolutePath
            excluded = verdict.excluded
            reasons = verdict.reasons.map(\.rawValue)
            deviceRoot = verdict.deviceRoot
            ancestor = verdict.ancestor.map { Ancestor(path: $0.path, reasons: $0.reasons.map(\.rawValue)) }
        }
    }
}
