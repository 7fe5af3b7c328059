// Stage: backup (the engine and its batching, between the walk and the format sink).
//
// Role: `BackupEngine` settles the output (../Output), the device lock and the manifest header
// (`DeviceInventory`), then `BackupRun` wires the stages: walk (../Walk) -> `ArchivingVisitor` (reads each file
// once, checks it did not change, packs `BatchRecord`s into `Batch`es; of a file with holes only the data, each hole
// a `.hole` record; a MobileSync backup's large files read after the walk, their members packed in place:
// `BatchRecord.deferred`) -> `BatchPipe` -> `BatchConsumer` (hashes with `FileHasher`, holes as zeros, manifest
// lines, members digest) -> the format sink (../Sink) -> the manifest, last.
// Threads: the reading thread walks, reads and packs; `BatchConsumer` runs on a thread of its own for a plain tar
// (64 batches in flight; 8 for a MobileSync backup) or inline on the reading thread when compressed
// (`BackupEngine.formatsInline`), where the compressor has the second core. `HashPlacement` says which of them
// hashes a file.
