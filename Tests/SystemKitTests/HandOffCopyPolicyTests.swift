// HandOffCopyPolicyTests: a buffer handed to another thread is filled with streaming stores while the median of the
// latest line-latency readings says the consumer's cache is far, and with plain stores otherwise; a pinned mode never
// changes; copies are the same bytes either way, and only streaming stores need publishing.
import Testing

@testable import SystemKit

@Suite struct HandOffCopyPolicyTests {
    static let near = 55.0
    static let far = 120.0

    @Test func theMeasuredModeStartsWithPlainStoresAndFollowsTheMedianOfTheLatestReadings() {
        var policy = HandOffCopyPolicy.measured
        #expect(!policy.streaming)
        for _ in 0..<HandOffCopyPolicy.window { policy.observe(latency: Self.near) }
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
        var policy = HandOffCopyPolicy.measured
        policy.observe(latency: HandOffCopyPolicy.farLatency)
        #expect(!policy.streaming)
        policy = .measured
        policy.observe(latency: HandOffCopyPolicy.farLatency + 1)
        #expect(policy.streaming)
    }

    @Test func aPinnedModeIgnoresEveryReading() {
        var regular = HandOffCopyPolicy(.regular)
        var streaming = HandOffCopyPolicy(.streaming)
        #expect(!regular.measures && !streaming.measures && HandOffCopyPolicy.measured.measures)
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
        var policy = HandOffCopyPolicy.measured
        // Readings of memory this thread just wrote (a whole window: one preempted reading changes nothing).
        for _ in 0..<HandOffCopyPolicy.window { policy.measure(UnsafeRawBufferPointer(block)) }
        #expect(!policy.streaming)
    }

    @Test func bothStoresCopyTheSameBytesAndOnlyStreamingOnesArePublished() {
        let source = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for mode in [HandOffCopyPolicy.Mode.regular, .streaming] {
            var policy = HandOffCopyPolicy(mode)
            var destination = [UInt8](repeating: 0, count: 1003)
            destination.withUnsafeMutableBytes { to in
                source.withUnsafeBytes { policy.copy($0, to: to.baseAddress! + 3) }
            }
            policy.publish()
            #expect(Array(destination[3...]) == source, "\(mode)")
            #expect(policy.buffersStreamed == (mode == .streaming ? 1 : 0), "\(mode)")
            // Nothing copied since: nothing to publish.
            policy.publish()
            #expect(policy.buffersStreamed == (mode == .streaming ? 1 : 0), "\(mode)")
        }
    }
}
