// Stage: manifest (`.devicectl-manifest.jsonl`, both sides).
//
// Role: the records (`Manifest`: header, file, totals, members lines; `Manifest.MemberDigest`) and their
// validation. Writing: `ManifestWriter` (file lines spill past 256 KiB, written last in one hashed pass),
// every line through SystemKit's `JSONText` (`Manifest+JSONLine`; timestamps: DeviceKit's `Timestamp`). Reading: `LineSplitter`, `ManifestLine` (a byte-exact fast path for the file lines
// devicectl writes, JSONDecoder for any other spelling: `ManifestFileFields`), `DigestLog` (the digests restore
// and verify logged, read back in order by `ManifestCheck`).
// Threads: the backup's formatting thread writes; restore's and verify's reading thread reads.
