// BackupEndToEndSupport: independent readers for backup tests (besides TarTool): extraction by GNU tar or bsdtar
// and a Python tree dump (type, mode, owner, mtime in ns, content hash, link target, hard-link group, user.* xattrs).
import Foundation
import TestSupport
import Testing

enum BackupCheck {
    /// A pinned creation time in the past (GNU tar warns about member times in the future).
    static let now = "2026-01-01T09:00:00Z"

    /// Runs devicectl with DEVICECTL_NOW pinned.
    @discardableResult
    static func devicectl(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws
        -> RunResult
    {
        try DevicectlBinary.run(arguments, input: input, environment: ["DEVICECTL_NOW": now].merging(environment) { $1 })
    }

    /// Extracts `archive` into a new directory `into` with GNU tar (xattrs on) or bsdtar, insisting on silence.
    static func extract(_ archive: String, into directory: String, tool: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let arguments = tool == "tar"
            ? ["--xattrs", "--xattrs-include=user.*", "-xpf", archive, "-C", directory]
            : ["-xpf", archive, "-C", directory]
        let result = try Shell.run(tool, arguments)
        #expect(result.status == 0, "\(tool) -x: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "\(tool) -x warned: \(result.stderr)", sourceLocation: sourceLocation)
    }

    /// Every entry under `root` (not `root` itself): path -> metadata, as Python sees it.
    static func dump(_ root: String) throws -> [String: [String: String]] {
        let script = """
            import hashlib, json, os, stat, sys
            root = sys.argv[1]
            out, groups = {}, {}
            for directory, dirs, files in os.walk(root):
                for name in dirs + files:
                    path = os.path.join(directory, name)
                    rel = os.path.relpath(path, root)
                    st = os.lstat(path)
                    entry = {"mode": oct(st.st_mode), "uid": str(st.st_uid), "gid": str(st.st_gid),
                             "mtime_ns": str(st.st_mtime_ns)}
                    if stat.S_ISLNK(st.st_mode):
                        entry["link"] = os.readlink(path)
                    if stat.S_ISREG(st.st_mode):
                        entry["sha256"] = hashlib.sha256(open(path, "rb").read()).hexdigest()
                        if st.st_nlink > 1:
                            groups.setdefault((st.st_dev, st.st_ino), []).append(rel)
                    if not stat.S_ISLNK(st.st_mode):
                        for attr in sorted(os.listxattr(path, follow_symlinks=False)):
                            if attr.startswith("user."):
                                entry["xattr " + attr] = os.getxattr(path, attr, follow_symlinks=False).hex()
                    out[rel] = entry
            for names in groups.values():
                for name in names:
                    out[name]["hardlinks"] = ",".join(sorted(names))
            print(json.dumps(out))
            """
        let result = try Shell.run("python3", ["-c", script, root])
        try #require(result.status == 0, "dump: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: [String: String]])
    }

    /// Runs a shell command (for setfattr, chattr, mkfifo ...) and requires success.
    static func sh(_ script: String, _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Shell.run("/bin/sh", ["-c", script, "sh"] + arguments)
        #expect(result.status == 0, "\(script): \(result.stderr)", sourceLocation: sourceLocation)
    }

}
