// StreamingCopyTests: csupport_copy_streaming copies exactly what memcpy copies, whatever the alignment and length.
import CSupport
import Testing

@Suite struct StreamingCopyTests {
    @Test func everyAlignmentAndLengthCopiesTheSameBytesAndNothingElse() {
        let size = 4096
        let source = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        for offset in [0, 1, 15, 16, 63, 64, 65, 127] {
            for count in [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 2048 + 33] {
                var destination = [UInt8](repeating: 0xEE, count: size)
                destination.withUnsafeMutableBytes { to in
                    source.withUnsafeBytes { from in
                        csupport_copy_streaming(to.baseAddress! + offset, from.baseAddress! + 3, count)
                    }
                }
                csupport_store_fence()
                #expect(Array(destination[offset..<offset + count]) == Array(source[3..<3 + count]), "\(offset) \(count)")
                #expect(destination[..<offset].allSatisfy { $0 == 0xEE }, "\(offset) \(count)")
                #expect(destination[(offset + count)...].allSatisfy { $0 == 0xEE }, "\(offset) \(count)")
            }
        }
    }

    @Test func aLineLatencyReadingIsAPositiveTime() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 64)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 1)
        let latency = csupport_line_latency(buffer.baseAddress!, buffer.count, 1024)
        #expect(latency > 0 && latency < 1_000_000)
        #expect(csupport_line_latency(buffer.baseAddress!, 63, 16) == 0)
    }
}
