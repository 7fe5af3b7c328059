// PhoneScratch: a scratch directory holding a device root at `<dir>/phone`, driven through the built binary.
import Foundation
import Testing

/// One scratch directory, used by one test: the device root `root` (`<dir>/phone`) and the devicectl runs that
/// drive it at a pinned time. End-to-end and fault tests add their own readers and fault injection in extensions.
public struct PhoneScratch: Sendable {
    /// The time of every run (DEVICECTL_NOW) unless a run names another.
    public static let now = "2026-12-01T09:00:00Z"

    public let dir: String
    public var root: String { "\(dir)/phone" }
    /// A file and a directory no command may change (see `Sentinel`), made by `with(sentinel: true)`.
    public var sentinel: String { "\(dir)/sentinel" }

    public init(dir: String) {
        self.dir = dir
    }

    /// Runs `body` with a new scratch directory, removed afterwards: `initialised` runs `devicectl init ROOT`
    /// first, `inMemory` puts the directory on /dev/shm when it is writable (fast, no disk I/O), `sentinel`
    /// makes the sentinel.
    public static func with(
        initialised: Bool = true, inMemory: Bool = false, sentinel: Bool = false, _ body: (PhoneScratch) throws -> Void
    ) throws {
        try withTemporaryDirectory(inMemory: inMemory) { dir in
            let scratch = PhoneScratch(dir: dir)
            if sentinel { try Sentinel.make(at: scratch.sentinel) }
            if initialised { try scratch.ok(["init", scratch.root]) }
            try body(scratch)
        }
    }

    // MARK: - Running devicectl

    /// Runs devicectl at `now` (through DEVICECTL_NOW).
    @discardableResult
    public func run(_ arguments: [String], now: String = PhoneScratch.now) throws -> RunResult {
        try DevicectlBinary.run(arguments, environment: ["DEVICECTL_NOW": now])
    }

    /// Runs devicectl and records a failure unless it exits 0.
    @discardableResult
    public func ok(
        _ arguments: [String], now: String = PhoneScratch.now, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try run(arguments, now: now)
        #expect(result.status == 0, "devicectl \(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs devicectl expecting a clean failure (see `expectCleanFailure`); returns the result.
    @discardableResult
    public func fails(
        _ arguments: [String], status: Int32 = 1, mentioning messages: [String] = [], now: String = PhoneScratch.now,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try run(arguments, now: now)
        Self.expectCleanFailure(
            result, status: status, mentioning: messages, of: arguments, sourceLocation: sourceLocation)
        return result
    }

    /// Records a failure unless `result` is a clean failure: exit `status`, a stderr that starts with
    /// `devicectl: ` and contains every one of `messages`, and no crash. `arguments` name the run in messages.
    public static func expectCleanFailure(
        _ result: RunResult, status: Int32 = 1, mentioning messages: [String] = [], of arguments: [String]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let run = arguments.map { "devicectl \($0): " } ?? ""
        #expect(
            result.status == status, "\(run)exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
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

    // MARK: - Setting up

    /// Installs `app` (default com.example.news in group.com.example.news).
    public func install(_ app: String = "com.example.news", _ extra: [String] = ["--group", "group.com.example.news"])
        throws
    {
        try ok(["install", root, "--app", app] + extra)
    }
}
