// TarKit: the tar layer under backup, restore, verify and list: its own pax writer (`ArchiveWriter`, `PaxHeader`,
// `ArchiveEntry`), libarchive's compressors (`StreamCompressor`, `Compression`: loaded only to compress) and a reader for hostile input (`ArchiveReader`: in-process
// decoders only, `GzipDecoder`, `DecoderWindowCheck`, the framing audit in `ArchiveReader+Framing`, the
// `ExpansionLimit`), and member names (`MemberPath`). It knows nothing of devices or manifests (the reader is told
// the metadata member's name: `ArchiveReader.Options.metadataMember`).
// Threads: a reader is used by one thread; a writer by one thread, with `StreamCompressor`'s thread behind it when
// the stream is compressed.
