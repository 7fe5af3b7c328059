// WidgetRefresherTests: the edge on a real device root: snapshot read, decision applied, events logged.
import DeviceKit
import Foundation
import NudgeWidget
import SystemKit
import TestSupport
import Testing

@Suite struct WidgetRefresherTests {
    let news = "com.example.news"
    let mail = "com.example.mail"

    @Test func neverLaunchedIsNotArmedAndOnceWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news])
            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 1))
            #expect(results.map(\.decision.reason) == [.notArmed])
            #expect(results[0].snapshot == WidgetSnapshot(markerPresent: false, flag: .absent))
            #expect(try phone.flag(news) == nil)
            #expect(try NotificationStore(device: phone.device).all().isEmpty)
            let logged = try phone.events("widget-decision")
            #expect(logged.count == 1)
            #expect(logged.first?.details["reason"] == "not-armed")
            #expect(logged.first?.details["decision"] == "none")
        }
    }

    @Test func afterLaunchTheMarkerIsPresentAndOnceKeepsTheFlag() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news])
            _ = try phone.device.launch(news, at: TestPhone.at(hours: 1))
            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 2))
            #expect(results.map(\.decision.reason) == [.markerPresent])
            #expect(try phone.flag(news) as? Bool == true)
        }
    }

    @Test func asPublishedClearsTheFlagEvenWhenTheMarkerIsPresent() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news], policy: .asPublished)
            _ = try phone.device.launch(news, at: TestPhone.at(hours: 1))
            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 2))
            #expect(results.map(\.decision.reason) == [.markerPresent])
            let flag = try phone.flag(news)
            #expect(WidgetSnapshot.flag(from: flag) == .false)
            #expect(try phone.events("widget-decision").last?.details["flagCleared"] == "true")
        }
    }

    @Test(arguments: NudgeSettings.Policy.allCases)
    func restoredSchedulesOneNotificationAndClearsTheFlag(_ policy: NudgeSettings.Policy) throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news], policy: policy)
            _ = try phone.device.launch(news, at: TestPhone.at(hours: 1))
            try phone.removeMarker(news)
            let now = TestPhone.at(hours: 3)
            let refresher = WidgetRefresher(device: phone.device)
            let first = try refresher.refreshAll(at: now)
            #expect(first.map(\.decision.reason) == [.restored])
            #expect(first[0].decision.fireDate == now + 86_400)
            let notifications = try NotificationStore(device: phone.device).all()
            #expect(notifications.count == 1)
            #expect(notifications.first?.id == first[0].notificationId)
            #expect(notifications.first?.fireDate == now + 86_400)
            #expect(notifications.first?.app == news)
            #expect(WidgetSnapshot.flag(from: try phone.flag(news)) == .false)
            let second = try refresher.refreshAll(at: now + 900)
            #expect(second.map(\.decision.reason) == [.notArmed])
            #expect(try NotificationStore(device: phone.device).all().count == 1)
            let decision = try #require(try phone.events("widget-decision").first)
            #expect(decision.details["notification"] == first[0].notificationId)
            #expect(decision.details["fireDate"] == Timestamp.format(now + 86_400))
            #expect(decision.details["policy"] == policy.rawValue)
        }
    }

    @Test func malformedDefaultsFailOneWidgetAndTheOthersStillRun() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news, mail], policy: .asPublished)
            for app in [news, mail] { _ = try phone.device.launch(app, at: TestPhone.at(hours: 1)) }
            for app in [news, mail] { try phone.removeMarker(app) }
            let broken = try phone.suite(news).path
            let garbage = Array("this is not a plist".utf8)
            try phone.device.directory.writeAtomically(garbage, to: try phone.suite(news).relativePath)
            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 2))
            #expect(results.map(\.app) == [news, mail])
            #expect(results.map(\.decision.reason) == [.defaultsUnreadable, .restored])
            #expect(results.map(\.failed) == [true, false])
            #expect(results[0].decision.setsFlagFalse == false)
            #expect(results[0].problem?.contains(broken) == true)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: broken))) == garbage)
            #expect(try NotificationStore(device: phone.device).all().map(\.app) == [mail])
        }
    }

    @Test func nonBooleanFlagIsNotArmed() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news])
            try phone.suite(news).set(NudgeSettings.defaultFlagKey, to: 1)
            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 2))
            #expect(results.map(\.decision.reason) == [.notArmed])
            #expect(results[0].snapshot?.flag == .notBoolean)
        }
    }

    @Test func uninstalledAppIsSkippedWithoutAnEvent() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news, mail])
            let bundle = try phone.device.app(news).bundleContainer.path
            try FileManager.default.removeItem(atPath: bundle)
            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 2))
            #expect(results.map(\.decision.reason) == [.appNotInstalled, .notArmed])
            #expect(results.map(\.failed) == [false, false])
            #expect(results[0].problem?.contains("not installed") == true)
            #expect(try phone.events("widget-decision").map(\.app) == [mail])
        }
    }

    @Test func missingGroupContainerFailsThatWidget() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news])
            try FileManager.default.removeItem(atPath: try phone.group(news).path)
            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 2))
            #expect(results.map(\.decision.reason) == [.groupMissing])
            #expect(results[0].failed)
            #expect(results[0].problem?.contains("group.\(news)") == true)
        }
    }

    @Test func noWidgetsMeansNoResults() throws {
        try withTemporaryDirectory { dir in
            let device = try Device.initialize("\(dir)/phone")
            #expect(try WidgetRefresher(device: device).refreshAll(at: TestPhone.start).isEmpty)
        }
    }

    @Test func deliveriesDueAreLoggedBeforeTheRefresh() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [news])
            _ = try phone.device.launch(news, at: TestPhone.at(hours: 1))
            try phone.removeMarker(news)
            _ = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 2))
            _ = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 30))
            let types = try EventLog(device: phone.device).events().map(\.type).filter {
                $0 == "notification-delivered" || $0 == "widget-decision"
            }
            #expect(types == ["widget-decision", "notification-delivered", "widget-decision"])
        }
    }
}
