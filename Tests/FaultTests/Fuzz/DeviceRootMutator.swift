// DeviceRootMutator: deterministic mutations of a device root, as someone else's tree would have it: its plists,
// JSON and event log damaged or rewritten with hostile values, files and directories replaced by symlinks out of
// ROOT (a directory moved out and linked back, so that following it would reach outside), FIFOs, directories,
// device nodes' stand-ins, sparse giants; backup exclusion attributes with garbage values.
import Foundation
import Glibc
import SystemKit
import TestSupport

struct DeviceRootMutator {
    enum Operator: String, CaseIterable {
        case fileBytes, fileReplace, directoryOutside, directoryReplace, plistValue, eventLines, attribute, giant
    }

    /// A directory outside ROOT: the secret the symlinks point at, and the directories moved out of ROOT.
    let outside: String
    var rng: SeededGenerator
    private(set) var steps: [String] = []

    init(seed: UInt64, outside: String) {
        rng = SeededGenerator(seed: seed)
        self.outside = outside
    }

    /// One to three mutations of the device at `root`, in place.
    mutating func mutate(_ root: String) throws {
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            try apply(Operator.allCases.randomElement(using: &rng)!, to: root)
        }
    }

    mutating func apply(_ op: Operator, to root: String) throws {
        let (files, directories) = Self.entries(root)
        switch op {
        case .fileBytes:
            guard let file = files.randomElement(using: &rng) else { return note("no file") }
            let step = try FuzzBytes.damage(root + "/" + file, using: &rng)
            note("\(file): \(step ?? "not a regular file")")
        case .fileReplace:
            guard let file = files.randomElement(using: &rng) else { return note("no file") }
            let what = FuzzBytes.replace(root + "/" + file, symlinkTargets: symlinkTargets(root), using: &rng)
            note("\(file): \(what)")
        case .directoryOutside:
            guard let directory = directories.randomElement(using: &rng) else { return note("no directory") }
            // Its content outside ROOT, reached through a symlink where it was: a command that follows it writes
            // outside.
            let moved = outside + "/moved-\(steps.count)"
            guard rename(root + "/" + directory, moved) == 0 else { return note("\(directory): not moved") }
            // What a command reads through the symlink shows: any output holding the secret read outside ROOT.
            try Data(MobileSyncMutator.secret).write(to: URL(fileURLWithPath: moved + "/fuzz-secret"))
            let target = Bool.random(using: &rng) ? moved : Self.relative(from: directory, to: moved, root: root)
            symlink(target, root + "/" + directory)
            note("\(directory): moved out of ROOT, a symlink to \(target) in its place")
        case .directoryReplace:
            guard let directory = directories.randomElement(using: &rng) else { return note("no directory") }
            removeTree(root + "/" + directory)
            if Bool.random(using: &rng) {
                try Data("not a directory\n".utf8).write(to: URL(fileURLWithPath: root + "/" + directory))
                note("\(directory): a file")
            } else {
                let what = FuzzBytes.replace(root + "/" + directory, symlinkTargets: symlinkTargets(root), using: &rng)
                note("\(directory): \(what)")
            }
        case .plistValue:
            let plists = files.filter { $0.hasSuffix(".plist") || $0.hasSuffix(".xcent") }
            guard let file = plists.randomElement(using: &rng) else { return note("no plist") }
            try rewritePlist(root + "/" + file, name: file)
        case .eventLines:
            let path = root + "/DeviceLocal/events.jsonl"
            guard var bytes = FuzzBytes.regularFile(path) else { return note("events.jsonl: not a regular file") }
            let lines = [
                "{\"kind\":\"launch\"}", "{}", "[]", "null", String(repeating: "x", count: 70_000), "{\"at\":\"9999-99-99\"}",
                "{\"kind\":\"notification\",\"id\":\"../../x\",\"at\":\"2026-12-01T09:00:00Z\"}", "\u{0}", "{\"kind\":",
            ]
            let line = lines.randomElement(using: &rng)!
            bytes += Array((line + "\n").utf8)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            note("events.jsonl: appended \(line.prefix(60).debugDescription)")
        case .attribute:
            guard let entry = (files + directories).randomElement(using: &rng) else { return note("nothing") }
            let names = [
                "user.com.apple.metadata:com_apple_backup_excludeItem", "user.com.apple.MobileBackup",
                "user.com.apple.metadata:com_apple_cloudBackup_excludeItem", "user.xdg.robots.backup", "user.other",
            ]
            let name = names.randomElement(using: &rng)!
            let values: [[UInt8]] = [
                [], [0], Array("com.apple.backupd".utf8), Array("bplist00".utf8) + FuzzBytes.random(1...60, using: &rng),
                [UInt8](repeating: 0x41, count: 60_000), Array("1".utf8), Array("true".utf8),
            ]
            let value = values.randomElement(using: &rng)!
            let done = (try? ExtendedAttributes.set(name, to: value, at: root + "/" + entry)) != nil
            note("\(entry): \(name) = \(value.count) bytes\(done ? "" : " (not set)")")
        case .giant:
            guard let file = files.randomElement(using: &rng) else { return note("no file") }
            guard FuzzBytes.regularFile(root + "/" + file) != nil else { return note("\(file): not a regular file") }
            // Past every cap on what is read whole (device plists, Info.plist's 64 MiB), and cheap: all hole.
            truncate(root + "/" + file, 100 << 20)
            note("\(file): a sparse file of 100 MiB")
        }
    }

    /// Where planted symlinks point: the secret outside ROOT, its directory, a device of the system, this process's
    /// environment, a path above ROOT, ROOT itself.
    private func symlinkTargets(_ root: String) -> [String] {
        [outside + "/" + MobileSyncMutator.secretName, outside, "/dev/zero", "/proc/self/environ", "../../../..", root,
         "/"]
    }

    /// Rewrites one value of the plist at `path` (a leaf, or the whole of a container) with a hostile one.
    private mutating func rewritePlist(_ path: String, name: String) throws {
        guard let bytes = FuzzBytes.regularFile(path),
            let plist = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
        else { return note("\(name): not a plist, left as it is") }
        let id = MobileSyncMutator.hostileIdentifiers.randomElement(using: &rng)!
        let values: [Any] = [
            id, -1, Int64.max, 1e308, ["x"], [String: Any](), Data([0, 1]), true, Date(timeIntervalSince1970: -1e12),
            Array(repeating: "a", count: 20_000), String(repeating: "long", count: 20_000),
        ]
        var paths: [[String]] = []
        func walk(_ value: Any, _ at: [String]) {
            paths.append(at)
            if let dictionary = value as? [String: Any] {
                for key in dictionary.keys.sorted() { walk(dictionary[key]!, at + [key]) }
            } else if let array = value as? [Any] {
                for (index, item) in array.enumerated() { walk(item, at + ["#\(index)"]) }
            }
        }
        walk(plist, [])
        let at = paths.randomElement(using: &rng)!
        let value = values.randomElement(using: &rng)!
        func replaced(_ current: Any, _ rest: ArraySlice<String>) -> Any {
            guard let key = rest.first else { return value }
            if var dictionary = current as? [String: Any], let child = dictionary[key] {
                dictionary[key] = replaced(child, rest.dropFirst())
                return dictionary
            }
            if var array = current as? [Any], key.hasPrefix("#"), let index = Int(key.dropFirst()), index < array.count {
                array[index] = replaced(array[index], rest.dropFirst())
                return array
            }
            return current
        }
        let changed = replaced(plist, at[...])
        let format: PropertyListSerialization.PropertyListFormat = Bool.random(using: &rng) ? .xml : .binary
        guard let data = try? PropertyListSerialization.data(fromPropertyList: changed, format: format, options: 0) else {
            return note("\(name): not writable as a plist")
        }
        try data.write(to: URL(fileURLWithPath: path))
        note("\(name): \(at.isEmpty ? "the whole plist" : at.joined(separator: "."))= \(String(describing: value).prefix(60)) (\(format == .xml ? "XML" : "binary"))")
    }

    /// ROOT's regular files and directories (ROOT itself left out), relative to it, sorted; symlinks not followed.
    static func entries(_ root: String) -> (files: [String], directories: [String]) {
        var files: [String] = []
        var directories: [String] = []
        func visit(_ relative: String) {
            let path = relative.isEmpty ? root : root + "/" + relative
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                let child = relative.isEmpty ? name : relative + "/" + name
                var status = stat()
                guard lstat(root + "/" + child, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFREG: files.append(child)
                case S_IFDIR:
                    directories.append(child)
                    visit(child)
                default: break
                }
            }
        }
        visit("")
        return (files, directories)
    }

    /// `target` (absolute) as seen from the directory holding `link` (relative to `root`), in `..` steps.
    static func relative(from link: String, to target: String, root: String) -> String {
        let depth = link.split(separator: "/").count - 1 + root.split(separator: "/").count
        return String(repeating: "../", count: depth) + target.dropFirst()
    }

    private mutating func note(_ step: String) {
        steps.append(step)
    }
}
