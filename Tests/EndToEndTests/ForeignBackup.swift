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
        if mutation == 'iconstate-garbage':
            good = files[('HomeDomain', 'Library/SpringBoard/IconState.plist')]
            files[('HomeDomain', 'Library/SpringBoard/IconState.plist')] = b'bplist00' + b'\xff' * (len(good) - 8)
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
        if mutation == 'times-extreme':
            bad('AppDomain-com.example.app', 'Documents/old', record=blob('Documents/old', F, 1, extra={
                'LastModified': 2**63 - 1, 'Birth': -2**63, 'LastStatusChange': -2**63}))
        if mutation == 'system-domains':
            for domain, dirs in [('RootDomain', ['', 'Library']), ('HealthDomain', ['', 'Health']), ('KeychainDomain', [''])]:
                for d in dirs: rows.append([fid(domain, d), domain, d, 2, blob(d, D, 0)])
            for domain, path, data in [('RootDomain', 'Library/locationd.db', b'root'),
                                       ('KeychainDomain', 'keychain-backup.plist', b'keys'),
                                       ('HealthDomain', 'Health/healthdb.sqlite', b'health')]:
                files[(domain, path)] = data
                rows.append([fid(domain, path), domain, path, 1, blob(path, F, len(data))])
            for path, target in [('Library/SpringBoard/home-link', '/var/mobile/Library/SpringBoard/IconState.plist'),
                                 ('Library/etc-link', '/etc/passwd'), ('Library/up-link', '../../etc/passwd')]:
                rows.append([fid('HomeDomain', path), 'HomeDomain', path, 4, blob(path, L, 0, target=target)])
        if mutation == 'domains-collide':
            # MediaDomain shares ROOT with HomeDomain: its file stands where HomeDomain's directory is.
            for d in ['', 'Library']: rows.append([fid('MediaDomain', d), 'MediaDomain', d, 2, blob(d, D, 0)])
            bad('MediaDomain', 'Library/SpringBoard', data=b'in the way')
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

    /// Encrypts the plain backup at `directory` in place as a device would, with Python's `cryptography` (the
    /// oracle venv's): a keybag (two stages, or one when `stages` is 1: pre-iOS 10.2), class keys wrapped with the
    /// password's key, every file under its own key, Manifest.db under class 4. `mutation` "truncated" cuts one
    /// content file short by a byte.
    static func encrypt(
        _ directory: String, password: String, stages: Int = 2, mutation: String = "none",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try Shell.run(
            MobileSyncInteropTests.python, ["-c", encryptor, directory, password, String(stages), mutation])
        #expect(result.status == 0, "python: \(result.stderr)", sourceLocation: sourceLocation)
    }

    static let encryptor = #"""
        import hashlib, os, plistlib, sqlite3, struct, sys
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.keywrap import aes_key_wrap
        top, password, stages, mutation = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3]), sys.argv[4]
        def cbc(key, data):
            p = padding.PKCS7(128).padder(); data = p.update(data) + p.finalize()
            e = Cipher(algorithms.AES(key), modes.CBC(b'\0' * 16)).encryptor()
            return e.update(data) + e.finalize()
        def tlv(tag, value):
            if isinstance(value, int): value = struct.pack('>I', value)
            return tag.encode() + struct.pack('>I', len(value)) + value
        salt, dpsl = os.urandom(20), os.urandom(20)
        secret = hashlib.pbkdf2_hmac('sha256', password, dpsl, 1000, 32) if stages == 2 else password
        kek = hashlib.pbkdf2_hmac('sha1', secret, salt, 100, 32)
        bag = tlv('VERS', 4) + tlv('TYPE', 1) + tlv('UUID', os.urandom(16)) + tlv('HMCK', bytes(40)) + tlv('WRAP', 0)
        bag += tlv('SALT', salt) + tlv('ITER', 100)
        if stages == 2: bag += tlv('DPWT', 1) + tlv('DPIC', 1000) + tlv('DPSL', dpsl)
        keys = {}
        for number in range(1, 12):
            keys[number] = os.urandom(32)
            bag += tlv('UUID', os.urandom(16)) + tlv('CLAS', number) + tlv('WRAP', 2 if number <= 4 else 3)
            bag += tlv('KTYP', 0) + tlv('WPKY', aes_key_wrap(kek, keys[number]))
        db = sqlite3.connect(os.path.join(top, 'Manifest.db'))
        rows = db.execute('SELECT fileID, file FROM Files WHERE flags = 1').fetchall()
        for index, (fid, blob) in enumerate(rows):
            archive = plistlib.loads(blob)
            objects = archive['$objects']
            root = objects[1]
            key = os.urandom(32)
            objects.append({'NS.data': struct.pack('<I', 3) + aes_key_wrap(keys[3], key), '$class': plistlib.UID(len(objects) + 1)})
            root['EncryptionKey'] = plistlib.UID(len(objects) - 1)
            objects.append({'$classes': ['NSMutableData', 'NSData', 'NSObject'], '$classname': 'NSMutableData'})
            root['ProtectionClass'] = 3
            db.execute('UPDATE Files SET file = ? WHERE fileID = ?', (plistlib.dumps(archive, fmt=plistlib.FMT_BINARY), fid))
            name = os.path.join(top, fid[:2], fid)
            encrypted = cbc(key, open(name, 'rb').read())
            if mutation == 'truncated' and index == 0: encrypted = encrypted[:-1]
            open(name, 'wb').write(encrypted)
        db.commit(); db.close()
        manifest = plistlib.load(open(os.path.join(top, 'Manifest.plist'), 'rb'))
        manifest['BackupKeyBag'] = bag
        manifest['IsEncrypted'] = True
        if stages == 2:
            mkey = os.urandom(32)
            manifest['ManifestKey'] = struct.pack('<I', 4) + aes_key_wrap(keys[4], mkey)
            path = os.path.join(top, 'Manifest.db')
            data = open(path, 'rb').read()
            open(path, 'wb').write(cbc(mkey, data))
        else:
            manifest['Lockdown']['ProductVersion'] = '10.1'
        open(os.path.join(top, 'Manifest.plist'), 'wb').write(plistlib.dumps(manifest, fmt=plistlib.FMT_BINARY))
        """#
}
