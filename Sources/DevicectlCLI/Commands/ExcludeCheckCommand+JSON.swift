// ExcludeCheckCommand+JSON: `exclude check --json` (docs/JSON.md).
import BackupKit

extension ExcludeCommand.Check {
    /// `exclude check --json`: every path checked, and every path that could not be (exit 1 then).
    struct Result: Encodable {
        var paths: [Verdict]
        /// The paths that could not be checked, each with why.
        var errors: [JSONMessage]
    }

    /// One engine's answer, under `engines`.
    struct EngineAnswer: Encodable {
        var excluded: Bool
        var reasons: [String]
    }

    /// One path's answer: the engine given (`--engine`), else the default engine's (icloud), with every engine's
    /// answer under `engines` (null with `--engine`).
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
        var engine: String
        @OrNull var engines: [String: EngineAnswer]?

        init(_ verdicts: [ExclusionVerdict], engineGiven: Bool) {
            let verdict = verdicts.first { engineGiven || $0.engine == .default } ?? verdicts[0]
            engine = verdict.engine.rawValue
            if !engineGiven {
                engines = Dictionary(
                    uniqueKeysWithValues: verdicts.map {
                        ($0.engine.rawValue, EngineAnswer(excluded: $0.excluded, reasons: $0.reasons.map(\.rawValue)))
                    })
            }
            path = verdict.path
            absolutePath = verdict.absolutePath
            excluded = verdict.excluded
            reasons = verdict.reasons.map(\.rawValue)
            deviceRoot = verdict.deviceRoot
            ancestor = verdict.ancestor.map { Ancestor(path: $0.path, reasons: $0.reasons.map(\.rawValue)) }
        }
    }
}
