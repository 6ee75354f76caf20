import SDLEmulator
import SmartDeviceLink

/// One workload alone, no baseline and nothing else, to run under `perf record -g` (valgrind
/// cannot read Swift 6's debug information here).
enum Profiles {
    static func run(_ mode: String, variant: String?) async throws {
        switch (mode, variant) {
        case ("profile-framing", _):
            let payload = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let sizes = variant.flatMap { Int($0) }.map { [$0] } ?? [131_072, 1488]
            for mtu in sizes { for _ in 0..<40 { Bench.frameAndReassemble(payload, mtu: mtu) } }
        case ("profile-roundtrip", "raw"):
            print(try await Bench.rawTCPRoundTrips(count: 30_000, requestSize: 60, responseSize: 63))
        case ("profile-roundtrip", "thin"):
            print(try await Bench.thinRoundTrips(count: 30_000, show, pinned: false))
        case ("profile-roundtrip", "thin-pinned"):
            print(try await Bench.thinRoundTrips(count: 30_000, show, pinned: true))
        case ("profile-roundtrip", "memory"):
            var machines = try InMemoryRoundTrips()
            try machines.run(count: 300_000, show)
        case ("profile-roundtrip", nil):
            let (headUnit, connection) = try await Bench.registeredOverTCP(Bench.unlimited)
            try await headUnit.activateApp("bench")
            try await Bench.showRoundTrips(count: 30_000, show, on: connection, pinned: false)
        case ("profile-upload", "raw"):
            print(try await Bench.rawTCPBulk(bytes: 80 << 20, chunk: 64 * 1024, window: 4))
        case ("profile-upload", "thin"):
            print(try await Bench.thinRoundTrips { connection in
                for round in 0..<40 { try await upload(round, with: connection) }
            })
        case ("profile-upload", "byhand"), ("profile-upload", "byhand-link"):
            // PutFile by hand, one chunk at a time, waiting on the shared pool or on the link's reader thread.
            let (headUnit, connection) = try await Bench.registeredOverTCP(Bench.unlimited)
            try await headUnit.activateApp("bench")
            print(try await withTaskExecutorPreference(variant == "byhand-link" ? connection.linkExecutor : nil) {
                try await ContinuousClock().measure {
                    for round in 0..<10 { try await Bench.putFileByHand(file, chunk: 64 * 1024, as: "by-hand-\(round).bin", on: connection) }
                }
            })
        case ("profile-upload", nil):
            // 80 MiB: under the emulator's storage quota.
            let (headUnit, connection) = try await Bench.registeredOverTCP(Bench.unlimited)
            try await headUnit.activateApp("bench")
            print(try await ContinuousClock().measure { for round in 0..<10 { try await upload(round, with: connection) } })
        default:
            print("usage: sdl-benchmark profile-framing [FRAME SIZE] | profile-roundtrip [thin|thin-pinned|raw|memory] | profile-upload [thin|raw|byhand|byhand-link]")
        }
    }

    static let show = Show(mainField1: "Hello", mainField2: "bench")
    static let file = [UInt8](repeating: 0x5A, count: 8 << 20)

    /// 8 MiB through the file manager in 64 KiB chunks, four in flight.
    static func upload(_ round: Int, with connection: SDLConnection) async throws {
        let files = SDLFileManager(channel: connection, chunkSize: 64 * 1024, pacing: UploadPacing(window: 4, maximumRequestsPerSecond: nil))
        try await files.upload(SDLFile(name: "profile-\(round).bin", source: .data(file), fileType: .binary))
    }
}
