// Shell: runs a program (devicectl, tar, getfattr, python3 ...) and captures its output.
import Foundation

/// The outcome of one program run.
public struct RunResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let stdoutData: Data
}

public enum Shell {
    /// Runs `executable` with `arguments`, feeding `input` on stdin. Output goes to temporary files
    /// (not pipes), so a chatty child can never deadlock the test.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil,
        environment: [String: String]? = nil, directory: String? = nil
    ) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("devicectl-run-\(UUID().uuidString)")
        let childTemporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: childTemporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // The child's TMPDIR is removed with its run (some oracles leave their decrypted copies behind), unless the
        // caller names one.
        process.environment = ProcessInfo.processInfo.environment
            .merging(["TMPDIR": childTemporary.path]) { $1 }
            .merging(environment ?? [:]) { $1 }
        let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        if let input {
            let inURL = scratch.appendingPathComponent("in")
            try input.write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: outURL)
        return RunResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            stdoutData: outData)
    }
}
