// Devicectl: runs the built binary for the scenarios, at a pinned time, and decodes its JSON.
import Foundation
import TestSupport
import Testing

enum Devicectl {
    /// Runs `devicectl arguments...` with DEVICECTL_NOW set to `now` (every command takes its time from it,
    /// including backup and restore, which have no --now).
    @discardableResult
    static func run(_ arguments: [String], at now: Date, input: Data? = nil) throws -> RunResult {
        try DevicectlBinary.run(arguments, input: input, environment: ["DEVICECTL_NOW": Clock.iso(now)])
    }

    /// Runs a command that must succeed (exit 0); a failure stops the scenario, naming the command.
    @discardableResult
    static func succeed(_ arguments: [String], at now: Date, input: Data? = nil) throws -> RunResult {
        try DevicectlBinary.succeed(arguments, input: input, environment: ["DEVICECTL_NOW": Clock.iso(now)])
    }

    /// Runs `arguments + --json`, which must succeed, and decodes the one JSON object it prints.
    static func json<T: Decodable>(_ type: T.Type, _ arguments: [String], at now: Date) throws -> T {
        let result = try succeed(arguments + ["--json"], at: now)
        do {
            return try JSONDecoder().decode(T.self, from: result.stdoutData)
        } catch {
            Issue.record("devicectl \(arguments.joined(separator: " ")) --json: \(error)\n\(result.stdout)")
            throw error
        }
    }
}
