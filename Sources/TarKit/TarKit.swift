// TarKit: the tar layer under backup, restore, verify and list: its own pax writer (`ArchiveWriter`, `PaxHeader`,
// `ArchiveEntry`), the compressing stage (`StreamCompressor`, `Compression`: zstd frames of its own through
// `ZstdFrameEncoder`, gzip and xz through libarchive's filters) and a reader for hostile input (`ArchiveReader`:
// in-process decoders only, `GzipDecoder`, `LzmaDecoder`, `DecoderWindowCheck`, the framing audit in
// `ArchiveReader+Framing`, the `ExpansionLimit`), and member names (`MemberPath`). It knows nothing of devices or manifests (the reader is told
// the metadata member's name: `ArchiveReader.Options.metadataMember`).
// Threads: a reader is used by one thread; a writer by one thread, with `StreamCompressor`'s thread behind it when
// the stream is compressed.
