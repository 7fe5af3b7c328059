// ProcFiles: what a test reads of a process from /proc (its status fields, whether it waits for a lock).
import Foundation

/// Readers of /proc for tests that wait for, or check, an observable state of a process.
public enum ProcFiles {
    /// Whether `/proc/locks` lists `pid` as waiting for a lock (a `->` line: `1: -> FLOCK ADVISORY WRITE <pid> ...`).
    public static func waitsForALock(_ pid: Int32) -> Bool {
        guard let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        return locks.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 5 && fields[1] == "->" && fields[5] == "\(pid)"
        }
    }

    /// A numeric field of `/proc/<process>/status` (`FDSize`, `Threads`); `process` is a pid or `self`.
    public static func statusField(_ name: String, of process: String = "self") -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
