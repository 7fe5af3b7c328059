// PhoneScratch+Faults: the fault tests' use of TestSupport's PhoneScratch (on tmpfs, with a sentinel): a device
// with data to back up, fresh devices to restore onto, restored trees compared by content, and fault injection
// with strace (a signal or an errno at the n-th call of a system call).
import DeviceKit
import Foundation
import Glibc
import TestSupport
import Testing

extension PhoneScratch {
    /// Runs `body` with the fault tests' scratch area: on /dev/shm when it is writable, with the sentinel, and no
    /// device yet (`phone` and `freshDevice` make them).
    static func withFaults(_ body: (PhoneScratch) throws -> Void) throws {
        try with(initialised: false, inMemory: true, sentinel: true, body)
    }

    // MARK: - Running devicectl

    /// Runs devicectl under /usr/bin/time; returns the result and the child's peak resident set in bytes.
    func runMeasuringMemory(_ arguments: [String]) throws -> (RunResult, peakBytes: Int) {
        let report = dir + "/time-report"
        let result = try Shell.run(
            "/usr/bin/time", ["-f", "%M", "-o", report, DevicectlBinary.path] + arguments,
            environment: ["DEVICECTL_NOW": Self.now])
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let kilobytes = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return (result, (kilobytes ?? .max / 1024) * 1024)
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
        let log = dir + "/strace-count.log"
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
        let root = dir + "/" + name
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
        let root = dir + "/" + name
        try ok(["init", root])
        return root
    }

    // MARK: - Snapshots

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
