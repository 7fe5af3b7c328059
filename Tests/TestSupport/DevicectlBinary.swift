// DevicectlBinary: finds and runs the built devicectl executable for end-to-end tests.
import Foundation
import Testing

public enum DevicectlBinary {
    /// The built binary: $DEVICECTL_BIN if set, else `devicectl` beside the test bundle in .build.
    public static var path: String {
        if let override = ProcessInfo.processInfo.environment["DEVICECTL_BIN"] { return override }
        var url = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        while url.path != "/" {
            let candidate = url.deletingLastPathComponent().appendingPathComponent("devicectl")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            url = url.deletingLastPathComponent()
        }
        // Fall back to the package layout: Tests/TestSupport/ -> .build/debug/devicectl.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.appendingPathComponent(".build/debug/devicectl").path
    }

    /// Runs `devicectl arguments...`.
    @discardableResult
    public static func run(
        _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil
    ) throws -> RunResult {
        try Shell.run(path, arguments, input: input, environment: environment)
    }

    /// Runs `devicectl arguments...`, which must succeed (exit 0): a failure stops the test, naming the command.
    @discardableResult
    public static func succeed(
        _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try run(arguments, input: input, environment: environment)
        try #require(
            result.status == 0, "devicectl \(arguments.joined(separator: " ")): \(result.stderr)",
            sourceLocation: sourceLocation)
        return result
    }
}
