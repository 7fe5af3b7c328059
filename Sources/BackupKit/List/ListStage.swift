// Stage: list (`devicectl list`: the members, and the manifest's header and totals).
//
// Role: `ArchiveListing` reads the source (../Source) once, hands each member to the caller and reads the manifest
// by restore's rules (../Check: `ManifestCheck`, without the member comparison).
// Threads: the caller's thread only.
