// HomeScreenReader: checks every list of a home-screen layout and collects its widgets, in order.

/// Walks the root of an IconState.plist: each known key must have SpringBoard's type, every list is capped
/// (`HomeScreen.maxPages`, `maxEntries`), a widget element needs string identifiers (the extension's and the
/// app's checked as identifiers), and no widget id appears twice (SpringBoard rejects such a file). Entries it
/// does not model (web clips, app dicts, other element types) are accepted as they are.
struct HomeScreenReader {
    let path: String
    private var ids = Set<String>()
    private var found: [PlacedWidget] = []

    init(path: String) {
        self.path = path
    }

    func read(_ root: [String: PropertyListValue]) throws -> [PlacedWidget] {
        var reader = self
        return try reader.collect(root)
    }

    private mutating func collect(_ root: [String: PropertyListValue]) throws -> [PlacedWidget] {
        guard let pages = root["iconLists"]?.array else {
            throw malformed("'iconLists' is \(root["iconLists"]?.typeName ?? "missing"), not an array of pages")
        }
        guard pages.count <= HomeScreen.maxPages else {
            throw malformed("\(pages.count) pages, more than \(HomeScreen.maxPages)")
        }
        if let ids = root["listUniqueIdentifiers"] {
            guard let list = ids.array, list.allSatisfy({ $0.string != nil }) else {
                throw malformed("'listUniqueIdentifiers' is not an array of strings")
            }
        }
        if let version = root["widgetVersion"], case .integer = version {} else if root["widgetVersion"] != nil {
            throw malformed("'widgetVersion' is \(root["widgetVersion"]!.typeName), not an integer")
        }
        for (index, page) in pages.enumerated() {
            guard let entries = page.array else {
                throw malformed("page \(index + 1) in 'iconLists' is \(page.typeName), not an array")
            }
            try list(entries, place: "page", page: index + 1, named: "page \(index + 1)")
        }
        for key in ["today", "favoriteToday", "buttonBar", "ignored"] {
            guard let value = root[key] else { continue }
            guard let entries = value.array else { throw malformed("'\(key)' is \(value.typeName), not an array") }
            try list(entries, place: key == "buttonBar" ? "dock" : key, page: nil, named: "'\(key)'",
                placesWidgets: key != "ignored")
        }
        return found
    }

    private mutating func list(
        _ entries: [PropertyListValue], place: String, page: Int?, named name: String, placesWidgets: Bool = true
    ) throws {
        guard entries.count <= HomeScreen.maxEntries else {
            throw malformed("\(name) has \(entries.count) entries, more than \(HomeScreen.maxEntries)")
        }
        for (index, entry) in entries.enumerated() {
            let entryName = "entry \(index + 1) of \(name)"
            switch entry {
            case .string(let id):
                guard !id.isEmpty, id.utf8.count <= 1024 else { throw malformed("\(entryName) is not an app id") }
            case .dictionary(let icon):
                if icon["listType"]?.string == "folder" {
                    try folder(icon, place: place, page: page, named: entryName)
                } else if icon["iconType"]?.string == "custom" {
                    try custom(icon, place: place, page: page, named: entryName, placesWidgets: placesWidgets)
                }
            default:
                throw malformed("\(entryName) is \(entry.typeName), not an app id or an icon")
            }
        }
    }

    private mutating func folder(
        _ folder: [String: PropertyListValue], place: String, page: Int?, named name: String
    ) throws {
        if let title = folder["displayName"], title.string == nil {
            throw malformed("the folder's 'displayName' at \(name) is \(title.typeName), not a string")
        }
        guard let pages = folder["iconLists"]?.array, pages.count <= HomeScreen.maxPages else {
            throw malformed("the folder at \(name) has no 'iconLists' array of at most \(HomeScreen.maxPages) pages")
        }
        for (index, folderPage) in pages.enumerated() {
            guard let entries = folderPage.array else {
                throw malformed("page \(index + 1) of the folder at \(name) is \(folderPage.typeName), not an array")
            }
            try list(entries, place: place, page: page, named: "page \(index + 1) of the folder at \(name)")
        }
    }

    private mutating func custom(
        _ icon: [String: PropertyListValue], place: String, page: Int?, named name: String, placesWidgets: Bool
    ) throws {
        let size = try string(icon, "gridSize", at: name, required: false) ?? "small"
        let shownSize = HomeScreen.sizes.contains(size) ? size : "small"
        if let elements = icon["elements"] {
            guard let list = elements.array, list.count <= HomeScreen.maxEntries else {
                throw malformed("'elements' of the stack at \(name) is not an array of at most "
                    + "\(HomeScreen.maxEntries) widgets")
            }
            let stack = try string(icon, "displayIdentifier", at: name, required: false) ?? ""
            for (index, element) in list.enumerated() {
                guard let dictionary = element.dictionary else {
                    throw malformed("element \(index + 1) of the stack at \(name) is \(element.typeName)")
                }
                try self.element(dictionary, place: place, page: page, size: shownSize, stack: stack,
                    named: "element \(index + 1) of the stack at \(name)", placesWidgets: placesWidgets)
            }
        } else if icon["elementType"] != nil {
            try element(icon, place: place, page: page, size: shownSize, stack: nil, named: name,
                placesWidgets: placesWidgets)
        } else {
            throw malformed("the custom icon at \(name) has neither 'elementType' nor 'elements'")
        }
    }

    private mutating func element(
        _ element: [String: PropertyListValue], place: String, page: Int?, size: String, stack: String?,
        named name: String, placesWidgets: Bool
    ) throws {
        guard let type = try string(element, "elementType", at: name, required: true), type == "widget" else {
            _ = try string(element, "uniqueIdentifier", at: name, required: false)
            return
        }
        let kind = try string(element, "widgetIdentifier", at: name, required: true)!
        let extensionId = try string(element, "bundleIdentifier", at: name, required: true)!
        let app = try string(element, "containerBundleIdentifier", at: name, required: false)
        let id = try string(element, "uniqueIdentifier", at: name, required: true)!
        do {
            try DeviceValue.flagKey(kind, field: "widgetIdentifier")
            try DeviceValue.identifier(extensionId, field: "bundleIdentifier")
            if let app { try DeviceValue.bundleIdentifier(app, field: "containerBundleIdentifier") }
            try DeviceValue.flagKey(id, field: "uniqueIdentifier")
        } catch {
            throw malformed("the widget at \(name): \(error)")
        }
        guard ids.insert(id).inserted else { throw malformed("the widget id \(id) is used twice") }
        guard placesWidgets else { return }
        found.append(
            PlacedWidget(
                place: place, page: page, app: app, extensionId: extensionId, kind: kind, size: size, id: id,
                stack: stack))
    }

    private func string(
        _ dictionary: [String: PropertyListValue], _ key: String, at name: String, required: Bool
    ) throws -> String? {
        guard let value = dictionary[key] else {
            if required { throw malformed("the widget at \(name) has no '\(key)'") }
            return nil
        }
        guard let text = value.string else {
            throw malformed("'\(key)' at \(name) is \(value.typeName), not a string")
        }
        return text
    }

    private func malformed(_ reason: String) -> DeviceError {
        DeviceError.malformedPlist(path: path, reason: reason)
    }
}
