// ForeignBackup: MobileSync backups made by a different route than devicectl's writer: Python's standard library
// (sqlite3, plistlib with its UIDs, hashlib) following the reference's layout, in the form idevicebackup2 leaves
// (XML Info.plist, a WAL-mode Manifest.db), plus one hostile variation at a time.
import Foundation
import TestSupport
import Testing

enum ForeignBackup {
    /// Writes a backup to `directory` with `mutation` applied ("none" for a good one).
    static func make(_ directory: String, mutation: String = "none", sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let result = try Shell.run("python3", ["-c", script, directory, mutation])
        #expect(result.status == 0, "python3: \(result.stderr)", sourceLocation: sourceLocation)
    }

    /// The rows of a good backup: (domain, path, flags).
    static let rows: [(String, String, Int)] = [
        ("AppDomain-com.example.app", "", 2), ("AppDomain-com.example.app", "Documents", 2),
        ("AppDomain-com.example.app", "Documents/link", 4), ("AppDomain-com.example.app", "Documents/notes.txt", 1),
        ("AppDomainGroup-group.x", "", 2), ("AppDomainGroup-group.x", "Library", 2),
        ("AppDomainGroup-group.x", "Library/Preferences", 2),
        ("AppDomainGroup-group.x", "Library/Preferences/group.x.plist", 1),
        ("HomeDomain", "", 2), ("HomeDomain", "Library", 2), ("HomeDomain", "Library/SpringBoard", 2),
        ("HomeDomain", "Library/SpringBoard/IconState.plist", 1),
    ]

    static let script = #"""
        import hashlib, os, plistlib, sqlite3, sys
        from plistlib import UID
        out, mutation = sys.argv[1], sys.argv[2]
        os.makedirs(out)
        B = plistlib.FMT_BINARY
        def fid(domain, path): return hashlib.sha1((domain + '-' + path).encode()).hexdigest()
        def blob(path, mode, size, target=None, cls='MBFile', extra=None):
            objects = ['$null', None, path]
            root = {'LastModified': 1700000000, 'Flags': 0, 'GroupID': 501, 'LastStatusChange': 1700000000,
                    'Birth': 1700000000, 'ProtectionClass': 3 if mode & 0o170000 == 0o100000 else 0,
                    'InodeNumber': 7, 'Mode': mode, 'Size': size, 'UserID': 501, 'RelativePath': UID(2)}
            if target is not None:
                root['Target'] = UID(len(objects)); objects.append(target)
            if extra: root.update(extra)
            root['$class'] = UID(len(objects)); objects.append({'$classes': [cls, 'NSObject'], '$classname': cls})
            objects[1] = root
            return plistlib.dumps({'$version': 100000, '$archiver': 'NSKeyedArchiver', '$top': {'root': UID(1)},
                                   '$objects': objects}, fmt=B)
        D, F, L = 0o40755, 0o100644, 0o120755
        files = {
            ('HomeDomain', 'Library/SpringBoard/IconState.plist'): plistlib.dumps({'iconLists': [['com.example.app']]}, fmt=B),
            ('AppDomainGroup-group.x', 'Library/Preferences/group.x.plist'): plistlib.dumps({'FeatureEnabled': True}, fmt=B),
            ('AppDomain-com.example.app', 'Documents/notes.txt'): b'hello\n',
        }
        rows = []
        for domain, dirs in [('HomeDomain', ['', 'Library', 'Library/SpringBoard']),
                             ('AppDomainGroup-group.x', ['', 'Library', 'Library/Preferences']),
                             ('AppDomain-com.example.app', ['', 'Documents'])]:
            for d in dirs: rows.append([fid(domain, d), domain, d, 2, blob(d, D, 0)])
        for (domain, path), data in files.items():
            rows.append([fid(domain, path), domain, path, 1, blob(path, F, len(data))])
        link = '/var/mobile/Containers/Data/Application/0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0/Library'
        rows.append([fid('AppDomain-com.example.app', 'Documents/link'), 'AppDomain-com.example.app', 'Documents/link', 4,
                     blob('Documents/link', L, 0, target=link)])
        def bad(domain, path, flags=1, mode=F, **kw):
            data = kw.pop('data', b'x')
            row = [kw.pop('fileid', fid(domain, path)), domain, path, flags, kw.pop('record', None) or blob(path, mode, len(data))]
            rows.append(row)
            if flags == 1: files[(domain, path)] = data
        notes = ('AppDomain-com.example.app', 'Documents/notes.txt')
        if mutation == 'dotdot': bad('AppDomain-com.example.app', 'Documents/../../../etc/x')
        if mutation == 'absolute': bad('HomeDomain', '/etc/passwd')
        if mutation == 'slash-domain': bad('AppDomain-a/../b', 'Documents')
        if mutation == 'nul': bad('AppDomain-com.example.app', 'Documents/a\x00b')
        if mutation == 'flags': bad('AppDomain-com.example.app', 'Documents/odd', flags=8)
        if mutation == 'fileid': bad('AppDomain-com.example.app', 'Documents/odd', fileid='0' * 40)
        if mutation == 'blob-garbage': bad('AppDomain-com.example.app', 'Documents/odd', record=b'not a plist at all, no')
        if mutation == 'blob-deep':
            deep = []
            for _ in range(40): deep = [deep]
            bad('AppDomain-com.example.app', 'Documents/odd', record=blob('Documents/odd', F, 1, extra={'X': deep}))
        if mutation == 'blob-huge':
            bad('AppDomain-com.example.app', 'Documents/odd', record=blob('Documents/odd', F, 1, extra={'X': b'\0' * 200000}))
        if mutation == 'blob-class': bad('AppDomain-com.example.app', 'Documents/odd', record=blob('Documents/odd', F, 1, cls='NSString'))
        if mutation == 'blob-path': bad('AppDomain-com.example.app', 'Documents/odd', record=blob('Documents/other', F, 1))
        if mutation == 'blob-mode': bad('AppDomain-com.example.app', 'Documents/odd', record=blob('Documents/odd', D, 1))
        if mutation == 'no-parent': bad('AppDomain-com.example.app', 'Orphan/dir/file')
        db = sqlite3.connect(os.path.join(out, 'Manifest.db'))
        db.execute('PRAGMA auto_vacuum=INCREMENTAL'); db.execute('PRAGMA user_version=2')
        db.execute('PRAGMA journal_mode=WAL')
        db.execute('CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)')
        db.execute('CREATE INDEX FilesDomainIdx ON Files(domain)')
        db.execute('CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)')
        for row in rows:
            if mutation == 'flags-text' and row[2] == 'Documents': row[3] = 'two'
            db.execute('INSERT INTO Files VALUES (?, ?, ?, ?, ?)', row)
        db.commit(); db.execute('PRAGMA wal_checkpoint(TRUNCATE)'); db.close()
        for (domain, path), data in files.items():
            name = fid(domain, path)
            os.makedirs(os.path.join(out, name[:2]), exist_ok=True)
            target = os.path.join(out, name[:2], name)
            if (domain, path) == notes and mutation == 'content-missing': continue
            if (domain, path) == notes and mutation == 'content-short': data = data[:-1]
            if (domain, path) == notes and mutation == 'content-long': data = data + b'!'
            if (domain, path) == notes and mutation == 'content-symlink': os.symlink('/etc/hostname', target); continue
            open(target, 'wb').write(data)
        if mutation == 'content-stray':
            os.makedirs(os.path.join(out, 'ab'), exist_ok=True)
            open(os.path.join(out, 'ab', 'ab' + '1' * 38), 'wb').write(b'stray')
        manifest = {'BackupKeyBag': b'VERS\0\0\0\x04\0\0\0\x05', 'IsEncrypted': mutation == 'db-encrypted', 'Version': '10.0',
                    'Lockdown': {'ProductVersion': '14.3', 'UniqueDeviceID': '00008030-001A2B3C4D5E6F70',
                                 'DeviceName': 'Test iPhone', 'ProductType': 'iPhone12,1'},
                    'Applications': {'com.example.app': {'CFBundleIdentifier': 'com.example.app', 'CFBundleVersion': '7',
                                     'Path': '/var/containers/Bundle/Application/X/App.app'}}}
        open(os.path.join(out, 'Manifest.plist'), 'wb').write(plistlib.dumps(manifest, fmt=B))
        info = {'Device Name': 'Test iPhone', 'Installed Applications': ['com.example.app'], 'Product Version': '14.3',
                'Target Identifier': '00008030-001A2B3C4D5E6F70'}
        open(os.path.join(out, 'Info.plist'), 'wb').write(plistlib.dumps(info))
        status = {'SnapshotState': 'new' if mutation == 'status-new' else 'finished', 'Version': '3.3', 'IsFullBackup': True}
        open(os.path.join(out, 'Status.plist'), 'wb').write(plistlib.dumps(status, fmt=B))
        if mutation in ('db-garbage', 'db-encrypted'):
            open(os.path.join(out, 'Manifest.db'), 'wb').write(os.urandom(8192))
        if mutation == 'db-wal': open(os.path.join(out, 'Manifest.db-wal'), 'wb').write(b'')
        if mutation == 'db-symlink':
            os.rename(os.path.join(out, 'Manifest.db'), os.path.join(out, '..', 'elsewhere.db'))
            os.symlink(os.path.join('..', 'elsewhere.db'), os.path.join(out, 'Manifest.db'))
        if mutation == 'manifest-garbage': open(os.path.join(out, 'Manifest.plist'), 'wb').write(b'bplist00' + b'\xff' * 60)
        if mutation == 'manifest-huge':
            with open(os.path.join(out, 'Manifest.plist'), 'wb') as f: f.truncate(17 << 20)
        if mutation == 'info-entity':
            open(os.path.join(out, 'Info.plist'), 'wb').write(b'<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><plist version="1.0"><dict><key>Device Name</key><string>&b;</string></dict></plist>')
        """#
}
