// LocalNotification: a local notification an app (or its widget) scheduled.
import Foundation

/// One scheduled local notification. Its state is a function of time: pending before `fireDate`,
/// delivered from then on, unless cancelled first.
public struct LocalNotification: Sendable, Equatable {
    public enum State: String, Sendable {
        case pending, delivered, cancelled
    }

    public let id: String
    public let app: String
    public let title: String
    public let body: String
    public let scheduledAt: Date
    public let fireDate: Date
    public var cancelledAt: Date?
    public var tappedAt: Date?

    public init(id: String, app: String, title: String, body: String, scheduledAt: Date, fireDate: Date) {
        self.id = id
        self.app = app
        self.title = title
        self.body = body
        self.scheduledAt = scheduledAt
        self.fireDate = fireDate
    }

    /// The state as of `now`.
    public func state(at now: Date) -> State {
        if let cancelledAt, cancelledAt <= now { return .cancelled }
        return now >= fireDate ? .delivered : .pending
    }

    var plist: [String: Any] {
        var plist: [String: Any] = [
            "id": id, "app": app, "title": title, "body": body, "scheduledAt": scheduledAt, "fireDate": fireDate,
        ]
        if let cancelledAt { plist["cancelledAt"] = cancelledAt }
        if let tappedAt { plist["tappedAt"] = tappedAt }
        return plist
    }

    init(plist: [String: Any], path: String) throws {
        guard let id = plist["id"] as? String, let app = plist["app"] as? String,
            let title = plist["title"] as? String, let body = plist["body"] as? String,
            let scheduledAt = plist["scheduledAt"] as? Date, let fireDate = plist["fireDate"] as? Date
        else { throw DeviceError.malformedPlist(path: path, reason: "a notification lacks id/app/title/body/dates") }
        self.init(id: id, app: app, title: title, body: body, scheduledAt: scheduledAt, fireDate: fireDate)
        cancelledAt = plist["cancelledAt"] as? Date
        tappedAt = plist["tappedAt"] as? Date
    }
}
