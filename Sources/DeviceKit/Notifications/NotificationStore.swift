// NotificationStore: the device's local notifications (`DeviceLocal/notifications.plist`), device-local.
import Foundation

/// Schedules, cancels, taps and lists local notifications; records each change in the event log.
public struct NotificationStore: Sendable {
    public let device: Device
    public var path: String { device.path(DeviceLayout.notifications) }

    public init(device: Device) {
        self.device = device
    }

    /// Every notification, in scheduling order.
    public func all() throws -> [LocalNotification] {
        let store = DeviceLayout.notifications
        guard let value = try PropertyListFile.read(store, in: device.directory, limit: PropertyListFile.dataLimit) else {
            return []
        }
        guard let entries = value as? [[String: Any]] else {
            throw DeviceError.malformedPlist(path: path, reason: "the top level is not an array of notifications")
        }
        return try entries.map { try LocalNotification(plist: $0, path: path) }
    }

    /// Schedules a notification for `app` firing at `fireDate`; returns it.
    @discardableResult
    public func schedule(app: String, title: String, body: String, at now: Date, fireDate: Date) throws -> LocalNotification {
        var notifications = try all()
        let notification = LocalNotification(
            id: "N\(notifications.count + 1)-\(UUID().uuidString.prefix(8).lowercased())", app: app,
            title: title, body: body, scheduledAt: now, fireDate: fireDate)
        notifications.append(notification)
        try save(notifications)
        try EventLog(device: device).append(DeviceEvent(
            time: now, type: "notification-scheduled", app: app,
            details: ["id": notification.id, "fireDate": Timestamp.format(fireDate)]))
        return notification
    }

    /// Cancels every notification of `app` still pending at `now`; returns their ids.
    @discardableResult
    public func cancelPending(app: String, at now: Date) throws -> [String] {
        try settle(at: now)
        var notifications = try all()
        var cancelled: [String] = []
        for index in notifications.indices
        where notifications[index].app == app && notifications[index].state(at: now) == .pending {
            notifications[index].cancelledAt = now
            cancelled.append(notifications[index].id)
        }
        guard !cancelled.isEmpty else { return [] }
        try save(notifications)
        for id in cancelled {
            try EventLog(device: device).append(DeviceEvent(time: now, type: "notification-cancelled", app: app, details: ["id": id]))
        }
        return cancelled
    }

    /// Marks a delivered notification tapped; throws when it is unknown or not delivered at `now`.
    @discardableResult
    public func tap(_ id: String, at now: Date) throws -> LocalNotification {
        // Check first: a refused tap records nothing, not even the deliveries due by now.
        var notifications = try all()
        guard let index = notifications.firstIndex(where: { $0.id == id }) else { throw DeviceError.unknownNotification(id) }
        let state = notifications[index].state(at: now)
        guard state == .delivered else { throw DeviceError.notDelivered(id: id, state: state.rawValue) }
        try settle(at: now)
        notifications[index].tappedAt = now
        try save(notifications)
        try EventLog(device: device).append(DeviceEvent(
            time: now, type: "notification-tapped", app: notifications[index].app, details: ["id": id]))
        return notifications[index]
    }

    /// Records a `notification-delivered` event (at its fire date) for every notification delivered by
    /// `now` whose delivery is not in the log yet. Call before acting at `now`, holding the device lock.
    public func settle(at now: Date) throws {
        let log = EventLog(device: device)
        for event in try dueDeliveries(at: now) { try log.append(event) }
    }

    /// The `notification-delivered` events (at their fire dates, in scheduling order) due by `now` and not in
    /// the log yet, without recording them: what a read-only command shows, and what `settle` records.
    public func dueDeliveries(at now: Date) throws -> [DeviceEvent] {
        let logged = Set(
            try EventLog(device: device).events().filter { $0.type == "notification-delivered" }
                .compactMap { $0.details["id"] })
        return try all().filter { $0.state(at: now) == .delivered && !logged.contains($0.id) }.map {
            DeviceEvent(time: $0.fireDate, type: "notification-delivered", app: $0.app, details: ["id": $0.id])
        }
    }

    private func save(_ notifications: [LocalNotification]) throws {
        try PropertyListFile.write(notifications.map(\.plist), to: DeviceLayout.notifications, in: device.directory)
    }
}
