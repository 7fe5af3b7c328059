// HashShareTests: the reading thread's share of the hashing follows the threads' waits on each other.
@testable import BackupKit
import Testing

@Suite struct HashShareTests {
    /// The files of `count` the share gives the reading thread.
    private func taken(_ share: inout HashShare, of count: Int) -> Int {
        (0..<count).filter { _ in share.readerHashesNext() }.count
    }

    @Test func startsWithNoShareAndTheFirstObservationOnlyRecords() {
        var share = HashShare()
        #expect(share.fraction == 0)
        #expect(taken(&share, of: 100) == 0)
        share.observe(time: 1_000_000, readerWaited: 900_000, formatterWaited: 0)
        #expect(share.fraction == 0)
    }

    @Test func aReaderThatWaitsTakesMoreAndAFormatterThatWaitsGivesItBack() {
        var share = HashShare()
        share.observe(time: 0, readerWaited: 0, formatterWaited: 0)
        // The reader slept 40% of an interval: the share moves by gain × 0.4.
        share.observe(time: 10_000, readerWaited: 4_000, formatterWaited: 0)
        #expect(abs(share.fraction - HashShare.gain * 0.4) < 1e-9)
        // Both slept alike: no change.
        share.observe(time: 20_000, readerWaited: 7_000, formatterWaited: 3_000)
        #expect(abs(share.fraction - HashShare.gain * 0.4) < 1e-9)
        // The formatter slept 20% more than the reader: back by gain × 0.2.
        share.observe(time: 30_000, readerWaited: 7_000, formatterWaited: 5_000)
        #expect(abs(share.fraction - HashShare.gain * 0.2) < 1e-9)
    }

    @Test func theShareStaysBetweenNoneAndAll() {
        var share = HashShare()
        var time: UInt64 = 0, waited = (reader: UInt64(0), formatter: UInt64(0))
        share.observe(time: time, readerWaited: 0, formatterWaited: 0)
        // Ten intervals in which one thread sleeps throughout.
        func intervals(readerSleeps: Bool) {
            for _ in 0..<10 {
                time += 1000
                if readerSleeps { waited.reader += 1000 } else { waited.formatter += 1000 }
                share.observe(time: time, readerWaited: waited.reader, formatterWaited: waited.formatter)
            }
        }
        intervals(readerSleeps: true)
        #expect(share.fraction == 1)
        #expect(taken(&share, of: 50) == 50)
        intervals(readerSleeps: false)
        #expect(share.fraction == 0)
        #expect(taken(&share, of: 50) == 0)
        // A clock that did not advance changes nothing.
        share.observe(time: time, readerWaited: waited.reader + 5000, formatterWaited: waited.formatter)
        #expect(share.fraction == 0)
    }

    @Test func theFilesTakenAreSpreadEvenly() {
        var share = HashShare()
        share.observe(time: 0, readerWaited: 0, formatterWaited: 0)
        // gain × 1.0 of the interval: half of the files, every other one.
        share.observe(time: 1000, readerWaited: UInt64(1000 / (2 * HashShare.gain)), formatterWaited: 0)
        #expect(abs(share.fraction - 0.5) < 1e-9)
        let pattern = (0..<8).map { _ in share.readerHashesNext() }
        #expect(pattern == [false, true, false, true, false, true, false, true])
    }
}
