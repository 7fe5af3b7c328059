// DescriptorTableTests: `Kernel.reserveDescriptorSlots` grows the descriptor table to the slots asked for, within
// RLIMIT_NOFILE, and closes the descriptor that grew it. (A fresh process's table, grown from 64: DescriptorTableEndToEndTests.)
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct DescriptorTableTests {
    /// This process's descriptor slots (`FDSize` in /proc/self/status).
    static func slots() throws -> Int { try #require(ProcFiles.statusField("FDSize")) }

    @Test func growsTheTableWithinTheLimit() throws {
        var limit = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let before = try Self.slots()
        // Twice what this process has, when the limit allows it (else the limit: the call asks for no more).
        let asked = before * 2
        let reachable = Int(min(UInt64(asked), UInt64(limit.rlim_cur)))
        #expect(Kernel.reserveDescriptorSlots(asked) == (reachable > 64))
        #expect(try Self.slots() >= reachable)
        // The copy that grew it is closed.
        #expect(fcntl(Int32(reachable - 1), F_GETFD) == -1 && errno == EBADF)
    }

    @Test func sixtyFourSlotsOrFewerAreNoWork() {
        #expect(!Kernel.reserveDescriptorSlots(64))
        #expect(!Kernel.reserveDescriptorSlots(0))
        #expect(!Kernel.reserveDescriptorSlots(-5))
    }
}
