// SparseNoteTests: a tar whose sparse files hold more than the readers' default cap (64 GiB with their holes) is
// written with a warning that says restore refuses it and what verify and list need.
@testable import BackupKit
import Testing

@Suite struct SparseNoteTests {
    @Test func onlyATarPastTheCapIsWarnedAbout() throws {
        let cap: UInt64 = 1 << 36
        #expect(BackupRun.sparseNote(cap, format: .tar) == nil)
        #expect(BackupRun.sparseNote(cap + 1, format: .mobileSync) == nil, "a MobileSync backup stores every byte")
        let note = try #require(BackupRun.sparseNote(cap + 1, format: .tar))
        #expect(note.contains("\(cap + 1) bytes") && note.contains("restore") && note.contains("--max-bytes \(cap + 1)"))
    }
}
