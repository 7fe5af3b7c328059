// ConventionsSupport: independent readers (Python's plistlib, getfattr, find) for a PhoneScratch's device root,
// to check what the built binary wrote; a ramfs namespace (a file system without user xattrs).
import Foundation
import TestSupport
import Testing

/// Independent readers for TestSupport's PhoneScratch: what the end-to-end tests check a device root with.
extension PhoneScratch {
    static let exclusionAttribute = "user.com.apple.metadata:com_apple_backup_excludeItem"
    /// The bytes Apple writes for the exclusion flag, as `getfattr -e hex` prints them.
    static let exclusionHex =
        "62706c69737430305f1011636f6d2e6170706c652e6261636b75706408000000000000010100000000000000010000000000000000000000000000001c"

    // MARK: - Independent readers

    /// Parses stdout as one JSON object.
    static func json(_ result: RunResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: result.stdoutData)
        return try #require(object as? [String: Any], "not a JSON object: \(result.stdout)")
    }

    /// Reads a plist with Python's plistlib, insisting on the binary format; dates become ISO-8601
    /// strings and data hex.
    static func plist(_ path: String) throws -> Any {
        let script = """
            import datetime, json, plistlib, sys
            data = open(sys.argv[1], 'rb').read()
            if data[:8] != b'bplist00': sys.exit('not a binary plist: %r' % data[:8])
            def enc(o):
                if isinstance(o, datetime.datetime): return o.strftime('%Y-%m-%dT%H:%M:%SZ')
                if isinstance(o, bytes): return o.hex()
                raise TypeError(type(o))
            print(json.dumps(plistlib.loads(data, fmt=plistlib.FMT_BINARY), default=enc))
            """
        let result = try Shell.run("python3", ["-c", script, path])
        try #require(result.status == 0, "plistlib could not read \(path): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: result.stdoutData, options: [.fragmentsAllowed])
    }

    static func plistDictionary(_ path: String) throws -> [String: Any] {
        try #require(try plist(path) as? [String: Any], "\(path) is not a dictionary")
    }

    /// The containers of one class directory as Python sees them: identifier -> UUID directory name.
    func containers(_ classDirectory: String) throws -> [String: String] {
        let script = """
            import json, os, plistlib, sys
            out = {}
            base = sys.argv[1]
            for name in sorted(os.listdir(base)):
                with open(os.path.join(base, name, '.com.apple.mobile_container_manager.metadata.plist'), 'rb') as f:
                    meta = plistlib.load(f)
                assert meta['MCMMetadataUUID'] == name, (meta, name)
                assert meta['MCMMetadataIdentifier'] not in out, 'duplicate ' + meta['MCMMetadataIdentifier']
                out[meta['MCMMetadataIdentifier']] = name
            print(json.dumps(out))
            """
        let result = try Shell.run("python3", ["-c", script, "\(root)/\(classDirectory)"])
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: String])
    }

    /// The path of the container `identifier` in `classDirectory`, found through its metadata.
    func containerPath(_ classDirectory: String, _ identifier: String) throws -> String {
        let uuid = try #require(try containers(classDirectory)[identifier], "no container \(identifier)")
        return "\(root)/\(classDirectory)/\(uuid)"
    }

    /// The exclusion xattr of `path` as `getfattr -e hex` prints it (hex without 0x), or nil.
    static func exclusionHex(_ path: String) throws -> String? {
        let result = try Shell.run("getfattr", ["-e", "hex", "-n", exclusionAttribute, "--absolute-names", path])
        guard result.status == 0 else { return nil }
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix(exclusionAttribute + "=0x") })
        return String(line.dropFirst(exclusionAttribute.count + 3))
    }

    /// The exclusion xattr's raw bytes through `getfattr --only-values`.
    static func exclusionBytes(_ path: String) throws -> Data {
        let result = try Shell.run("getfattr", ["--only-values", "-n", exclusionAttribute, "--absolute-names", path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutData
    }

    /// Everything about the tree under `path` (names, types, sizes, modes, mtimes, owners, link targets, contents,
    /// xattrs) as find, sha256sum and getfattr see it, to show that a refused command changed nothing.
    static func snapshot(_ path: String) throws -> String {
        let script = """
            cd "$1" || exit 1
            find . -printf '%p|%y|%s|%m|%T@|%U:%G|%l\\n' | LC_ALL=C sort
            find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
            getfattr -R -d -m - -e hex . 2>/dev/null
            exit 0
            """
        let result = try Shell.run("/bin/sh", ["-c", script, "sh", path])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    func snapshot() throws -> String { try Self.snapshot(root) }

    /// The device's event log lines, parsed.
    func events() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: "\(root)/DeviceLocal/events.jsonl", encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// Writes `python` (which receives the device root as sys.argv[1]) and runs it: an independent
    /// writer for corrupting or seeding files.
    func python(_ code: String) throws {
        let result = try Shell.run(
            "python3", ["-c", "import os, plistlib, sys, datetime\nroot = sys.argv[1]\n" + code, root])
        try #require(result.status == 0, "\(result.stderr)")
    }
}

/// Runs a shell script in a private mount namespace where `$1` is a fresh ramfs (a file system without
/// user xattrs); `$2` is the devicectl binary. The mount vanishes with the namespace.
enum RamfsNamespace {
    static let available: Bool = {
        (try? withTemporaryDirectory { dir in
            try Shell.run(
                "unshare", ["--mount", "--propagation", "private", "sh", "-c", "mount -t ramfs none \"$1\"", "sh", dir]
            ).status == 0
        }) ?? false
    }()

    static func run(_ script: String) throws -> RunResult {
        try withTemporaryDirectory { dir in
            try Shell.run(
                "unshare",
                [
                    "--mount", "--propagation", "private", "sh", "-c",
                    "mount -t ramfs none \"$1\" || exit 99\n" + script,
                    "sh", dir, DevicectlBinary.path,
                ])
        }
    }
}
