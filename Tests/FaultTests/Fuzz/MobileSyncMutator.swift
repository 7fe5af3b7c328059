// MobileSyncMutator: deterministic mutations of a valid MobileSync backup directory, as a hostile backup would
// have them: Manifest.db's rows rewritten (domains, paths, flags, fileIDs, records, column types), rows dropped and
// added (under a file, under a symlink, twice), its schema and bytes damaged; the plists' bytes; content files cut,
// grown, removed or replaced by a symlink, a directory or a FIFO; a content directory replaced by a symlink out of
// the backup. Each step is described so a failing case can be read and reproduced.
import Foundation
import Glibc
import MobileSyncKit
import SystemKit
import TestSupport

struct MobileSyncMutator {
    enum Operator: String, CaseIterable {
        case rowDomain, rowPath, rowFlags, rowFileID, rowBlobBytes, rowRecord, rowBlobSwap, rowDelete, rowAdd
        case schema, databaseBytes, plist, contentFile, contentDirectory, stray
        /// A value rewritten in a well-formed plist or devicectl's manifest header: the apps (hostile bundle ids, odd
        /// types, thousands), the device's identity, the encryption flag, the snapshot state, a widget's settings.
        case properties
        /// A well-formed row (its fileID, record, parent rows and content file all right) in an awkward place: the
        /// home screen as a directory or a symlink, containermanagerd's metadata, devicectl's manifest name, two
        /// domains that share a directory, a symlink to a device path that leaves /var/mobile.
        case validRow

        /// Operators that read or write Manifest.db as SQLite (not possible once it is encrypted).
        var needsDatabase: Bool {
            switch self {
            case .databaseBytes, .plist, .contentFile, .contentDirectory, .stray, .properties: false
            default: true
            }
        }
    }

    /// Where symlinks planted in the backup point: a directory outside it holding `secretName` (its bytes
    /// `secret`), and a content directory's worth of files named as the backup's own.
    let outside: String
    static let secretName = "secret"
    static let secret = Array("FUZZ-SECRET-OUTSIDE-THE-BACKUP\n".utf8)

    var rng: SeededGenerator
    let encrypted: Bool
    private(set) var steps: [String] = []

    init(seed: UInt64, encrypted: Bool, outside: String) {
        rng = SeededGenerator(seed: seed)
        self.encrypted = encrypted
        self.outside = outside
    }

    /// One to three mutations of the backup at `directory`, in place.
    mutating func mutate(_ directory: String) throws {
        let available = Operator.allCases.filter { !encrypted || !$0.needsDatabase }
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            // Well-formed rows a third of the time: most other steps make a backup verify refuses, and these reach
            // what a restore does after the rows (placing, linking, reinstalling).
            let validRow = !encrypted && Int.random(in: 0..<3, using: &rng) == 0
            try apply(validRow ? .validRow : available.randomElement(using: &rng)!, to: directory)
        }
    }

    mutating func apply(_ op: Operator, to directory: String) throws {
        if op == .validRow {
            let database = try FuzzDatabase(directory + "/Manifest.db")
            return try addValidRow(database, directory)
        }
        if op.needsDatabase {
            let database = try FuzzDatabase(directory + "/Manifest.db")
            return applyToRows(op, database)
        }
        switch op {
        case .databaseBytes: try damageBytes(of: directory + "/Manifest.db", name: "Manifest.db", header: true)
        case .plist:
            let name = ["Manifest.plist", "Info.plist", "Status.plist"].randomElement(using: &rng)!
            try replaceOrDamage(directory + "/" + name, name: name)
        case .contentFile:
            guard let (name, path) = contentFiles(directory).randomElement(using: &rng) else { return note("no content file") }
            try replaceOrDamage(path, name: name)
        case .contentDirectory:
            guard let sub = contentDirectories(directory).randomElement(using: &rng) else { return note("no content directory") }
            // The same files, outside the backup, reached through a symlink in its place.
            let copy = outside + "/" + sub
            removeTree(copy)
            _ = try Shell.run("cp", ["-a", directory + "/" + sub, copy])
            for name in (try? FileManager.default.contentsOfDirectory(atPath: copy)) ?? [] {
                var status = stat()
                guard lstat(copy + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                try Data(Self.secret).write(to: URL(fileURLWithPath: copy + "/" + name))
            }
            removeTree(directory + "/" + sub)
            let target = Bool.random(using: &rng) ? copy : "../" + (outside as NSString).lastPathComponent + "/" + sub
            symlink(target, directory + "/" + sub)
            note("\(sub): a symlink to \(target)")
        case .properties:
            try rewriteProperties(directory)
        case .stray:
            let choices = ["ab/ab" + String(repeating: "1", count: 38), "zz", "Manifest.db-wal", "Manifest.db-journal",
                           "Manifest.db-shm", "Snapshot", "00", ".hidden"]
            let name = choices.randomElement(using: &rng)!
            let path = directory + "/" + name
            try? FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: path) {
                try Data(random(0...600)).write(to: URL(fileURLWithPath: path))
            }
            note("stray \(name)")
        default:
            break
        }
    }

    // MARK: - Rows

    private mutating func applyToRows(_ op: Operator, _ database: FuzzDatabase) {
        let rows = database.rows()
        guard let row = rows.randomElement(using: &rng) else {
            return note("no rows to \(op.rawValue)")
        }
        let other = rows.randomElement(using: &rng)!
        let shown = "row \(row.rowID) (\(row.domain)/\(row.relativePath))"
        switch op {
        case .rowDomain:
            let domains: [String] = [
                "", "HomeDomain", "AppDomain-", "AppDomain-..", "AppDomain-../../x", "AppDomain-a/b", "AppDomain-.",
                "AppDomainGroup-", "AppDomainPlugin-x", "RootDomain", "KeychainDomain", "MediaDomain",
                "SysContainerDomain-x", "AppDomain-com.unknown.app", "AppDomain-com.example.news\u{0}x",
                "AppDomain-" + String(repeating: "x", count: 5000), other.domain, row.domain + "/x",
            ]
            let value = pickText(domains, row.domain)
            note("\(shown): domain = \(value)")
            database.set("domain", of: row.rowID, to: value)
        case .rowPath:
            let paths: [String] = [
                "", ".", "..", "../x", "a/../../x", "/etc/passwd", "Library//x", "Library/", "./Library", "Library/.",
                "Library/Preferences/../../../..", "x\u{0}y", "x\ny", String(repeating: "a", count: 5000),
                Array(repeating: "d", count: 400).joined(separator: "/"), "Library/SpringBoard/IconState.plist",
                "Library/Preferences", other.relativePath, other.relativePath + "/child", row.relativePath + "/child",
                "Documents/" + String(repeating: "é", count: 200),
            ]
            let value = pickText(paths, row.relativePath)
            note("\(shown): relativePath = \(value)")
            database.set("relativePath", of: row.rowID, to: value)
        case .rowFlags:
            let values: [FuzzValue] = [
                .integer(0), .integer(1), .integer(2), .integer(3), .integer(4), .integer(5), .integer(8),
                .integer(-1), .integer(.max), .integer(.min), .text(Array("1".utf8)), .null, .real(1.5), .blob([1]),
            ]
            let value = values.randomElement(using: &rng)!
            note("\(shown): flags = \(value)")
            database.set("flags", of: row.rowID, to: value)
        case .rowFileID:
            let ids: [String] = [
                other.fileID, row.fileID.uppercased(), "../../etc/passwd", "", String(row.fileID.dropLast()),
                row.fileID + "0", "ab/../" + String(row.fileID.dropFirst(6)), String(repeating: "0", count: 40),
                String(row.fileID.prefix(2)) + "/" + String(row.fileID.dropFirst(3)),
            ]
            let value = FuzzValue.text(Array(ids.randomElement(using: &rng)!.utf8))
            note("\(shown): fileID = \(value)")
            database.set("fileID", of: row.rowID, to: value)
        case .rowBlobBytes:
            let (blob, step) = FuzzBytes.damaged(row.file, using: &rng)
            note("\(shown): file blob \(step)")
            database.set("file", of: row.rowID, to: .blob(blob))
        case .rowRecord:
            guard let value = rewrittenRecord(row, other) else { return note("\(shown): no record to rewrite") }
            note("\(shown): record \(value.0)")
            database.set("file", of: row.rowID, to: .blob(value.1))
        case .rowBlobSwap:
            let values: [FuzzValue] = [.blob(other.file), .null, .blob([]), .text(Array("bplist00".utf8)), .integer(7)]
            let value = values.randomElement(using: &rng)!
            note("\(shown): file = \(value) (from row \(other.rowID))")
            database.set("file", of: row.rowID, to: value)
        case .rowDelete:
            note("delete \(shown)")
            database.exec("DELETE FROM Files WHERE rowid = \(row.rowID)")
        case .rowAdd:
            // A row beside the good ones: under a file or a symlink, the same path again, or a copy elsewhere.
            let paths = [row.relativePath + "/child", row.relativePath, other.relativePath + "/x/y", row.relativePath + "2"]
            let path = paths.randomElement(using: &rng)!
            let flags = [Int64(1), 2, 4].randomElement(using: &rng)!
            let record = rewrittenRecord(
                FuzzRow(rowID: row.rowID, fileID: row.fileID, domain: row.domain, relativePath: path, flags: flags,
                        file: (flags == other.flags ? other : row).file), other, renamedTo: path)
            let fileID = Bool.random(using: &rng)
                ? FileID.of(domain: row.domain, relativePath: path) : other.fileID + String(rows.count)
            note("add row \(row.domain)/\(path) flags \(flags) fileID \(fileID)")
            database.insert([
                .text(Array(fileID.utf8)), .text(Array(row.domain.utf8)), .text(Array(path.utf8)), .integer(flags),
                .blob(record?.1 ?? other.file),
            ])
        case .schema:
            let changes = [
                "DROP INDEX IF EXISTS FilesDomainIdx", "ALTER TABLE Files RENAME TO Files2",
                "ALTER TABLE Files ADD COLUMN extra BLOB", "DROP TABLE Properties",
                "CREATE VIEW V AS SELECT * FROM Files", "CREATE TABLE T (x); DROP TABLE Files; ALTER TABLE T RENAME TO Files",
                "PRAGMA user_version = 99", "PRAGMA journal_mode = WAL",
                "CREATE TRIGGER t AFTER INSERT ON Files BEGIN DELETE FROM Files; END",
                "UPDATE Files SET flags = flags", "DELETE FROM Files",
                "INSERT INTO Files SELECT fileID || 'x', domain, relativePath, flags, file FROM Files",
            ]
            let change = changes.randomElement(using: &rng)!
            note("schema: \(change)")
            database.exec(change)
        default:
            break
        }
    }

    static let hostileIdentifiers = [
        "../x", "com.example.news/../../x", "", String(repeating: "a", count: 300), "com.example.news\n",
        "com.apple.springboard", ".", "..", "com.example.news.NudgeWidget", "group.com.example.news", "com.example.other",
        "a b", "com.example.ñews", "x\u{0}y", "com.example.news", "/etc", "com..example",
    ]

    /// Rewrites one value of a plist or of devicectl's manifest header, keeping the file well formed.
    private mutating func rewriteProperties(_ directory: String) throws {
        let id = Self.hostileIdentifiers.randomElement(using: &rng)!
        let odd: [Any] = [id, 7, ["x"], ["k": "v"], Data([1, 2]), true, Date(timeIntervalSince1970: -1e12)]
        let value = odd.randomElement(using: &rng)!
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            try editPlist(directory + "/Manifest.plist") { plist, rng in
                switch Int.random(in: 0..<6, using: &rng) {
                case 0:
                    var apps = plist["Applications"] as? [String: Any] ?? [:]
                    apps[id] = ["CFBundleIdentifier": Bool.random(using: &rng) ? id : "com.example.other", "Path": value]
                    plist["Applications"] = apps
                    return "Manifest.plist Applications[\(id.debugDescription)]"
                case 1:
                    plist["Applications"] = Bool.random(using: &rng)
                        ? value : Dictionary(uniqueKeysWithValues: (0..<3000).map { ("com.example.app\($0)", ["CFBundleIdentifier": "com.example.app\($0)"]) })
                    return "Manifest.plist Applications = \(type(of: plist["Applications"]!))"
                case 2:
                    var lockdown = plist["Lockdown"] as? [String: Any] ?? [:]
                    let key = ["UniqueDeviceID", "ProductVersion", "DeviceName", "ProductType"].randomElement(using: &rng)!
                    lockdown[key] = [value, "9.0", "10.2", "99.99.99", "abc", id].randomElement(using: &rng)!
                    plist["Lockdown"] = lockdown
                    return "Manifest.plist Lockdown.\(key) = \(lockdown[key]!)"
                case 3:
                    plist["IsEncrypted"] = !(plist["IsEncrypted"] as? Bool ?? false)
                    return "Manifest.plist IsEncrypted = \(plist["IsEncrypted"]!)"
                case 4:
                    let key = ["Lockdown", "Applications", "BackupKeyBag", "IsEncrypted", "ManifestKey"].randomElement(using: &rng)!
                    plist[key] = nil
                    return "Manifest.plist without \(key)"
                default:
                    guard var bag = plist["BackupKeyBag"] as? Data, bag.count > 12 else { return "Manifest.plist: no keybag" }
                    let at = Int.random(in: 0..<bag.count, using: &rng)
                    let cut = Bool.random(using: &rng)
                    if cut { bag = bag.prefix(at) } else { bag[at] = [0x00, 0xFF, 0x7F].randomElement(using: &rng)! }
                    plist["BackupKeyBag"] = bag
                    return "Manifest.plist BackupKeyBag \(cut ? "cut to" : "byte set at") \(at)"
                }
            }
        case 1:
            try editPlist(directory + "/Info.plist") { plist, rng in
                let apps: Any = [[id, "com.example.news", id], value, (0..<5000).map { "com.example.app\($0)" }]
                    .randomElement(using: &rng)!
                plist["Installed Applications"] = apps
                return "Info.plist Installed Applications = \(String(describing: apps).prefix(80))"
            }
        case 2:
            try editPlist(directory + "/Status.plist") { plist, rng in
                plist["SnapshotState"] = ["finished", "new", "uploading", value].randomElement(using: &rng)!
                return "Status.plist SnapshotState = \(plist["SnapshotState"]!)"
            }
        default:
            try editHeader(directory + "/devicectl-manifest.jsonl", value: value, id: id)
        }
    }

    /// Reads the plist at `path`, lets `edit` change it (returning the step's description), writes it back binary or
    /// (a third of the time) XML; a file that is not a readable plist is left as it is.
    private mutating func editPlist(
        _ path: String, _ edit: (inout [String: Any], inout SeededGenerator) -> String
    ) throws {
        guard let bytes = FuzzBytes.regularFile(path),
            var plist = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any]
        else { return note("\((path as NSString).lastPathComponent): not a plist, left as it is") }
        let step = edit(&plist, &rng)
        let format: PropertyListSerialization.PropertyListFormat = Int.random(in: 0..<3, using: &rng) == 0 ? .xml : .binary
        guard let data = try? PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0) else {
            return note("\(step): not writable as a plist")
        }
        try data.write(to: URL(fileURLWithPath: path))
        note(step + (format == .xml ? " (XML)" : ""))
    }

    /// Rewrites a value of the first line (the header) of devicectl's manifest, as JSON.
    private mutating func editHeader(_ path: String, value: Any, id: String) throws {
        guard let bytes = FuzzBytes.regularFile(path), let newline = bytes.firstIndex(of: 0x0A),
            var header = try? JSONSerialization.jsonObject(with: Data(bytes[..<newline])) as? [String: Any],
            var apps = header["apps"] as? [[String: Any]], !apps.isEmpty
        else { return note("devicectl-manifest.jsonl: no header, left as it is") }
        let json: Any = value is Data || value is Date ? id : value
        var app = apps[0]
        var widget = app["widget"] as? [String: Any] ?? [:]
        let step: String
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            app["bundleId"] = json
            step = "bundleId = \(json)"
        case 1:
            app["groups"] = [json]
            header["groups"] = [json]
            step = "groups = [\(json)]"
        case 2:
            let key = ["policy", "delaySeconds", "flagKey", "markerFileName", "title", "body"].randomElement(using: &rng)!
            widget[key] = [json, -1, Int64.max, "../../x", "", String(repeating: "w", count: 100_000)].randomElement(using: &rng)!
            app["widget"] = widget
            step = "widget \(key) = \(String(describing: widget[key]!).prefix(60))"
        case 3:
            apps = (0..<2000).map { ["bundleId": "com.example.app\($0)", "name": "App", "groups": []] }
            step = "2000 apps"
        default:
            header["widgets"] = [["app": json]]
            step = "widgets = [\(json)]"
        }
        if apps.count < 2000 { apps[0] = app }
        header["apps"] = apps
        guard let line = try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]) else {
            return note("devicectl-manifest.jsonl header \(step): not writable as JSON")
        }
        try (line + Data(bytes[newline...])).write(to: URL(fileURLWithPath: path))
        note("devicectl-manifest.jsonl header \(step)")
    }

    /// Adds one well-formed row (see `Operator.validRow`), with the directory rows above it that are missing, and
    /// its content file; a row already at its domain and path is replaced.
    private mutating func addValidRow(_ database: FuzzDatabase, _ directory: String) throws {
        let domains = [
            "HomeDomain", "MediaDomain", "HealthDomain", "CameraRollDomain", "AppDomain-com.example.news",
            "AppDomainGroup-group.com.example.news", "AppDomainPlugin-com.example.news.NudgeWidget",
            "AppDomain-com.example.other", "AppDomainPlugin-com.example.other.NudgeWidget", "RootDomain",
            "AppDomain-com.example.news.", "AppDomain-a", "AppDomainGroup-group." + String(repeating: "x", count: 200),
        ]
        let paths = [
            "Library/SpringBoard/IconState.plist", "Library/SpringBoard", "Library/Preferences/com.example.news.plist",
            "Library/Preferences/group.com.example.news.plist", ".com.apple.mobile_container_manager.metadata.plist",
            ".devicectl-manifest.jsonl", "Library/Caches/x", "tmp/x", "DeviceLocal/x", "Containers/Data/x", "Library",
            "Documents/a/b/c.txt", "Documents/new", "SpringBoard/IconState.plist", "Library/Preferences",
            "Containers", "Media/DCIM/x.jpg",
        ]
        let domain = domains.randomElement(using: &rng)!
        let path = paths.randomElement(using: &rng)!
        let kind = [BackupFileRecord.Kind.file, .file, .directory, .symlink].randomElement(using: &rng)!
        var data: [UInt8] = []
        var target: String?
        switch kind {
        case .file:
            let plists = contentFiles(directory).compactMap { FuzzBytes.regularFile($0.1) }
                .filter { $0.starts(with: Array("bplist00".utf8)) }
            data = Bool.random(using: &rng) ? (plists.randomElement(using: &rng) ?? []) : random(0...200)
        case .symlink:
            target = [
                "/var/mobile/Library/SpringBoard/IconState.plist", "/var/mobile/Library", "/var/mobile",
                "/var/mobile/../../etc/passwd", "/var/mobile/Library/../../../etc", "../../../../../../etc/passwd",
                "/private/var/mobile/Media", "/var/mobile/Containers/Data/Application", "Documents", "",
                "/var/containers/Bundle/Application", "/var/mobile/Library/SpringBoard/IconState.plist/x",
            ].randomElement(using: &rng)!
        case .directory:
            break
        }
        note("valid row \(domain)/\(path): \(kind)\(target.map { " -> \($0)" } ?? "")\(kind == .file ? " of \(data.count) bytes" : "")")
        let rows = database.rows()
        var have = Set(rows.map { $0.domain + "\u{0}" + $0.relativePath })
        var ancestors = [""]
        for component in path.split(separator: "/").dropLast() {
            ancestors.append(ancestors.count == 1 ? String(component) : ancestors.last! + "/" + component)
        }
        for ancestor in ancestors where !have.contains(domain + "\u{0}" + ancestor) {
            insert(database, domain: domain, path: ancestor, kind: .directory, data: [], target: nil)
            have.insert(domain + "\u{0}" + ancestor)
        }
        database.exec(
            "DELETE FROM Files WHERE fileID = '\(FileID.of(domain: domain, relativePath: path))'")
        insert(database, domain: domain, path: path, kind: kind, data: data, target: target)
        if kind == .file {
            let fileID = FileID.of(domain: domain, relativePath: path)
            let sub = directory + "/" + fileID.prefix(2)
            try? FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            removeTree(sub + "/" + fileID)
            try Data(data).write(to: URL(fileURLWithPath: sub + "/" + fileID))
        }
    }

    private func insert(
        _ database: FuzzDatabase, domain: String, path: String, kind: BackupFileRecord.Kind, data: [UInt8],
        target: String?
    ) {
        let mode: UInt32 = kind == .file ? 0o100644 : kind == .directory ? 0o40755 : 0o120755
        let record = BackupFileRecord(
            kind: kind, relativePath: path, mode: mode, userID: 501, groupID: 501, inode: 1, size: UInt64(data.count),
            birth: 1_790_000_000, lastModified: 1_790_000_000, lastStatusChange: 1_790_000_000,
            protectionClass: kind == .file ? 3 : 0, target: target)
        var encoder = KeyedRecordEncoder()
        let blob = encoder.withArchive(of: record) { Array($0) }
        let flags: Int64 = kind == .file ? 1 : kind == .directory ? 2 : 4
        database.insert([
            .text(Array(FileID.of(domain: domain, relativePath: path).utf8)), .text(Array(domain.utf8)),
            .text(Array(path.utf8)), .integer(flags), .blob(blob),
        ])
    }

    /// A text value: one of `choices`, or the current one with a byte changed.
    private mutating func pickText(_ choices: [String], _ current: String) -> FuzzValue {
        if Int.random(in: 0..<4, using: &rng) == 0 {
            var bytes = Array(current.utf8)
            if bytes.isEmpty { return .text([0xFF]) }
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = [0x2F, 0x2E, 0x00, 0xFF, 0xC3, 0x0A].randomElement(using: &rng)!
            return .text(bytes)
        }
        return .text(Array(choices.randomElement(using: &rng)!.utf8))
    }

    /// The row's record decoded and rewritten with one odd field (a size, a mode, a target, a path, attributes);
    /// nil when it does not decode.
    private mutating func rewrittenRecord(_ row: FuzzRow, _ other: FuzzRow, renamedTo path: String? = nil)
        -> (String, [UInt8])?
    {
        let kind: BackupFileRecord.Kind = row.flags == 2 ? .directory : row.flags == 4 ? .symlink : .file
        guard var record = try? KeyedArchiveReader.record(row.file, kind: kind) else { return nil }
        if let path { record.relativePath = path }
        let change: String
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:
            record.size = [0, 1, record.size + 1, record.size &- 1, 1 << 31, UInt64(Int64.max), .max].randomElement(using: &rng)!
            change = "Size \(record.size)"
        case 1:
            record.mode = [0o100644, 0o40755, 0o120755, 0o10644, 0o20644, 0o60644, 0o140755, 0o104755, 0o107777, 0, .max]
                .randomElement(using: &rng)!
            change = "Mode \(String(record.mode, radix: 8))"
        case 2:
            record.target = [
                "/etc/passwd", "../../../../../../etc/passwd", "/var/mobile/../../etc", "", "/", "/var/mobile",
                "/var/mobile/Library", "/private/var/mobile/Library/SpringBoard", String(repeating: "/x", count: 3000),
                "/var/mobile/Containers/Data/Application/../../../../../../tmp", nil,
            ].randomElement(using: &rng)!
            change = "Target \(record.target ?? "none")"
        case 3:
            record.relativePath = [other.relativePath, "../x", "/abs", "", record.relativePath + "/"].randomElement(using: &rng)!
            change = "RelativePath \(record.relativePath)"
        case 4:
            record.extendedAttributes = [
                [("com.apple.metadata:com_apple_backup_excludeItem", Array("bplist".utf8))],
                [("", [1])], [("a/b", [])], [("x", [UInt8](repeating: 7, count: 70_000))],
                (0..<300).map { ("k\($0)", [UInt8(truncatingIfNeeded: $0)]) },
            ].randomElement(using: &rng)!
            change = "\(record.extendedAttributes.count) attributes"
        case 5:
            record.lastModified = [Int64.max, .min, -1, 0, 253_402_300_800].randomElement(using: &rng)!
            record.birth = record.lastModified
            change = "times \(record.lastModified)"
        default:
            record.protectionClass = [-1, 0, 12, 1 << 40].randomElement(using: &rng)!
            record.userID = [0, .max].randomElement(using: &rng)!
            change = "ProtectionClass \(record.protectionClass), UserID \(record.userID)"
        }
        var encoder = KeyedRecordEncoder()
        return (change, encoder.withArchive(of: record) { Array($0) })
    }

    // MARK: - Files

    /// Replaces the file at `path` (a symlink out of the backup, a directory, a FIFO, nothing) or damages its bytes.
    private mutating func replaceOrDamage(_ path: String, name: String) throws {
        if Int.random(in: 0..<2, using: &rng) == 0 {
            let what = FuzzBytes.replace(
                path, symlinkTargets: [outside + "/" + Self.secretName, "/proc/self/environ"], using: &rng)
            return note("\(name): \(what)")
        }
        try damageBytes(of: path, name: name, header: false)
    }

    /// Flips, sets, cuts or grows the bytes of the file at `path` (Manifest.db's: perhaps its WAL mode bytes too).
    private mutating func damageBytes(of path: String, name: String, header: Bool) throws {
        guard let bytes = FuzzBytes.regularFile(path) else { return note("\(name): not a regular file, left as it is") }
        var (changed, step) = FuzzBytes.damaged(bytes, using: &rng)
        if header && changed.count > 19 && Int.random(in: 0..<6, using: &rng) == 0 {
            changed[18] = 2
            changed[19] = 2
            step += ", WAL header"
        }
        note("\(name): \(step)")
        try Data(changed).write(to: URL(fileURLWithPath: path))
    }

    private mutating func random(_ counts: ClosedRange<Int>) -> [UInt8] {
        FuzzBytes.random(counts, using: &rng)
    }

    /// The backup's content files (name for messages, path), sorted.
    private func contentFiles(_ directory: String) -> [(String, String)] {
        contentDirectories(directory).flatMap { sub in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + sub)) ?? []).sorted().map {
                (sub + "/" + $0, directory + "/" + sub + "/" + $0)
            }
        }
    }

    /// The backup's `xx` content directories, sorted.
    private func contentDirectories(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.count == 2 && $0.allSatisfy(\.isHexDigit)
        }.sorted()
    }

    private mutating func note(_ step: String) {
        steps.append(step)
    }
}
