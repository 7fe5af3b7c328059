// MobileSyncKit: the MobileSync backup format (Finder, iTunes, the Apple Devices app, idevicebackup2), as
// `../shared/reference/mobilesync-backup-format.md` describes it, with no knowledge of devicectl's device.
//
// A backup directory holds Info.plist, Manifest.plist, Status.plist, Manifest.db (SQLite: one row per file,
// directory and symlink, each with an NSKeyedArchiver `MBFile` record) and content files at `xx/<fileID>`,
// fileID = SHA-1 of `domain-relativePath`. This module writes those pieces: PropertyListKit's writer (bplist00,
// with NSKeyedArchiver UIDs), `BackupFileRecord` (the MBFile blob), `FileID`, `ManifestDatabaseWriter` (SQLite,
// one transaction, closed with no sidecar files), `BackupKeyBag` (the keybag's TLVs) and `BackupProperties`
// (the three plists). BackupKit's `MobileSyncSink` maps a device root onto domains and drives them.
