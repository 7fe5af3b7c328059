// DeviceValueTests: the validators' limits at their edges, how a refused value is shown (escaped, truncated),
// and placing many widgets at once (one read, one write, nothing written when one is refused).
import DeviceKit
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct DeviceValueTests {
    @Test func limitsHoldAtTheirEdges() throws {
        try DeviceValue.bundleIdentifier(String(repeating: "a", count: 243), field: "f")
        #expect(throws: DeviceValueError.self) {
            try DeviceValue.bundleIdentifier(String(repeating: "a", count: 244), field: "f")
        }
        try DeviceValue.appName(String(repeating: "é", count: 125) + "x", field: "f")  // 251 bytes
        #expect(throws: DeviceValueError.self) {
            try DeviceValue.appName(String(repeating: "é", count: 126), field: "f")
        }
        try DeviceValue.delay(0, field: "f")
        try DeviceValue.delay(DeviceValue.maxDelaySeconds, field: "f")
        for bad in [-1, -0.001, DeviceValue.maxDelaySeconds + 1, .infinity, -.infinity, .nan, 1e308] {
            #expect(throws: DeviceValueError.self, "\(bad)") { try DeviceValue.delay(bad, field: "f") }
        }
        try DeviceValue.text("line one\n\tline two", field: "f", maxBytes: 100)
        #expect(throws: DeviceValueError.self) { try DeviceValue.text("a\rb", field: "f", maxBytes: 100) }
        try DeviceValue.fileName("...", field: "f")
        try DeviceValue.fileName(".hidden marker", field: "f")
        #expect(throws: DeviceValueError.self) { try DeviceValue.fileName("a\u{85}b", field: "f") }  // C1 control
    }

    @Test func aRefusedValueIsShownEscapedAndTruncated() throws {
        let error = #expect(throws: DeviceValueError.self) {
            try DeviceValue.fileName(
                "it's\u{1B}[2J" + String(repeating: "x", count: 200), field: "apps[0].widget.markerFileName")
        }
        let message = try #require(error).description
        #expect(message.hasPrefix("invalid value 'it\\'s\\u{1B}[2Jxxx"), "\(message)")
        #expect(message.contains("...(208 bytes)' for apps[0].widget.markerFileName: "), "\(message)")
        #expect(message.hasSuffix("a file name must not contain the control character U+001B"), "\(message)")
        #expect(!message.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func manyWidgetsArePlacedWithOneWrite() throws {
        try TestPhone.withDevice { device in
            var index = ContainerIndex(device: device)
            var installed: [InstalledApp] = []
            for number in 0..<50 {
                let app = AppInstallation(bundleId: "com.example.app\(number)")
                installed.append(try device.install(app, using: &index))
            }
            try device.install(AppInstallation(bundleId: "com.example.plain", widget: nil))
            try device.placeWidget(app: "com.example.app7")
            let layout = device.path(DeviceLayout.homeScreen)
            let before = try FileStatus.of(layout)
            // Unknown and widget-less apps are refused before anything is written.
            #expect(throws: DeviceError.unknownApp("com.example.none")) {
                try device.placeWidgets(apps: ["com.example.app1", "com.example.none"], installed: installed)
            }
            #expect(throws: DeviceError.noWidget(app: "com.example.plain")) {
                try device.placeWidgets(apps: ["com.example.app1", "com.example.plain"])
            }
            #expect(try FileStatus.of(layout).inode == before.inode)
            let all = installed.map(\.bundleId)
            try device.placeWidgets(apps: all, installed: installed)
            #expect(try device.homeScreen().widgets == ["com.example.app7"] + all.filter { $0 != "com.example.app7" })
            // Nothing new to place: the layout is not rewritten.
            let placed = try FileStatus.of(layout)
            try device.placeWidgets(apps: all.reversed())
            #expect(try FileStatus.of(layout).inode == placed.inode)
        }
    }
}
