// ChildProcess: a devicectl (or any program) started in the background, to be signalled, killed or timed
// out by a fault or end-to-end test. Output goes to files so a chatty child never blocks.
import Foundation
import Glibc

/// A running child process with its stdout and stderr captured in files.
public final class ChildProcess {
    private let process = Process()
    private let scratch: String
    private let outFile: FileHandle
    private let errFile: FileHandle

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Starts `executable arguments...` (an absolute path, or a name looked up in PATH). Its stdin is the file
    /// `stdin`, else `input` (e.g. a pipe's reading end), else /dev/null.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
        input: FileHandle? = nil
    ) throws {
        scratch = try makeTemporaryDirectory()
        _ = FileManager.default.createFile(atPath: scratch + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: scratch + "/err", contents: nil)
        outFile = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch + "/out"))
        errFile = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch + "/err"))
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = outFile
        process.standardError = errFile
        process.standardInput =
            try stdin.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) } ?? input ?? FileHandle.nullDevice
        try process.run()
    }

    /// Starts the built devicectl.
    public static func devicectl(
        _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, input: FileHandle? = nil
    ) throws -> ChildProcess {
        try ChildProcess(DevicectlBinary.path, arguments, environment: environment, stdin: stdin, input: input)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? outFile.close()
        try? errFile.close()
        removeTree(scratch)
    }

    /// Polls `condition` (see `waitUntil`) until it holds, the child exits, or `seconds` pass; returns whether it
    /// held.
    @discardableResult
    public func wait(upTo seconds: Double, until condition: () -> Bool) -> Bool {
        waitUntil(seconds: seconds) { condition() || !process.isRunning }
        return condition()
    }

    /// Sends `signal` and waits for the child to end.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// Waits for the child to exit; kills it (and returns false) after `seconds`.
    @discardableResult
    public func finish(within seconds: Double = 60) -> Bool {
        guard waitUntil(seconds: seconds, { !process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }
        return true
    }

    /// The exit status (or the signal number when `killedBy` is set).
    public var status: Int32 { process.terminationStatus }
    /// The signal that ended the child, or nil when it exited.
    public var killedBy: Int32? { process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil }
    public var stdout: String { (try? String(contentsOfFile: scratch + "/out", encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: scratch + "/err", encoding: .utf8)) ?? "" }
}
