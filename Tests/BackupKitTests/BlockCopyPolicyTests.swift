// BlockCopyPolicyTests: a zstd block is filled with streaming stores while the median of the latest line-latency
// readings says the compressing thread's cache is far, and with plain stores otherwise; a pinned mode never changes.
import Testing

@testable import TarKit

@Suite struct BlockCopyPolicyTests {
    static let near = 55.0
    static let far = 120.0

    @Test func theMeasuredModeStartsWithPlainStoresAndFollowsTheMedianOfTheLatestReadings() {
        var policy = BlockCopyPolicy.measured
        #expect(!policy.streaming)
        for _ in 0..<BlockCopyPolicy.window { policy.observe(latency: Self.near) }
        #expect(!policy.streaming)
        // One slow reading (an interrupt, a page fault) among near ones changes nothing.
        policy.observe(latency: 5_000)
        #expect(!policy.streaming)
        // A majority of the window far: streaming stores from the next block on.
        policy.observe(latency: Self.far)
        #expect(!policy.streaming)
        policy.observe(latency: Self.far)
        #expect(policy.streaming)
        // And back once most of the window is near again.
        policy.observe(latency: Self.near)
        #expect(policy.streaming)
        policy.observe(latency: Self.near)
        policy.observe(latency: Self.near)
        #expect(!policy.streaming)
    }

    @Test func theThresholdSeparatesASharedCacheFromAFarOne() {
        var policy = BlockCopyPolicy.measured
        policy.observe(latency: BlockCopyPolicy.farLatency)
        #expect(!policy.streaming)
        policy = .measured
        policy.observe(latency: BlockCopyPolicy.farLatency + 1)
        #expect(policy.streaming)
    }

    @Test func aPinnedModeIgnoresEveryReading() {
        var regular = BlockCopyPolicy(.regular)
        var streaming = BlockCopyPolicy(.streaming)
        #expect(!regular.measures && !streaming.measures && BlockCopyPolicy.measured.measures)
        for latency in [Self.far, Self.far, Self.far, Self.near, Self.near, Self.near, Self.near, Self.near] {
            regular.observe(latency: latency)
            streaming.observe(latency: latency)
            #expect(!regular.streaming)
            #expect(streaming.streaming)
        }
    }

    @Test func readingsOfMemoryThisThreadJustWroteAreNear() {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { block.deallocate() }
        block.initializeMemory(as: UInt8.self, repeating: 7)
        var policy = BlockCopyPolicy.measured
        // Readings of memory this thread just wrote (a whole window: one preempted reading changes nothing).
        for _ in 0..<BlockCopyPolicy.window { policy.measure(UnsafeRawBufferPointer(block)) }
        #expect(!policy.streaming)
    }
}
