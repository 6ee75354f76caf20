@testable import SDLEmulator
import SmartDeviceLink
import Testing

/// A policy table update's life as core 8.2's policy manager runs it: the HMI told UPDATING,
/// the snapshot sent again on core's retry schedule while no update comes back, UP_TO_DATE
/// when one is applied; and core's own update for an app its table does not list.
@Suite("Policy table updates: status and retries")
struct PolicyUpdateCycleTests {
    /// Emulated time 1000 times faster: core's schedule (60 s, then 61 s, 126 s, ... 1081 s) in about 2 s.
    static func headUnit(_ change: (inout EmulatorConfiguration) -> Void = { _ in }) -> HeadUnitEmulator {
        HeadUnitEmulator(configuration: fastConfiguration {
            $0.timeScale = 0.001
            change(&$0)
        })
    }

    /// The SDL.OnStatusUpdate statuses the HMI was sent so far.
    static func statuses(_ headUnit: HeadUnitEmulator) async -> [String] {
        let messages = await headUnit.hmiMessages(since: 0, waitMS: 0)["messages"]?.arrayValue ?? []
        return messages.filter { $0["method"] == "SDL.OnStatusUpdate" }.compactMap { $0["params"]?["status"]?.stringValue }
    }

    /// The next OnSystemRequest PROPRIETARY (the lock screen's icon URL comes at registration too).
    static func nextSnapshot(_ app: TestApp) async throws -> RPCEnvelope {
        while true {
            let request = try await app.next("OnSystemRequest", timeout: .seconds(10))
            if request["requestType"] == "PROPRIETARY" { return request }
        }
    }

    /// The OnSystemRequest PROPRIETARY that arrived and were not taken yet.
    static func snapshotsLeft(_ app: TestApp) async -> Int {
        await app.inbox.take("OnSystemRequest").filter { $0["requestType"] == "PROPRIETARY" }.count
    }

    @Test("core's retry schedule: 60 s for the first answer, then waits growing by 1, 5, 25, 125, 625 s")
    func schedule() {
        #expect((0...5).map(HeadUnitEmulator.policyUpdateWaitMs(before:)) == [60_000, 61_000, 126_000, 211_000, 396_000, 1_081_000])
    }

    @Test("no update comes back: the snapshot again on each of the five retries, UPDATE_NEEDED between them and at the end")
    func retriesRunOut() async throws {
        let headUnit = Self.headUnit()
        let app = try await activeApp(headUnit)
        try await headUnit.startPolicyUpdate()
        for _ in 1...6 { _ = try await Self.nextSnapshot(app) }
        var statuses: [String] = []
        for _ in 0..<400 where statuses.count < 12 {
            statuses = await Self.statuses(headUnit)
            try await Task.sleep(for: .milliseconds(10))
        }
        let retries: [String] = Array(repeating: ["UPDATE_NEEDED", "UPDATING"], count: 5).flatMap { $0 }
        let expected: [String] = ["UPDATING"] + retries + ["UPDATE_NEEDED"]
        #expect(statuses == expected)
        try await Task.sleep(for: .milliseconds(300))
        #expect(await Self.snapshotsLeft(app) == 0, "no seventh try")
        await headUnit.stop()
    }

    @Test("the update comes back on a retry: applied, UP_TO_DATE, no more tries")
    func answeredOnRetry() async throws {
        let headUnit = Self.headUnit { $0.timeScale = 0.01 }
        let app = try await activeApp(headUnit)
        try await headUnit.startPolicyUpdate()
        _ = try await Self.nextSnapshot(app)
        _ = try await Self.nextSnapshot(app)
        let update: JSONValue = ["policy_table": [
            "module_config": [:], "functional_groupings": ["Widgets": ["rpcs": ["CreateWindow": ["hmi_levels": ["FULL"]]]]],
            "app_policies": ["default": ["groups": ["Widgets"]], "app-1": ["groups": ["Widgets"]]],
        ]]
        let answer = try await app.request("SystemRequest", ["requestType": "PROPRIETARY", "fileName": "PolicyTableUpdate"],
                                           bulkData: update.serializedBytes())
        #expect(answer.resultCode == "SUCCESS")
        _ = await Self.snapshotsLeft(app)  // a retry may have crossed the answer on a busy machine
        let statuses = await Self.statuses(headUnit)
        #expect(Array(statuses.prefix(3)) == ["UPDATING", "UPDATE_NEEDED", "UPDATING"] && statuses.last == "UP_TO_DATE", "\(statuses)")
        #expect(try await app.request("CreateWindow", ["windowID": 1, "windowName": "W", "type": "WIDGET"]).resultCode == "SUCCESS")
        try await Task.sleep(for: .milliseconds(1500))  // past the next two tries' times
        #expect(await Self.snapshotsLeft(app) == 0, "the retries stopped")
        #expect(await Self.statuses(headUnit).last == "UP_TO_DATE")
        await headUnit.stop()
    }

    @Test("core's own update 2 s after an app its table does not list registers; none for a listed app, none when off")
    func newApps() async throws {
        let headUnit = Self.headUnit { $0.policyUpdate.startsForNewApps = true; $0.policy.apps["listed-1"] = PolicyTable.base }
        let unlisted = try await TestApp.connect(headUnit)
        try await unlisted.register(appID: "new-1")
        _ = try await Self.nextSnapshot(unlisted)
        await headUnit.stop()

        for (appID, startsForNewApps) in [("listed-1", true), ("new-1", false)] {
            let quiet = Self.headUnit { $0.policyUpdate.startsForNewApps = startsForNewApps; $0.policy.apps["listed-1"] = PolicyTable.base }
            let app = try await TestApp.connect(quiet)
            try await app.register(appID: appID)
            try await Task.sleep(for: .milliseconds(100))
            try await app.sync()
            #expect(await Self.snapshotsLeft(app) == 0, "\(appID)")
            await quiet.stop()
        }
    }
}
