// BackupKit: the backup and restore engine (tar via libarchive, exclusions, manifest, contained restore).
