// MobileSyncCheck: reads a MobileSync backup directory with Python's standard library alone (sqlite3, plistlib,
// hashlib): an independent reader of what devicectl writes, checking the layout rules every reader relies on.
import Foundation
import TestSupport
import Testing

enum MobileSyncCheck {
    /// What the reader found: the rows, the three plists' keys of interest, and every rule broken.
    struct Report: Decodable {
        struct Row: Decodable, Equatable {
            let domain: String
            let path: String
            let flags: Int
            let mode: Int
            let size: Int
            let target: String?
            let attributes: [String: String]
            /// SHA-256 of the content file, for files.
            let sha256: String?
        }

        let rows: [Row]
        let problems: [String]
        let udid: String
        let productVersion: String
        let isEncrypted: Bool
        let snapshotState: String
        let applications: [String]
        let installedApplications: [String]
        let headerBytes: [Int]
        let files: [String]

        func row(_ domain: String, _ path: String) -> Row? { rows.first { $0.domain == domain && $0.path == path } }
        var domains: Set<String> { Set(rows.map(\.domain)) }
    }

    static let script = #"""
        import hashlib, json, os, plistlib, sqlite3, sys
        top = sys.argv[1]
        problems = []
        header = open(os.path.join(top, 'Manifest.db'), 'rb').read(100)
        db = sqlite3.connect('file:' + os.path.join(top, 'Manifest.db') + '?mode=ro&immutable=1', uri=True)
        rows, seen, content = [], set(), set()
        for fid, domain, path, flags, blob in db.execute('SELECT fileID, domain, relativePath, flags, file FROM Files'):
            if fid != hashlib.sha1((domain + '-' + path).encode()).hexdigest(): problems.append('fileID of ' + domain + '/' + path)
            archive = plistlib.loads(blob)
            objects = archive['$objects']
            root = objects[1]
            if archive['$top']['root'].data != 1: problems.append('root not at index 1: ' + path)
            if objects[root['$class'].data]['$classname'] != 'MBFile': problems.append('class of ' + path)
            if objects[root['RelativePath'].data] != path: problems.append('RelativePath of ' + path)
            target = objects[root['Target'].data] if 'Target' in root else None
            attributes = {}
            if 'ExtendedAttributes' in root:
                attributes = {k: v.hex() for k, v in plistlib.loads(objects[root['ExtendedAttributes'].data]).items()}
            digest = None
            if flags == 1:
                name = os.path.join(top, fid[:2], fid)
                data = open(name, 'rb').read()
                if len(data) != root['Size']: problems.append('size of ' + path)
                digest = hashlib.sha256(data).hexdigest()
                content.add(fid[:2] + '/' + fid)
            mode_type = root['Mode'] & 0o170000
            if {1: 0o100000, 2: 0o040000, 4: 0o120000}.get(flags) != mode_type: problems.append('mode of ' + path)
            seen.add((domain, path))
            rows.append({'domain': domain, 'path': path, 'flags': flags, 'mode': root['Mode'], 'size': root['Size'],
                         'target': target, 'attributes': attributes, 'sha256': digest})
        for domain, path in seen:
            parent = path.rsplit('/', 1)[0] if '/' in path else ''
            if path and (domain, parent) not in seen: problems.append('no parent row for ' + domain + '/' + path)
            if (domain, '') not in seen: problems.append('no root row for ' + domain)
        files = []
        for directory, _, names in os.walk(top):
            for name in names:
                files.append(os.path.relpath(os.path.join(directory, name), top))
        for name in files:
            if len(name) == 43 and name[2] == '/' and name not in content: problems.append('stray content file ' + name)
        manifest = plistlib.load(open(os.path.join(top, 'Manifest.plist'), 'rb'))
        info = plistlib.load(open(os.path.join(top, 'Info.plist'), 'rb'))
        status = plistlib.load(open(os.path.join(top, 'Status.plist'), 'rb'))
        if not isinstance(manifest['BackupKeyBag'], bytes): problems.append('no keybag')
        print(json.dumps({'rows': rows, 'problems': problems, 'udid': manifest['Lockdown']['UniqueDeviceID'],
            'productVersion': manifest['Lockdown']['ProductVersion'], 'isEncrypted': manifest['IsEncrypted'],
            'snapshotState': status['SnapshotState'], 'applications': sorted(manifest['Applications'].keys()),
            'installedApplications': info['Installed Applications'], 'headerBytes': list(header[16:20]),
            'files': sorted(files)}))
        """#

    /// Reads the backup at `directory`; records a failure when Python cannot.
    static func read(_ directory: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Report {
        let result = try Shell.run("python3", ["-c", script, directory])
        #expect(result.status == 0, "python3: \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Report.self, from: result.stdoutData)
    }

    /// SHA-256 of a file, as the report gives it.
    static func sha256(of path: String) throws -> String {
        TreeSnapshot.sha256(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
