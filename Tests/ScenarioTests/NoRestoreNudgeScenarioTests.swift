// NoRestoreNudgeScenarioTests: the marker is missing (or the refresh happens) but the phone is not a restored
// one waiting for its first launch, so the widget never nudges (scenarios 2, 3, 4 and 5).
import Foundation
import TestSupport
import Testing

@Suite("No nudge unless restored and not yet launched")
struct NoRestoreNudgeScenarioTests {
    let news = App.news
    /// After `refreshForTwoDays` on the old phone: when its owner moves to a new one.
    let afterTwoDays = Clock.start + 50 * Clock.hour

    /// Refreshes `phone` every 8 hours for two days from `start` (7 refreshes); returns every decision.
    func refreshForTwoDays(_ phone: Phone, from start: Date) throws -> [WidgetDecision] {
        try (0..<7).flatMap { try phone.refresh(at: start + Double($0) * 8 * Clock.hour) }
    }

    /// Expects `phone` never to have scheduled a notification, as of well after any nudge could have fired.
    func expectNeverNudged(_ phone: Phone, _ comment: Comment) throws {
        let later = Clock.start + 40 * 24 * Clock.hour
        #expect(try phone.notifications(at: later).isEmpty, comment)
        #expect(try phone.events("notification-scheduled", at: later).isEmpty, comment)
    }

    @Test("2. Fresh install with the widget placed, app never launched: no nudge, before or after a migration")
    func neverLaunchedAppNeverNudges() throws {
        try withTemporaryDirectory { dir in
            let old = try Phone.fresh("\(dir)/old", apps: [news])
            let status = try #require(try old.status().app(news.bundleId))
            #expect(status.widgetPlaced && status.markerPresent == false && status.flag == nil)
            let decisions = try refreshForTwoDays(old, from: Clock.start)
            #expect(decisions.allSatisfy { $0.decision == "none" && $0.reason == "not-armed" })
            try expectNeverNudged(old, "the phone it was installed on")

            let new = try old.migrate(
                to: "\(dir)/new", in: dir, backupAt: afterTwoDays, restoreAt: afterTwoDays + Clock.hour)
            #expect(try new.refresh(at: afterTwoDays + 2 * Clock.hour).map(\.reason) == ["not-armed"])
            try expectNeverNudged(new, "the restored phone")
        }
    }

    @Test("3. Upgrade from a version without the feature (data kept, marker and flag never written): no nudge")
    func upgradeFromAVersionWithoutTheWidgetNeverNudges() throws {
        try withTemporaryDirectory { dir in
            // Version 1 has no widget but uses its App Group; the user has read articles for months.
            let old = try Phone.fresh("\(dir)/old", apps: [news.with(hasWidget: false)])
            try old.writeDefault(news.bundleId, "articlesRead", "int", "412")
            try old.writeDefault(try #require(news.group), "lastArticle", "string", "2026-11-30/markets")
            // Version 2 adds the widget; the App Store updates the app, the user places the widget, never opens it.
            try old.install(news, at: Clock.start + Clock.hour)
            try old.placeWidget(news, at: Clock.start + Clock.hour)
            let status = try #require(try old.status().app(news.bundleId))
            #expect(status.widgetPlaced && status.markerPresent == false && status.flag == nil)
            let kept = try Devicectl.succeed(
                ["defaults", "read", old.root, news.bundleId, "articlesRead"], at: Clock.start)
            #expect(kept.stdout == "412\n")

            let decisions = try refreshForTwoDays(old, from: Clock.start + 2 * Clock.hour)
            #expect(decisions.allSatisfy { $0.decision == "none" && $0.reason == "not-armed" })
            try expectNeverNudged(old, "the upgraded phone")

            let new = try old.migrate(
                to: "\(dir)/new", in: dir, backupAt: afterTwoDays, restoreAt: afterTwoDays + Clock.hour)
            #expect(try new.refresh(at: afterTwoDays + 2 * Clock.hour).map(\.reason) == ["not-armed"])
            try expectNeverNudged(new, "the restored phone")
        }
    }

    @Test(
        "4. No migration at all: refreshes on the original phone never nudge", arguments: ["once", "as-published"])
    func originalPhoneNeverNudges(policy: String) throws {
        try withTemporaryDirectory { dir in
            let app = news.with(policy: policy)
            let phone = try Phone.fresh("\(dir)/phone", apps: [app])
            try phone.launch(app, at: Clock.start)
            let decisions =
                try refreshForTwoDays(phone, from: Clock.start + Clock.minute)
                + refreshForTwoDays(phone, from: Clock.start + 30 * 24 * Clock.hour)
            #expect(decisions.count == 14)
            #expect(decisions.allSatisfy { $0.decision == "none" && $0.reason == "marker-present" })
            try expectNeverNudged(phone, "the original phone")
        }
    }

    @Test("5. New phone: the user opens the app before the widget's first refresh, so no nudge")
    func launchOnTheNewPhoneBeforeTheFirstRefreshMeansNoNudge() throws {
        try withTemporaryDirectory { dir in
            let old = try Phone.fresh("\(dir)/old", apps: [news])
            let oldToken = try old.launch(news, at: Clock.start)
            let new = try old.migrate(to: "\(dir)/new", in: dir)
            let newToken = try new.launch(news, at: Clock.restore + 10 * Clock.minute)
            #expect(newToken != oldToken)

            let decisions = try refreshForTwoDays(new, from: Clock.firstRefresh)
            #expect(decisions.allSatisfy { $0.decision == "none" && $0.reason == "marker-present" })
            try expectNeverNudged(new, "the new phone")
        }
    }
}
