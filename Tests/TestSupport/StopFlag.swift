// StopFlag: tells a test's background thread (a busy loop, a renamer) to finish.
import Synchronization

/// A flag one thread raises and another polls.
public final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    public init() {}

    public func raise() { raised.store(true, ordering: .releasing) }

    public var isRaised: Bool { raised.load(ordering: .acquiring) }
}
