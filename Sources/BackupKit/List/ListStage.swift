// Stage: list (`devicectl list`: the members, and the manifest's header and totals).
//
// Role: `ArchiveListing` reads the source (../Source) once, hands each member to the caller and reads the manifest
// by restore's rules (../Check: `ManifestCheck`, without the member comparison).
// Threads: a tar archive is read on a worker thread (`ListReadAhead`: the parsing, the framing audit, the manifest's
// digest) and its members and manifest bytes handed to the caller's thread in batches, in order, where `each` formats
// the members and `ManifestCheck` reads the manifest's lines; a MobileSync backup (`MobileSyncListing`) on the
// caller's thread only.
