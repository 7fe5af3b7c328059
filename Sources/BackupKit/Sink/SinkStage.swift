// Stage: format sink (backup, after the batches).
//
// Role: `FormatSink` is what a backup format does with the members the formatting thread hands it, in archive
// order, and with the manifest last; `TarSink` is the pax tar implementation (TarKit's `ArchiveWriter`);
// `MobileSyncSink` the MobileSync directory (Manifest.db and content files named by SHA-1, `DomainMap` placing
// each path); the walk, the exclusion rules, hashing and the manifest are the same for both. A file with holes
// comes with its data regions (`SinkMember.dataRegions`) and all its bytes, zeros in the holes: `TarSink` makes it
// a sparse member, `MobileSyncSink` stores every byte.
// Threads: called on the formatting thread only; `TarSink`'s compressor (TarKit's `StreamCompressor`) has a
// thread of its own when the stream is compressed; `MobileSyncSink`'s content files have two (`ContentFileWriters`,
// a file each in turn) and its Manifest.db rows (`ManifestRowWriter`) one, which also closes (and encrypts) the
// database once every member is begun (`membersComplete`: a MobileSync backup reads its large files after the walk).
// A format that stores members in order is never handed deferred files (`resume` fails).
