// WaitUntil: wait for an observable state with a deadline, instead of sleeping and then asserting.
import Foundation
import Glibc

/// Polls `condition` every millisecond until it holds or `seconds` pass; returns whether it held.
@discardableResult
public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}
