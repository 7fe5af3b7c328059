// AppInstallation+Validation: an install request checked before anything is written.

extension AppInstallation {
    /// Checks the bundle id, the name (the `<name>.app` directory), each App Group (an identifier, no
    /// duplicates, at most `DeviceValue.maxGroupsPerApp`) and the widget's settings. Fields are named as a
    /// manifest's app spells them (`bundleId`, `name`, `groups[1]`, `widget.markerFileName`).
    public func validate() throws(DeviceValueError) {
        try DeviceValue.bundleIdentifier(bundleId, field: "bundleId")
        if let name { try DeviceValue.appName(name, field: "name") }
        try DeviceValue.flagKey(version, field: "version")
        try DeviceValue.flagKey(build, field: "build")
        try AppInstallation.validate(groups: groups)
        do {
            try widget?.validate()
        } catch {
            throw error.within("widget.")
        }
    }

    /// Checks a list of App Group identifiers: at most `limit`, each one, no duplicates.
    public static func validate(
        groups: [String], field: String = "groups", limit: Int = DeviceValue.maxGroupsPerApp
    ) throws(DeviceValueError) {
        try DeviceValue.count(groups.count, field: field, limit: limit)
        var seen: [String: Int] = [:]
        for (index, group) in groups.enumerated() {
            try DeviceValue.identifier(group, field: "\(field)[\(index)]")
            if let first = seen[group] {
                throw DeviceValueError(
                    field: "\(field)[\(index)]", value: group, problem: .duplicate(first: "\(field)[\(first)]"))
            }
            seen[group] = index
        }
    }
}
