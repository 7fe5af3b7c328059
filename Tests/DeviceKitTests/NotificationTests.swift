// NotificationTests: the local notification state machine (pending -> delivered | cancelled, tapped).
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct NotificationTests {
    @Test func stateIsAFunctionOfTime() {
        var note = LocalNotification(
            id: "N1", app: "a", title: "t", body: "b", scheduledAt: TestPhone.start,
            fireDate: TestPhone.at(hours: 24))
        #expect(note.state(at: TestPhone.at(hours: 23.99)) == .pending)
        #expect(note.state(at: TestPhone.at(hours: 24)) == .delivered)
        #expect(note.state(at: TestPhone.at(hours: 100)) == .delivered)
        note.cancelledAt = TestPhone.at(hours: 12)
        #expect(note.state(at: TestPhone.at(hours: 11)) == .pending)
        #expect(note.state(at: TestPhone.at(hours: 12)) == .cancelled)
        #expect(note.state(at: TestPhone.at(hours: 48)) == .cancelled)
    }

    @Test func scheduleCancelDeliverTap() throws {
        try TestPhone.withDevice { device in
            let store = NotificationStore(device: device)
            let first = try store.schedule(
                app: "com.example.news", title: "Open me", body: "please", at: TestPhone.start,
                fireDate: TestPhone.at(hours: 24))
            let second = try store.schedule(
                app: "com.example.news", title: "Again", body: "please", at: TestPhone.at(hours: 1),
                fireDate: TestPhone.at(hours: 2))
            #expect(first.id != second.id)
            #expect(try store.all().map(\.id) == [first.id, second.id])

            // A pending notification cannot be tapped; an unknown one neither.
            #expect(throws: DeviceError.notDelivered(id: first.id, state: "pending")) {
                try store.tap(first.id, at: TestPhone.at(hours: 1))
            }
            #expect(throws: DeviceError.unknownNotification("N9")) { try store.tap("N9", at: TestPhone.start) }

            // At +3h the second is delivered (not cancellable), the first is still pending and is cancelled.
            let cancelled = try store.cancelPending(app: "com.example.news", at: TestPhone.at(hours: 3))
            #expect(cancelled == [first.id])
            let states = try store.all().map { $0.state(at: TestPhone.at(hours: 30)) }
            #expect(states == [.cancelled, .delivered])
            #expect(throws: DeviceError.notDelivered(id: first.id, state: "cancelled")) {
                try store.tap(first.id, at: TestPhone.at(hours: 30))
            }
            let tapped = try store.tap(second.id, at: TestPhone.at(hours: 30))
            #expect(tapped.tappedAt == TestPhone.at(hours: 30))
            #expect(try store.cancelPending(app: "com.example.news", at: TestPhone.at(hours: 31)).isEmpty)

            // Every change is in the event log, the delivery once, at its fire date.
            let events = try EventLog(device: device).events()
            #expect(
                events.map(\.type) == [
                    "notification-scheduled", "notification-scheduled", "notification-delivered",
                    "notification-cancelled", "notification-tapped",
                ])
            #expect(events.first { $0.type == "notification-delivered" }?.time == "2026-12-01T11:00:00Z")
        }
    }

    @Test func settleLogsEachDeliveryOnce() throws {
        try TestPhone.withDevice { device in
            let store = NotificationStore(device: device)
            try store.schedule(
                app: "a", title: "t", body: "b", at: TestPhone.start, fireDate: TestPhone.at(hours: 1))
            try store.settle(at: TestPhone.at(hours: 0.5))
            #expect(try EventLog(device: device).events().filter { $0.type == "notification-delivered" }.isEmpty)
            try store.settle(at: TestPhone.at(hours: 2))
            try store.settle(at: TestPhone.at(hours: 3))
            #expect(try EventLog(device: device).events().filter { $0.type == "notification-delivered" }.count == 1)
        }
    }
}
