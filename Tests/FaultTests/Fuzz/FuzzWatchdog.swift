// FuzzWatchdog: the fuzzer's "no hang" guard. A case that runs past the hard limit aborts the test process
// with a message naming the case (its input stays in the scratch directory), since a hung libarchive call
// cannot be cancelled from outside. Softer limits are checked by the fuzzer itself (time per case).
import Foundation
import Glibc
import SystemKit

/// Watches the case in progress from a background thread.
final class FuzzWatchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var started: Double?
    private var label = ""
    private var stopped = false
    let hardLimit: Double

    init(hardLimit: Double) {
        self.hardLimit = hardLimit
        let thread = Thread { [weak self] in
            while let self, self.tick() { usleep(200_000) }
        }
        thread.start()
    }

    /// Writes a line to the test process's standard error (unbuffered, so it survives an abort).
    static func report(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    func begin(_ label: String) {
        lock.withLock {
            self.label = label
            started = MonotonicClock.seconds()
        }
    }

    func end() {
        lock.withLock { started = nil }
    }

    func stop() {
        lock.withLock { stopped = true }
    }

    /// One check; false once stopped.
    private func tick() -> Bool {
        let (running, label, stopped) = lock.withLock { (started, self.label, self.stopped) }
        if stopped { return false }
        if let running, MonotonicClock.seconds() - running > hardLimit {
            Self.report("fuzz: HANG: \(label) ran for more than \(hardLimit) s; aborting")
            abort()
        }
        return true
    }
}
