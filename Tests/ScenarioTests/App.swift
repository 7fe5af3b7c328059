// App: an app as the scenarios install it (bundle id, App Group, nudge widget settings).
struct App: Sendable {
    let bundleId: String
    var group: String?
    /// `once` (the article's prose, the default) or `as-published` (the article's code).
    var policy = "once"
    var delay: String?
    var hasWidget = true

    static let news = App(bundleId: "com.example.news", group: "group.com.example.news")
    static let sports = App(bundleId: "com.example.sports", group: "group.com.example.sports")

    func with(policy: String? = nil, delay: String? = nil, hasWidget: Bool? = nil) -> App {
        var app = self
        if let policy { app.policy = policy }
        if let delay { app.delay = delay }
        if let hasWidget { app.hasWidget = hasWidget }
        return app
    }

    /// The `install` arguments after ROOT.
    var installArguments: [String] {
        ["--app", bundleId] + (group.map { ["--group", $0] } ?? [])
            + (hasWidget ? ["--nudge-policy", policy] + (delay.map { ["--nudge-delay", $0] } ?? []) : ["--no-widget"])
    }
}
