// HomeScreenError: a widget placement or removal the home screen cannot take.

/// Why `widget add` or `widget remove` cannot change the layout; says it in the user's terms.
public enum HomeScreenError: Error, CustomStringConvertible, Equatable, Sendable {
    /// `--page` beyond the pages there are (a new page may be added right after the last).
    case noSuchPage(page: Int, pages: Int)
    /// `--stack-with` names no widget or stack on the pages or in the Today view.
    case noSuchWidget(String)
    /// A widget joins a stack of another size.
    case stackSize(stack: String, stackSize: String, size: String)
    /// The extension does not offer the widget kind, or not in that size.
    case unsupported(app: String, kind: String, size: String?, offered: [String])
    /// Nothing matched `widget remove`.
    case notPlaced(app: String, kind: String?)

    public var description: String {
        switch self {
        case .noSuchPage(let page, let pages):
            "there is no page \(page): the home screen has \(pages) page\(pages == 1 ? "" : "s") "
                + "(--page \(pages + 1) adds one)"
        case .noSuchWidget(let id):
            "no widget or stack '\(id)' on the home screen ('devicectl widget list' shows them)"
        case .stackSize(let stack, let stackSize, let size):
            "the stack \(stack) holds \(stackSize) widgets; a \(size) widget cannot join it"
        case .unsupported(let app, let kind, let size, let offered):
            if let size {
                "the widget '\(kind)' of \(app) does not come in size \(size) "
                    + "(it offers \(offered.joined(separator: ", ")))"
            } else {
                "app '\(app)' has no widget '\(kind)' (its widget extension offers \(offered.joined(separator: ", ")))"
            }
        case .notPlaced(let app, let kind):
            "no widget\(kind.map { " '\($0)'" } ?? "") of \(app) is on the home screen"
        }
    }
}
