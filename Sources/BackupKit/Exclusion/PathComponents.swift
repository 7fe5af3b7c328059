// PathComponents: a relative path's `/`-separated components, as bounds into its bytes, without allocating.

/// The components of a `/`-separated relative path (empty ones included: `a//b` has three), as byte ranges held in a
/// temporary allocation (on the stack at the usual depths). The path rules ask this of every entry of a walk.
enum PathComponents {
    /// Calls `body` with the bounds of `path`'s components; nil, without calling it, when there are more than `limit`.
    static func withBounds<R>(
        of path: UnsafeBufferPointer<UInt8>, atMost limit: Int = .max,
        _ body: (UnsafeBufferPointer<Range<Int>>) -> R
    ) -> R? {
        var count = 1
        for byte in path where byte == UInt8(ascii: "/") {
            count += 1
            if count > limit { return nil }
        }
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: count) { bounds in
            var start = 0
            var filled = 0
            for index in 0...path.count where index == path.count || path[index] == UInt8(ascii: "/") {
                (bounds.baseAddress! + filled).initialize(to: start..<index)
                filled += 1
                start = index + 1
            }
            return body(UnsafeBufferPointer(bounds))
        }
    }
}
