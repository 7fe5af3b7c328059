// WaitUntil: wait for an observable state with a deadline, instead of sleeping and then asserting.
import Glibc
import SystemKit

/// Polls `condition` every millisecond until it holds or `seconds` pass (on the monotonic clock); returns whether it
/// held.
@discardableResult
public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.seconds() + seconds
    while MonotonicClock.seconds() < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}
