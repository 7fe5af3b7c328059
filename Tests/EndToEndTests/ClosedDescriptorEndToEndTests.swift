// ClosedDescriptorEndToEndTests: devicectl started with standard input, output or error closed refuses to run
// (exit 1) before it opens anything, for every command: with descriptor 1 closed, `backup -o -` once wrote the
// archive into ROOT/DeviceLocal/lock, the file that took descriptor 1, and exited 0.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct ClosedDescriptorEndToEndTests {
    /// Runs devicectl `arguments` from a shell that first closes `descriptors`.
    private static func run(closing descriptors: [Int32], _ arguments: [String]) throws -> RunResult {
        let closes = descriptors.map { "\($0)>&-" }.joined(separator: " ")
        return try Shell.run(
            "/bin/sh", ["-c", "exec \(closes); exec \"$0\" \"$@\"", DevicectlBinary.path] + arguments,
            environment: ["DEVICECTL_NOW": BackupCheck.now])
    }

    private static let names: [Int32: String] = [
        0: "standard input (descriptor 0)", 1: "standard output (descriptor 1)", 2: "standard error (descriptor 2)",
    ]

    /// A device (with an app, so a backup has data to write), and the directory around it.
    private static func withDevice(_ body: (_ dir: String, _ root: String) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/phone"
            for setup in [["init", root], ["install", root, "--app", "com.example.news"]] {
                let result = try BackupCheck.devicectl(setup)
                try #require(result.status == 0, "\(setup): \(result.stderr)")
            }
            try body(dir, root)
        }
    }

    @Test func backupToStandardOutputWithItClosedFailsAndWritesNothing() throws {
        try Self.withDevice { dir, root in
            let before = try TreeSnapshot.take(dir)
            let result = try Self.run(closing: [1], ["backup", root, "-o", "-"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(
                result.stderr == "devicectl: standard output (descriptor 1) is closed; nothing was done "
                    + "(open it, e.g. on /dev/null, and run again)\n", "\(result.stderr)")
            // The lock file (the first file a backup opens) is still empty, and nothing else changed.
            #expect(try TreeSnapshot.take(dir) == before)
            #expect(try FileManager.default.attributesOfItem(atPath: root + "/DeviceLocal/lock")[.size] as? Int == 0)
        }
    }

    static let commands: [[String]] = [["backup", "ROOT", "-o", "ARCHIVE"], ["status", "ROOT"], ["--version"]]

    @Test(arguments: [Int32(0), 1, 2], commands)
    func aClosedStandardDescriptorIsRefusedBeforeAnythingIsOpened(_ descriptor: Int32, _ command: [String]) throws {
        try Self.withDevice { dir, root in
            let arguments = command.map { $0 == "ROOT" ? root : $0 == "ARCHIVE" ? dir + "/b.tar" : $0 }
            let before = try TreeSnapshot.take(dir)
            let result = try Self.run(closing: [descriptor], arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(result.stdout)")
            if descriptor == 2 {
                #expect(result.stderr.isEmpty)
            } else {
                #expect(result.stderr.hasPrefix("devicectl: \(Self.names[descriptor]!) is closed"), "\(result.stderr)")
            }
            #expect(try TreeSnapshot.take(dir) == before)
        }
    }

    @Test func everyClosedDescriptorIsNamed() throws {
        let result = try Self.run(closing: [0, 1], ["--version"])
        #expect(result.status == 1)
        let both = "devicectl: \(Self.names[0]!) and \(Self.names[1]!) are closed"
        #expect(result.stderr.hasPrefix(both), "\(result.stderr)")
        // All open: the same command runs.
        let open = try Self.run(closing: [], ["--version"])
        #expect(open.status == 0 && open.stdout.hasPrefix("devicectl "), "\(open.stderr)")
    }
}
