// HomeScreen+Editing: placing and removing widgets and app icons, keeping every other key and entry.
import Foundation

extension HomeScreen {
    /// A widget to place: whose, which kind, what size, and where.
    public struct Placement: Sendable, Equatable {
        public var app: String
        public var extensionId: String
        public var kind: String
        public var size: String
        /// 1-based page; nil: the last page. One past the last adds a page.
        public var page: Int?
        /// A widget id, a stack's id, or an app whose (first) placed widget the new one stacks with.
        public var stackWith: String?

        public init(app: String, extensionId: String, kind: String, size: String, page: Int?, stackWith: String?) {
            self.app = app
            self.extensionId = extensionId
            self.kind = kind
            self.size = size
            self.page = page
            self.stackWith = stackWith
        }
    }

    /// The keys of a widget element, which a flat widget icon carries at its top level.
    static let elementKeys = [
        "elementType", "widgetIdentifier", "bundleIdentifier", "containerBundleIdentifier", "uniqueIdentifier",
        "widgetSuggestionSource",
    ]

    /// Places a widget; returns it and whether the layout changed. With no page or stack given, a widget of the
    /// same app, kind and size already placed is returned unchanged (placing it again changes nothing).
    @discardableResult
    public mutating func place(_ placement: Placement) throws(HomeScreenError) -> (widget: PlacedWidget, added: Bool) {
        if placement.page == nil && placement.stackWith == nil, let existing = placedWidgets.first(where: {
            $0.app == placement.app && $0.kind == placement.kind && $0.size == placement.size
        }) {
            return (existing, false)
        }
        let id = UUID().uuidString
        let element = HomeScreen.element(
            app: placement.app, extensionId: placement.extensionId, kind: placement.kind, id: id)
        if let target = placement.stackWith {
            try stack(element, size: placement.size, with: target)
        } else {
            var pages = root["iconLists"]?.array ?? []
            let page = placement.page ?? max(pages.count, 1)
            guard page >= 1, page <= pages.count + 1 else { throw .noSuchPage(page: page, pages: pages.count) }
            if page == pages.count + 1 {
                pages.append(.array([]))
                var ids = root["listUniqueIdentifiers"]?.array ?? []
                while ids.count < pages.count - 1 { ids.append(.string(UUID().uuidString)) }
                ids.append(.string(UUID().uuidString))
                root["listUniqueIdentifiers"] = .array(ids)
            }
            var entries = pages[page - 1].array ?? []
            entries.append(
                .dictionary(
                    HomeScreen.widgetIcon(element: element, size: placement.size, displayId: UUID().uuidString)))
            pages[page - 1] = .array(entries)
            root["iconLists"] = .array(pages)
            // The new widget follows the widgets of pages up to its own: no walk of the whole layout, so placing
            // N widgets in a row (a restore) costs N, not N².
            let widget = PlacedWidget(
                place: "page", page: page, app: placement.app, extensionId: placement.extensionId,
                kind: placement.kind, size: placement.size, id: id, stack: nil)
            let index = placedWidgets.firstIndex { $0.place != "page" || ($0.page ?? 0) > page } ?? placedWidgets.count
            placedWidgets.insert(widget, at: index)
            isLegacyWritten()
            return (widget, true)
        }
        isLegacyWritten()
        reindex()
        return (placedWidgets.first { $0.id == id }!, true)
    }

    /// Removes every placed widget of `app` (of `kind` only, when given) from pages, stacks and the Today
    /// view; a stack left with one widget becomes that widget, an empty one goes. Returns how many went.
    @discardableResult
    public mutating func removeWidgets(app: String, kind: String? = nil) -> Int {
        let before = placedWidgets.count
        func matches(_ element: [String: PropertyListValue]) -> Bool {
            element["elementType"]?.string == "widget" && element["containerBundleIdentifier"]?.string == app
                && (kind == nil || element["widgetIdentifier"]?.string == kind)
        }
        func filtered(_ list: [PropertyListValue]) -> [PropertyListValue] {
            list.compactMap { entry in
                guard var icon = entry.dictionary, icon["iconType"]?.string == "custom" else { return entry }
                guard let elements = icon["elements"]?.array else { return matches(icon) ? nil : entry }
                let kept = elements.filter { !matches($0.dictionary ?? [:]) }
                if kept.count == elements.count { return entry }
                if kept.isEmpty { return nil }
                if kept.count == 1, let only = kept[0].dictionary {
                    icon["elements"] = nil
                    icon["userSelectedElementIdentifier"] = nil
                    return .dictionary(icon.merging(only, uniquingKeysWith: { $1 }))
                }
                icon["elements"] = .array(kept)
                if let selected = icon["userSelectedElementIdentifier"]?.string,
                    !kept.contains(where: { $0.dictionary?["uniqueIdentifier"]?.string == selected })
                {
                    icon["userSelectedElementIdentifier"] = kept[0].dictionary?["uniqueIdentifier"]
                }
                return .dictionary(icon)
            }
        }
        root["iconLists"] = .array(pages.map { .array(filtered($0)) })
        for key in HomeScreen.lists where key != "ignored" {
            if let list = root[key]?.array { root[key] = .array(filtered(list)) }
        }
        reindex()
        let removed = before - placedWidgets.count
        if removed > 0 { isLegacyWritten() }
        return removed
    }

    /// Puts `bundleId`'s icon at the end of the last page, unless it is already on a page, in a folder or in
    /// the dock. Returns whether the layout changed.
    @discardableResult
    public mutating func addAppIcon(_ bundleId: String) -> Bool {
        guard !appIcons.contains(bundleId) else { return false }
        var pages = root["iconLists"]?.array ?? []
        if pages.isEmpty {
            pages = [.array([])]
            root["listUniqueIdentifiers"] = .array([.string(UUID().uuidString)])
        }
        var last = pages[pages.count - 1].array ?? []
        last.append(.string(bundleId))
        pages[pages.count - 1] = .array(last)
        root["iconLists"] = .array(pages)
        isLegacyWritten()
        return true
    }

    /// Removes `bundleId`'s icon from the pages, folders, dock and `ignored`. Returns whether it was there.
    @discardableResult
    public mutating func removeAppIcon(_ bundleId: String) -> Bool {
        var removed = false
        func filtered(_ list: [PropertyListValue]) -> [PropertyListValue] {
            list.compactMap { entry in
                if entry.string == bundleId {
                    removed = true
                    return nil
                }
                guard var folder = entry.dictionary, folder["listType"]?.string == "folder",
                    let pages = folder["iconLists"]?.array
                else { return entry }
                folder["iconLists"] = .array(pages.map { .array(filtered($0.array ?? [])) })
                return .dictionary(folder)
            }
        }
        root["iconLists"] = .array(pages.map { .array(filtered($0)) })
        for key in HomeScreen.lists {
            if let list = root[key]?.array { root[key] = .array(filtered(list)) }
        }
        if removed { isLegacyWritten() }
        return removed
    }

    /// The layout changed: it is written in SpringBoard's schema from now on.
    private mutating func isLegacyWritten() {
        isLegacy = false
    }

    /// Adds `element` to the stack (or single widget, which becomes a stack) that `target` names.
    private mutating func stack(
        _ element: [String: PropertyListValue], size: String, with target: String
    ) throws(HomeScreenError) {
        guard let found = placedWidgets.first(where: { $0.id == target || $0.stack == target })
            ?? placedWidgets.first(where: { $0.app == target })
        else { throw .noSuchWidget(target) }
        guard found.size == size else {
            throw .stackSize(stack: target, stackSize: found.size, size: size)
        }
        let key = found.place == "page" ? "iconLists" : found.place == "dock" ? "buttonBar" : found.place
        func joined(_ list: [PropertyListValue]) -> ([PropertyListValue], Bool) {
            var done = false
            let result = list.map { entry -> PropertyListValue in
                guard !done, var icon = entry.dictionary, icon["iconType"]?.string == "custom" else { return entry }
                if var elements = icon["elements"]?.array {
                    guard elements.contains(where: { $0.dictionary?["uniqueIdentifier"]?.string == found.id })
                    else { return entry }
                    elements.append(.dictionary(element))
                    icon["elements"] = .array(elements)
                } else {
                    guard icon["uniqueIdentifier"]?.string == found.id else { return entry }
                    var first: [String: PropertyListValue] = [:]
                    for name in HomeScreen.elementKeys {
                        first[name] = icon[name]
                        icon[name] = nil
                    }
                    icon["elements"] = .array([.dictionary(first), .dictionary(element)])
                    icon["userSelectedElementIdentifier"] = .string(found.id)
                    icon["allowsSuggestions"] = .bool(true)
                    icon["allowsExternalSuggestions"] = .bool(true)
                }
                done = true
                return .dictionary(icon)
            }
            return (result, done)
        }
        if key == "iconLists" {
            var pages = self.pages.map { PropertyListValue.array($0) }
            let index = (found.page ?? 1) - 1
            pages[index] = .array(joined(pages[index].array ?? []).0)
            root["iconLists"] = .array(pages)
        } else if let list = root[key]?.array {
            root[key] = .array(joined(list).0)
        }
    }
}
