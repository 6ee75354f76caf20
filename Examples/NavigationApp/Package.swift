// swift-tools-version:6.1
import PackageDescription

// A navigation app: video to the head unit's screen, touches back, turn-by-turn. Built
// against SmartDeviceLink as any app's package would be: by path here, by URL in yours.
let package = Package(
    name: "NavigationApp",
    dependencies: [
        .package(name: "SmartDeviceLink", path: "../.."),
        // Where the library's log lines go is the app's choice (swift-log's bootstrap).
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The app itself, a library so that its tests drive it against the emulator.
        // pattern.h264, the built-in video: two seconds of ffmpeg's test pattern at 800x480,
        // 30 fps, H.264 baseline, a key frame with its parameter sets each second
        // (`ffmpeg -f lavfi -i testsrc=size=800x480:rate=30 -t 2 -c:v libx264 -profile:v baseline
        // -pix_fmt yuv420p -g 30 -bf 0 -x264-params repeat-headers=1 -f h264 pattern.h264`).
        .target(name: "NavigationApp", dependencies: [.product(name: "SmartDeviceLink", package: "SmartDeviceLink")],
                resources: [.copy("pattern.h264")], swiftSettings: [.swiftLanguageMode(.v6)]),
        // `swift run nav-app [--video FILE.h264] [--tcp HOST:PORT | --usb | --usb-gadget | --bt ...]`
        .executableTarget(name: "nav-app", dependencies: ["NavigationApp", .product(name: "Logging", package: "swift-log")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "NavigationAppTests", dependencies: [
            "NavigationApp",
            .product(name: "SmartDeviceLink", package: "SmartDeviceLink"),
            .product(name: "SDLEmulator", package: "SmartDeviceLink"),
        ], swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
