// NudgeSettings+Validation: widget settings checked before a marker is created or a nudge scheduled.

extension NudgeSettings {
    /// Checks every field with `DeviceValue`: the marker is a file name, the flag key a key, the delay
    /// from 0 to a year, the texts within their caps. Fields are named by their stored keys
    /// (`markerFileName`, ...), as a manifest and an Info.plist spell them.
    public func validate() throws(DeviceValueError) {
        try DeviceValue.delay(delaySeconds, field: "delaySeconds")
        try DeviceValue.text(title, field: "title", maxBytes: DeviceValue.maxTitleBytes)
        try DeviceValue.text(body, field: "body", maxBytes: DeviceValue.maxBodyBytes)
        try DeviceValue.fileName(markerFileName, field: "markerFileName")
        try DeviceValue.flagKey(flagKey, field: "flagKey")
    }
}
