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
            positionals: [paths], options: [jsonOption],
            discussion: """
                Reasons: apple-exclude-xattr, ios-mobilebackup-xattr, xdg-robots-backup, nodump, ios-app-bundle,
                ios-caches, ios-tmp, device-local, cachedir-tag, and excluded-ancestor (a parent directory is
                skipped, so a backup never reaches the path). iOS rules apply inside a device root.
                Exit status 0 whatever the answer; 1 when a path does not exist.
                Example: devicectl exclude check /tmp/phone/Containers/Data/Application/*/Library/Caches
                """)

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            var verdicts: [ExclusionVerdict] = []
            var failed = false
            var warned: Set<String> = []
            for path in arguments.positionals {
                do {
                    if path.isEmpty { throw SystemError("stat", path: "''", code: ENOENT) }
                    let verdict = try ExclusionCheck.check(path)
                    if verdict.deviceRoot == nil, let root = identitylessDevice(above: verdict.absolutePath),
                        warned.insert(root).inserted
                    {
                        context.console.warn(DeviceError.identityMissing(root).description + "; no iOS rules apply")
                    }
                    verdicts.append(verdict)
                    if !arguments.flag("--json") { context.console.out(text(verdict)) }
                } catch {
                    failed = true
                    context.console.err("devicectl: \(message(for: error, path: path))")
                }
            }
            if arguments.flag("--json") {
                context.console.json(["paths": verdicts.map(json)])
            }
            return failed ? 1 : 0
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

        /// `PATH: excluded (nodump, ios-caches)`, `PATH: excluded (excluded-ancestor: /x [ios-caches])`,
        /// `PATH: included`.
        static func text(_ verdict: ExclusionVerdict) -> String {
            guard verdict.excluded else { return "\(verdict.path): included" }
            let reasons = verdict.reasons.map { reason -> String in
                guard reason == .excludedAncestor, let ancestor = verdict.ancestor else { return reason.rawValue }
                return "excluded-ancestor: \(ancestor.path) [\(ancestor.reasons.map(\.rawValue).joined(separator: ", "))]"
            }
            return "\(verdict.path): excluded (\(reasons.joined(separator: ", ")))"
        }

        static func json(_ verdict: ExclusionVerdict) -> [String: Any] {
            var object: [String: Any] = [
                "path": verdict.path, "absolutePath": verdict.absolutePath, "excluded": verdict.excluded,
                "reasons": verdict.reasons.map(\.rawValue),
                "deviceRoot": verdict.deviceRoot as Any? ?? NSNull(),
            ]
            if let ancestor = verdict.ancestor {
                object["ancestor"] = ["path": ancestor.path, "reasons": ancestor.reasons.map(\.rawValue)]
            } else {
                object["ancestor"] = NSNull()
            }
            return object
        }
    }
}
