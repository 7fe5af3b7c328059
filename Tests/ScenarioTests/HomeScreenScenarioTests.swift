// HomeScreenScenarioTests: the home screen decides which widgets run (scenarios 9 and 10): a widget that was
// not placed on the old phone does nothing after the restore, and two apps' widgets decide independently.
import Foundation
import TestSupport
import Testing

@Suite("Home screen: which widgets run")
struct HomeScreenScenarioTests {
    @Test("9. The widget was not placed on the old phone: nothing after the restore, though the flag is armed")
    func unplacedWidgetNeverNudgesAfterRestore() throws {
        try withTemporaryDirectory { dir in
            let old = try Phone.fresh("\(dir)/old", apps: [.news], widgets: [])
            try old.launch(.news, at: Clock.start)
            let new = try old.migrate(to: "\(dir)/new", in: dir)

            let app = try #require(try new.status().app(App.news.bundleId))
            #expect(!app.widgetPlaced && app.markerPresent == false && app.flag == .bool(true))
            #expect(try new.status().widgets.isEmpty)
            for hours in [1.0, 6, 24, 48] {
                #expect(try new.refresh(at: Clock.restore + hours * Clock.hour).isEmpty)
            }
            let later = Clock.restore + 3 * Clock.nudgeDelay
            #expect(try new.notifications(at: later).isEmpty)
            #expect(try new.events("widget-decision", at: later).isEmpty)
        }
    }

    @Test("10. Two apps with the widget on one phone: independent decisions, delays and cancellations")
    func twoWidgetsDecideIndependently() throws {
        try withTemporaryDirectory { dir in
            let news = App.news
            let sports = App.sports.with(delay: "90m")
            let old = try Phone.fresh("\(dir)/old", apps: [news, sports])
            try old.launch(news, at: Clock.start)
            try old.launch(sports, at: Clock.start + Clock.minute)
            let new = try old.migrate(to: "\(dir)/new", in: dir)

            let first = try new.refresh(at: Clock.firstRefresh)
            #expect(first.map(\.app) == [news.bundleId, sports.bundleId])
            #expect(
                first.map(\.decision) == ["scheduled", "scheduled"] && first.map(\.reason) == ["restored", "restored"])
            #expect(
                first.map(\.fireDate)
                    == [
                        Clock.iso(Clock.firstRefresh + Clock.nudgeDelay),
                        Clock.iso(Clock.firstRefresh + 90 * Clock.minute),
                    ])
            let newsNudge = try #require(first[0].notification)
            let sportsNudge = try #require(first[1].notification)
            #expect(newsNudge != sportsNudge)

            // The user opens sports (its nudge is cancelled); news's nudge is untouched.
            let launch = try new.launchReport(sports, at: Clock.firstRefresh + Clock.hour)
            #expect(launch.cancelledNotifications == [sportsNudge])
            let second = try new.refresh(at: Clock.firstRefresh + 2 * Clock.hour)
            #expect(second.map(\.reason) == ["not-armed", "marker-present"])

            let states = try new.notifications(at: Clock.firstRefresh + Clock.nudgeDelay)
            #expect(states.map(\.id) == [newsNudge, sportsNudge])
            #expect(states.map(\.state) == ["delivered", "cancelled"])
            let status = try new.status(at: Clock.firstRefresh + Clock.nudgeDelay)
            #expect(status.app(news.bundleId)?.markerPresent == false)
            #expect(status.app(sports.bundleId)?.markerPresent == true)
        }
    }
}
