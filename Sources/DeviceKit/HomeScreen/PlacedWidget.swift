// PlacedWidget: one WidgetKit widget on the home screen, as SpringBoard's IconState.plist places it.

/// A widget placed on a home-screen page (alone or in a Smart Stack), in the dock, or in the Today view.
public struct PlacedWidget: Sendable, Equatable, Encodable {
    /// Where the widget is: `page` (1-based, as the user counts pages), `dock`, `today`, `favoriteToday`.
    public let place: String
    /// The page number for `page`; nil elsewhere.
    public let page: Int?
    /// `containerBundleIdentifier`: the app that contains the extension (nil when the file does not say).
    public let app: String?
    /// `bundleIdentifier`: the widget extension's bundle id.
    public let extensionId: String
    /// `widgetIdentifier`: the widget's kind.
    public let kind: String
    /// `gridSize` of the icon holding it: `small`, `medium`, `large`...
    public let size: String
    /// `uniqueIdentifier` of the widget element.
    public let id: String
    /// `displayIdentifier` of the Smart Stack holding it; nil for a widget on its own.
    public let stack: String?

    public init(
        place: String, page: Int?, app: String?, extensionId: String, kind: String, size: String, id: String,
        stack: String?
    ) {
        self.place = place
        self.page = page
        self.app = app
        self.extensionId = extensionId
        self.kind = kind
        self.size = size
        self.id = id
        self.stack = stack
    }

    /// `page 2`, `page 1 (stack)`, `today`.
    public var placeText: String {
        var text = page.map { "page \($0)" } ?? place
        if stack != nil { text += " (stack)" }
        return text
    }

    private enum CodingKeys: String, CodingKey { case place, page, app, extensionId, kind, size, id, stack }

    /// Every key, absent values as null (as every devicectl JSON object spells them).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(place, forKey: .place)
        try container.encode(page, forKey: .page)
        try container.encode(app, forKey: .app)
        try container.encode(extensionId, forKey: .extensionId)
        try container.encode(kind, forKey: .kind)
        try container.encode(size, forKey: .size)
        try container.encode(id, forKey: .id)
        try container.encode(stack, forKey: .stack)
    }
}
