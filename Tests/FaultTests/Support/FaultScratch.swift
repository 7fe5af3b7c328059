// FaultScratch: a scratch area on tmpfs for fault tests driven through the built binary: a device with
// data to back up, fresh devices to restore onto, a sentinel that must never change, whole-tree snapshots,
// and fault injection with strace (a signal or an errno at the n-th call of a system call).
import DeviceKit
import Foundation
import Glibc
import TestSupport
import Testing

struct FaultScratch {
    static let now = "2026-12-01T09:00:00Z"
    let base: String

    var sentinel: String { base + "/sentinel" }

    /// Runs `body` with a new scratch directory (on /dev/shm when it is writable: fast, no disk I/O).
    static func with(_ body: (FaultScratch) throws -> Void) throws {
        let parent =
            access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
        var template = Array("\(parent)/devicectl-fault.XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { removeTree(base) }
        let scratch = FaultScratch(base: base)
        try FileManager.default.createDirectory(atPath: scratch.sentinel + "/dir", withIntermediateDirectories: true)
        try Data("sentinel\n".utf8).write(to: URL(fileURLWithPath: scratch.sentinel + "/file"))
        try body(scratch)
    }

    // MARK: - Running devicectl

    /// Runs devicectl with DEVICECTL_NOW pinned.
    @discardableResult
    func run(_ arguments: [String]) throws -> RunResult {
        try DevicectlBinary.run(arguments, environment: ["DEVICECTL_NOW": Self.now])
    }

    /// Runs devicectl under /usr/bin/time; returns the result and the child's peak resident set in bytes.
    func runMeasuringMemory(_ arguments: [String]) throws -> (RunResult, peakBytes: Int) {
        let report = base + "/time-report"
        let result = try Shell.run(
            "/usr/bin/time", ["-f", "%M", "-o", report, DevicectlBinary.path] + arguments,
            environment: ["DEVICECTL_NOW": Self.now])
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let kilobytes = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return (result, (kilobytes ?? .max / 1024) * 1024)
    }

    /// Runs devicectl and records a failure unless it exits 0.
    @discardableResult
    func ok(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        let result = try run(arguments)
        #expect(result.status == 0, "devicectl \(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs devicectl expecting a clean failure: exit 1, one `devicectl: ` message containing `messages`, no crash.
    @discardableResult
    func fails(
        _ arguments: [String], mentioning messages: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try run(arguments)
        Self.expectCleanFailure(result, mentioning: messages, sourceLocation: sourceLocation)
        return result
    }

    static func expectCleanFailure(
        _ result: RunResult, status: Int32 = 1, mentioning messages: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("devicectl: "), "\(result.stderr)", sourceLocation: sourceLocation)
        for message in messages {
            #expect(
                result.stderr.contains(message), "stderr lacks '\(message)': \(result.stderr)",
                sourceLocation: sourceLocation)
        }
        #expect(
            !result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"),
            sourceLocation: sourceLocation)
    }

    /// The environment of every injected run: the clock pinned, and the threads (`DEVICECTL_THREADS=pinned`), so
    /// that each thread makes the same calls in the same order on every run. strace counts calls per thread:
    /// unpinned, a restore's file creations move between two threads with the load and the n-th call of one
    /// thread may never come.
    static let injectedEnvironment = ["DEVICECTL_NOW": now, "DEVICECTL_THREADS": "pinned"]

    /// Runs devicectl under strace, injecting `action` (`signal=KILL`, `error=ENOSPC` ...) into the `when`-th
    /// call of `syscall` (strace's syntax, e.g. `3` or `3+`), optionally only for calls on `path`.
    @discardableResult
    func runInjecting(
        _ syscall: String, _ action: String, when: String, path: String? = nil, _ arguments: [String],
        environment: [String: String] = [:]
    ) throws -> RunResult {
        var options = [
            "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(syscall)", "-e", "inject=\(syscall):\(action):when=\(when)",
        ]
        if let path { options += ["-P", path] }
        return try Shell.run(
            "strace", options + [DevicectlBinary.path] + arguments,
            environment: Self.injectedEnvironment.merging(environment) { _, given in given })
    }

    /// Runs devicectl (threads pinned, as `runInjecting` runs it) under strace and counts the calls of each of
    /// `syscalls` that only its main thread makes: a kill at call n of one of them (`runInjecting`) then
    /// interrupts a run with the same arguments at the same step every time. Calls some other thread makes too
    /// are left out (which thread gets to its n-th call first would depend on timing).
    func countMainThreadCalls(_ syscalls: [String], _ arguments: [String]) throws -> (RunResult, [String: Int]) {
        let log = base + "/strace-count.log"
        defer { unlink(log) }
        let options = ["-f", "-qq", "-o", log, "-e", "trace=execve," + syscalls.joined(separator: ",")]
        let result = try Shell.run(
            "strace", options + [DevicectlBinary.path] + arguments, environment: Self.injectedEnvironment)
        var main: Int32?
        var counts: [String: Int] = [:]
        var elsewhere: Set<String> = []
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            // "<tid> name(args...) = result" or "<tid> name(args... <unfinished ...>"; resumptions start with "<...".
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, let tid = Int32(fields[0]) else { continue }
            let call = fields[1].drop { $0 == " " }
            guard let open = call.firstIndex(of: "(") else { continue }
            let name = String(call[..<open])
            if main == nil && name == "execve" { main = tid }
            guard syscalls.contains(name) else { continue }
            if tid == main { counts[name, default: 0] += 1 } else { elsewhere.insert(name) }
        }
        for name in elsewhere { counts[name] = nil }
        return (result, counts)
    }

    // MARK: - Trees

    /// A device at `name` with an app (group, widget, defaults) and `files` documents of `size` bytes each.
    @discardableResult
    func phone(_ name: String = "phone", files: Int = 20, size: Int = 4096) throws -> String {
        let root = base + "/" + name
        try ok(["init", root])
        try ok(["install", root, "--app", "com.example.news", "--group", "group.com.example.news"])
        try ok(["widget", "add", root, "--app", "com.example.news"])
        try ok(["defaults", "write", root, "com.example.news", "articlesRead", "-int", "3"])
        let data = try Self.dataContainer(root)
        try Self.fill(data + "/Documents", files: files, size: size)
        return root
    }

    /// A plain directory tree of `files` files of `size` bytes in 10 subdirectories.
    @discardableResult
    static func fill(_ directory: String, files: Int, size: Int) throws -> String {
        var content = [UInt8](repeating: 0, count: size)
        for index in 0..<files {
            let subdirectory = "\(directory)/d\(index % 10)"
            if index < 10 {
                try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: true)
            }
            for offset in stride(from: 0, to: size, by: 4096) {
                content[offset] = UInt8(truncatingIfNeeded: index &+ offset)
            }
            let fd = open("\(subdirectory)/f\(index)", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = content.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        return directory
    }

    /// The app's data container (found through its metadata, as a restore would find it).
    static func dataContainer(_ root: String, app: String = "com.example.news") throws -> String {
        let base = root + "/Containers/Data/Application"
        for name in try FileManager.default.contentsOfDirectory(atPath: base) {
            let metadata = "\(base)/\(name)/.com.apple.mobile_container_manager.metadata.plist"
            guard let data = FileManager.default.contents(atPath: metadata),
                let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
            else { continue }
            if plist["MCMMetadataIdentifier"] as? String == app { return "\(base)/\(name)" }
        }
        throw FaultError("no data container for \(app) in \(root)")
    }

    /// A fresh device made by `devicectl init`.
    @discardableResult
    func freshDevice(_ name: String) throws -> String {
        let root = base + "/" + name
        try ok(["init", root])
        return root
    }

    // MARK: - Snapshots

    /// Everything under `path` (see TreeSnapshot).
    static func snapshot(_ path: String) throws -> [String: String] {
        try TreeSnapshot.take(path)
    }

    /// A restored device as any restore of the same archive leaves it: without this device's own state and
    /// the reinstalled bundle containers (new UUIDs), and without the mtimes of the skeleton directories a
    /// restore makes when the archive lacks them (the clock's).
    static func restoredContent(_ root: String) throws -> [String: String] {
        var snapshot = try TreeSnapshot.take(root) { $0 == "Containers/Bundle" || $0 == "DeviceLocal" }
        // Also made at restore time: the empty Caches and tmp of the reinstalled apps' containers.
        let made = snapshot.keys.filter { key in
            DeviceLayout.neverBackedUpInDataContainers.contains {
                key.hasPrefix("Containers/") && key.hasSuffix("/" + $0)
            }
        }
        for directory in skeleton + made {
            snapshot[directory] = snapshot[directory]?.replacingOccurrences(
                of: #" mtime=[0-9.]+"#, with: "", options: .regularExpression)
        }
        return snapshot
    }

    static let skeleton =
        ContainerKind.allCases.map(\.directory) + [
            "Containers", "Containers/Data", "Containers/Shared", "Library", "Library/SpringBoard",
        ]

}

struct FaultError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
