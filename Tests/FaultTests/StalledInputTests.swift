// StalledInputTests: `restore -`, `verify -` and `list -` reading a pipe that stops sending stop on SIGINT and
// SIGTERM within a second, and a restore removes its staging directory. Issue 13, finding 6: a signal that
// arrived while the reader waited in poll(2) made poll return EINTR, and the reader then blocked in read(2) for
// good (only SIGKILL ended it, leaving the staging directory). The signal is sent only once the child is seen
// blocked in poll (its main thread's /proc/PID/syscall) with the archive's first bytes read.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite(.serialized) struct StalledInputTests {
    static let cases: [([String], Int32)] = [
        (["restore"], SIGINT), (["restore"], SIGTERM), (["verify"], SIGINT), (["verify"], SIGTERM),
        (["list"], SIGINT), (["list"], SIGTERM),
    ]

    @Test(arguments: cases)
    func aStalledPipeStopsOnASignalWithinASecond(_ command: [String], _ signal: Int32) throws {
        try PhoneScratch.withFaults { scratch in
            let phone = try scratch.phone(files: 40, size: 8192)
            let archive = scratch.dir + "/phone.tar"
            try scratch.ok(["backup", phone, "-o", archive])
            // Less than a pipe holds, so the write never waits; more than the first members, so a restore has
            // made its staging directory and is extracting when the data stops.
            let prefix = try Data(contentsOf: URL(fileURLWithPath: archive)).prefix(48 << 10)
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            let pipe = Pipe()
            let arguments = command == ["restore"] ? ["restore", "-", root] : command + ["-"]
            let child = try ChildProcess.devicectl(
                arguments, environment: ["DEVICECTL_NOW": PhoneScratch.now], input: pipe.fileHandleForReading)
            try pipe.fileHandleForWriting.write(contentsOf: prefix)
            defer { try? pipe.fileHandleForWriting.close() }
            let stalled = child.wait(upTo: 30) {
                let staged = try? directoryNames(in: root).contains { $0.hasPrefix(".devicectl-restore-") }
                return Self.blockedInPoll(child.pid) && (command != ["restore"] || staged == true)
            }
            try #require(stalled, "\(arguments) never blocked on the pipe: \(child.stderr)")
            let sent = Date()
            kill(child.pid, signal)
            let ended = child.finish(within: 1)
            let seconds = Date().timeIntervalSince(sent)
            #expect(ended, "\(arguments) ignored signal \(signal) on a stalled pipe (killed after 1 s)")
            guard ended else { return }
            #expect(seconds < 1)
            #expect(child.status == 128 + signal, "exit \(child.status): \(child.stderr)")
            #expect(child.stderr.contains("interrupted by SIG\(signal == SIGINT ? "INT" : "TERM")"), "\(child.stderr)")
            if command == ["restore"] {
                #expect(child.stderr.contains("the partial restore was removed"), "\(child.stderr)")
            }
            let after = try TreeSnapshot.take(root)
            #expect(after == before, "\(snapshotDifference(before, after))")
        }
    }

    /// Whether one of the process's threads (the reader: the main thread, or `list`'s reading thread) is inside
    /// poll(2) or ppoll(2) right now (x86_64 numbers; the package builds for Linux on x86_64).
    static func blockedInPoll(_ pid: Int32) -> Bool {
        guard let threads = try? directoryNames(in: "/proc/\(pid)/task") else { return false }
        return threads.contains { thread in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/syscall", encoding: .utf8)
            else { return false }
            let number = text.split(separator: " ").first.map(String.init)
            return number == "7" || number == "271"  // x86_64: poll, ppoll
        }
    }
}
