// swift-tools-version:6.1
import PackageDescription

// A media app as sdl_ios's example app is one, built against SmartDeviceLink as any app's
// package would be: by path here, by URL in an app of your own.
let package = Package(
    name: "MediaApp",
    dependencies: [
        .package(name: "SmartDeviceLink", path: "../.."),
        // Where the library's log lines go is the app's choice (swift-log's bootstrap).
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The app itself, a library so that its tests drive it against the emulator.
        .target(name: "MediaApp", dependencies: [.product(name: "SmartDeviceLink", package: "SmartDeviceLink")],
                resources: [.copy("cover.png")], swiftSettings: [.swiftLanguageMode(.v6)]),
        // `swift run media-app [--tcp HOST:PORT | --usb | --usb-gadget | --bt ...]`
        .executableTarget(name: "media-app", dependencies: ["MediaApp", .product(name: "Logging", package: "swift-log")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "MediaAppTests", dependencies: [
            "MediaApp",
            .product(name: "SmartDeviceLink", package: "SmartDeviceLink"),
            .product(name: "SDLEmulator", package: "SmartDeviceLink"),
        ], swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
