// PythonOracle: Python's own plistlib and sqlite3 (the standard library's, an independent implementation) read
// what MobileSyncKit writes.
import Foundation
import TestSupport

enum PythonOracle {
    /// Runs `script` with `input` on stdin and returns its stdout, or records the failure.
    static func run(_ script: String, input: [UInt8] = [], arguments: [String] = []) throws -> String {
        let result = try Shell.run("python3", ["-c", script] + arguments, input: Data(input))
        guard result.status == 0 else { throw OracleFailure(text: result.stderr) }
        return result.stdout
    }

    /// The binary plist on stdin as JSON: UIDs as `{"UID": n}`, data as `{"data": hex}`, dates as `{"date": s}`
    /// (seconds since 1970), in the order Python reads them.
    static let plistToJSON = """
        import json, plistlib, sys, datetime
        def plain(v):
            if isinstance(v, plistlib.UID): return {"UID": v.data}
            if isinstance(v, bytes): return {"data": v.hex()}
            if isinstance(v, datetime.datetime): return {"date": v.replace(tzinfo=datetime.timezone.utc).timestamp()}
            if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list): return [plain(x) for x in v]
            return v
        print(json.dumps(plain(plistlib.loads(sys.stdin.buffer.read(), fmt=plistlib.FMT_BINARY)), sort_keys=True))
        """

    struct OracleFailure: Error, CustomStringConvertible {
        let text: String
        var description: String { "python3 failed: \(text)" }
    }
}
