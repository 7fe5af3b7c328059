// ExcludeCheckCommand: `devicectl exclude check`, like `tmutil isexcluded`, sharing BackupKit's rules.
import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit

extension ExcludeCommand {
    enum Check: Command {
        static let spec = CommandSpec(
            name: "exclude check", summary: "Tell whether a backup would skip each path, with every reason.",
            positionals: [paths], options: [BackupCommand.engineOption, jsonOption],
            discussion: """
                Reasons: apple-exclude-xattr, ios-mobilebackup-xattr, apple-cloud-exclude-xattr (icloud only),
                apple-unencrypted-exclude-xattr (computer only), xdg-robots-backup, nodump, ios-app-bundle,
                ios-caches, ios-tmp, ios-systemdata, device-local, cachedir-tag, and excluded-ancestor (a parent
                directory is skipped, so a backup never reaches the path). iOS rules apply inside a device root.
                Without --engine each path is judged under every engine (one answer when they agree); the JSON's
                top-level answer is then the default engine's (icloud) and "engines" holds each.
                Exit status 0 whatever the answer; 1 when a path does not exist.
                Example: devicectl exclude check /tmp/phone/Containers/Data/Application/*/Library/Caches
                """)

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            let engine = try BackupCommand.engine(arguments)
            let engines = engine.map { [$0] } ?? AppleBackupEngine.allCases
            var verdicts: [[ExclusionVerdict]] = []
            var errors: [JSONMessage] = []
            var warned: Set<String> = []
            for path in arguments.positionals {
                do {
                    if path.isEmpty { throw SystemError("stat", path: "''", code: ENOENT) }
                    let perEngine = try engines.map { try ExcludeCommand.check(path, context, engine: $0) }
                    let verdict = perEngine[0]
                    if verdict.deviceRoot == nil, let root = identitylessDevice(above: verdict.absolutePath),
                        warned.insert(root).inserted
                    {
                        context.console.warn(Device.missingIdentity(at: root).description + "; no iOS rules apply")
                    }
                    verdicts.append(perEngine)
                    if !arguments.flag("--json") { context.console.out(text(perEngine)) }
                } catch {
                    let text = message(for: error, path: path)
                    errors.append(JSONMessage(path: path, text))
                    if !arguments.flag("--json") { context.console.err("devicectl: \(text)") }
                }
            }
            if arguments.flag("--json") {
                context.console.result(
                    Result(paths: verdicts.map { Verdict($0, engineGiven: engine != nil) }, errors: errors))
                if !errors.isEmpty {
                    let count = errors.count == 1 ? "1 path" : "\(errors.count) paths"
                    context.console.failure("\(count) could not be checked (see errors)", exitStatus: 1)
                }
            }
            return errors.isEmpty ? 0 : 1
        }

        /// The nearest directory at or above `absolutePath` laid out like a device but without its identity.
        static func identitylessDevice(above absolutePath: String) -> String? {
            var current = absolutePath
            while current != "/" && !current.isEmpty {
                if Device.lacksIdentity(at: current) { return current }
                current = RootPath.parent(of: current)
            }
            return nil
        }

        /// One path's answer under one or more engines. Engines that agree share one answer: `PATH: excluded
        /// (nodump, ios-caches)`, `PATH: excluded (excluded-ancestor: /x [ios-caches])`, `PATH: included`; engines
        /// that differ are named: `PATH: excluded from icloud (apple-cloud-exclude-xattr); included in computer,
        /// computer-encrypted, quick-start`.
        static func text(_ verdicts: [ExclusionVerdict]) -> String {
            let path = verdicts[0].path
            var groups: [(answer: String, engines: [AppleBackupEngine])] = []
            for verdict in verdicts {
                let answer = self.answer(verdict)
                if let index = groups.firstIndex(where: { $0.answer == answer }) {
                    groups[index].engines.append(verdict.engine)
                } else {
                    groups.append((answer, [verdict.engine]))
                }
            }
            if groups.count == 1 {
                return "\(path): " + (groups[0].answer.isEmpty ? "included" : "excluded (\(groups[0].answer))")
            }
            let parts = groups.map { group in
                let names = group.engines.map(\.rawValue).joined(separator: ", ")
                return group.answer.isEmpty ? "included in \(names)" : "excluded from \(names) (\(group.answer))"
            }
            return "\(path): " + parts.joined(separator: "; ")
        }

        /// The reasons as text (empty: included).
        private static func answer(_ verdict: ExclusionVerdict) -> String {
            verdict.reasons.map { reason -> String in
                guard reason == .excludedAncestor, let ancestor = verdict.ancestor else { return reason.rawValue }
                let reasons = ancestor.reasons.map(\.rawValue).joined(separator: ", ")
                return "excluded-ancestor: \(ancestor.path) [\(reasons)]"
            }.joined(separator: ", ")
        }
    }
}
