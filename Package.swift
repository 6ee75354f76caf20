// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "SmartDeviceLink",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SmartDeviceLink", targets: ["SmartDeviceLink"]),
        .library(name: "SDLEmulator", targets: ["SDLEmulator"]),
        .library(name: "SDLScenario", targets: ["SDLScenario"]),
        .executable(name: "sdl-run", targets: ["sdl-run"]),
    ],
    dependencies: [
        // The command line of sdl-run: one ParsableCommand per subcommand.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Logging with per-module levels; the API every server-side Swift library logs through.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // sdl_core's HMI interface is a WebSocket: NIOWebSocket does its framing, masking and
        // upgrade (`sdl-run --hmi`), a maintained implementation instead of one of our own.
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        // `swift package generate-documentation`: the library's DocC catalog rendered, and
        // checked in CI (a broken symbol link fails it). A plugin only: nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libusb-1.0 from Debian's libusb-1.0-0-dev: the USB transport (host role).
        .systemLibrary(
            name: "CLibUSB",
            pkgConfig: "libusb-1.0",
            providers: [.apt(["libusb-1.0-0-dev"])]
        ),
        // BlueZ from Debian's libbluetooth-dev: RFCOMM sockets and SDP.
        .systemLibrary(
            name: "CBlueZ",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        // sd-bus from Debian's libsystemd-dev: BlueZ's D-Bus API (RegisterProfile), which a
        // stock bluetoothd 5 offers where its legacy SDP socket needs compatibility mode.
        // Chosen over libdbus-1 for its typed message reading (fds included) and object
        // vtables, and present wherever systemd runs bluetoothd.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // libedit from Debian's libedit-dev: line editing, history and completion for
        // `sdl-run console`. BSD-licensed like this package (GNU readline is GPL-3).
        .systemLibrary(
            name: "CEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        // zlib from Debian's zlib1g-dev: its crc32 (PutFile's checksum, the emulator's check
        // of every chunk) reads several bytes a step where a table lookup per byte costs
        // 5-8x more (sdl-benchmark prints both). zlib is on every system that has Swift.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // OpenSSL from Debian's libssl-dev: the TLS of protected services (the handshake and
        // records inside SDL frames), as sdl_core's own security manager uses it.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // TLS over memory buffers in C: OpenSSL's BIO and SSL_CTX macros never reach Swift.
        .target(name: "CSDLTLS", dependencies: ["COpenSSL"]),
        // The console's line editing in C: libedit's readline globals never reach Swift.
        .target(name: "CSDLConsole", dependencies: ["CEdit"]),
        // Wrappers for what Swift cannot import: variadic libusb_set_option, BlueZ's
        // compound-literal and function-like macros, sd-bus's vtable macros.
        .target(name: "CSDLShim", dependencies: ["CLibUSB", "CBlueZ", "CSystemd"]),
        // CRC-32 folded with carry-less multiplication where the CPU has it: several times
        // zlib's speed on every PutFile chunk (sdl-benchmark prints both); zlib does the rest.
        .target(name: "CSDLChecksum"),
        .target(
            name: "SmartDeviceLink",
            dependencies: [
                "CSDLShim", "CSDLChecksum", "CSDLTLS", "CLibUSB", "CBlueZ", "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ],
            // The generator's input; the same JSON is compiled in via Generated/SpecDigestData.swift.
            exclude: ["RPC/Spec/rpc_spec_digest.json"],
            swiftSettings: strict
        ),
        .target(name: "SDLEmulator", dependencies: ["SmartDeviceLink"], swiftSettings: strict),
        .target(name: "SDLScenario", dependencies: ["SmartDeviceLink", "SDLEmulator"], swiftSettings: strict),
        // sdl-run as the HMI of a real sdl_core (`--hmi`); its own target, so that only what
        // talks to core carries SwiftNIO.
        .target(
            name: "SDLCoreHMI",
            dependencies: [
                // Not the emulator: the HMI stands on its own, so a run on core never compares the emulator with itself.
                "SmartDeviceLink", "SDLScenario",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "sdl-run",
            dependencies: [
                "SmartDeviceLink", "SDLEmulator", "SDLScenario", "SDLCoreHMI", "CSDLConsole",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Benchmarks: ratios against baselines measured in the same run (`swift run -c release sdl-benchmark`).
        // Fuzz targets: the parsers that read what peers and users send (`scripts/fuzz`).
        .target(name: "SDLFuzz", dependencies: ["SmartDeviceLink", "SDLScenario"], swiftSettings: strict),
        .executableTarget(name: "sdl-fuzz", dependencies: ["SDLFuzz"], swiftSettings: strict),
        .executableTarget(name: "sdl-benchmark", dependencies: ["SmartDeviceLink", "SDLEmulator", "SDLScenario", "SDLCoreHMI", "CLibUSB", "CSDLShim",
                                                           .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        // What more than one test target needs (a clock tests move by hand, blocking work off the pool); never shipped.
        .target(name: "SDLTestSupport", dependencies: ["SmartDeviceLink"], path: "Tests/SDLTestSupport", swiftSettings: strict),
        .testTarget(name: "SmartDeviceLinkTests", dependencies: ["SmartDeviceLink", "SDLTestSupport"], swiftSettings: strict),
        .testTarget(name: "SDLManagerTests", dependencies: ["SmartDeviceLink", "SDLEmulator", "SDLTestSupport"], swiftSettings: strict),
        .testTarget(name: "SDLEmulatorTests", dependencies: ["SDLEmulator", "SmartDeviceLink", "SDLTestSupport"], swiftSettings: strict),
        .testTarget(name: "SDLFuzzTests", dependencies: ["SDLFuzz"], exclude: ["Inputs"], swiftSettings: strict),
        .testTarget(
            name: "SDLScenarioTests", dependencies: ["SDLScenario", "SDLCoreHMI", "SDLEmulator", "SmartDeviceLink", "SDLTestSupport"],
            exclude: ["Fixtures"], swiftSettings: strict),
    ]
)
