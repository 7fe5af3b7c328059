// TarSink: the pax tar format behind `FormatSink`: TarKit's pax writer, optionally compressed.
import TarKit

/// Writes the members as a POSIX pax tar stream (`ArchiveWriter`), reusing one `ArchiveEntry`. A file with holes
/// becomes a GNU sparse 1.0 member: only its data regions are stored.
final class TarSink: FormatSink {
    private let writer: ArchiveWriter
    private let entry = ArchiveEntry()

    /// Starts a tar stream on `descriptor` (borrowed), compressed with `compression` at `level`.
    init(descriptor: Int32, compression: Compression, level: Int?, name: String) throws(BackupError) {
        do {
            writer = try ArchiveWriter(descriptor: descriptor, compression: compression, level: level, name: name)
        } catch { throw .archive(error) }
    }

    func begin(_ member: SinkMember) throws(BackupError) {
        entry.clear()
        entry.setPath(member.path.baseAddress!)
        entry.setMetadata(
            mode: member.mode, uid: member.uid, gid: member.gid, mtime: member.mtimeSeconds,
            nanoseconds: member.mtimeNanoseconds, size: member.kind == .file ? Int64(member.size) : 0)
        if let link = member.link {
            if member.kind == .symlink {
                entry.setSymlink(link.baseAddress!)
            } else {
                entry.setHardlink(link.baseAddress!)
            }
        }
        member.forEachAttribute { name, value in entry.addExtendedAttribute(name: name.baseAddress!, value: value) }
        do {
            if let regions = member.dataRegions { try entry.setDataRegions(regions) }
            try writer.writeHeader(entry)
        } catch { throw .archive(error) }
    }

    func write(_ data: UnsafeRawBufferPointer) throws(BackupError) {
        do { try writer.writeData(data) } catch { throw .archive(error) }
    }

    func finish() throws(BackupError) {
        do { try writer.close() } catch { throw .archive(error) }
    }

    var bytesWritten: UInt64 { UInt64(writer.bytesWritten) }

    /// The pax writer refuses what it cannot write; it has nothing to note.
    var notes: [String] { [] }
}
