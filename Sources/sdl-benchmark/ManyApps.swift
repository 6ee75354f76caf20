import Foundation
import SDLEmulator
import SmartDeviceLink

/// How the emulator serves many apps at once: each app sends a Show every `interval` for
/// `duration` over its own TCP connection; the median round trip of all of them, to set
/// against the same for one app. A paced load, as apps on a head unit are (not a flood,
/// which would measure only the queue).
enum ManyApps {
    static func medianRoundTrip(apps count: Int, interval: Duration, duration: Duration) async throws -> Duration {
        let headUnit = HeadUnitEmulator(configuration: Bench.unlimited)
        let port = try await headUnit.listen(host: "127.0.0.1", port: 0)
        var connections: [SDLConnection] = []
        for index in 0..<count {
            let connection = SDLConnection(transport: TCPTransport(host: "127.0.0.1", port: port))
            try await connection.start()
            let appID = "bench-\(index)"
            _ = try await connection.send(RegisterAppInterface(
                syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "Bench \(index)",
                isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appID: appID))
            try await headUnit.activateApp(appID)  // the others go to the background, where Show is allowed too
            connections.append(connection)
        }
        let clock = ContinuousClock()
        let end = clock.now + duration
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for (index, connection) in connections.enumerated() {
                group.addTask {
                    var mine: [Duration] = []
                    // Spread the apps' sends over the interval instead of all at its start.
                    var next = clock.now + interval * (Double(index) / Double(count))
                    while next < end {
                        try await clock.sleep(until: next)
                        let start = clock.now
                        let answer = try await connection.send(Show(mainField1: "app \(index)"))
                        precondition(answer.success, "\(answer.resultCode)")
                        mine.append(clock.now - start)
                        next += interval
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        for connection in connections { await connection.stop() }
        await headUnit.stop()
        let sorted = latencies.sorted()
        return sorted[sorted.count / 2]
    }
}
