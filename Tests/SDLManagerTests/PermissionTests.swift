import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("PermissionManager from OnPermissionsChange and the HMI level")
struct PermissionTests {
    @Test("Show is disallowed in NONE and allowed in FULL, as the policy table says")
    func rpcAllowedByLevel() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "perm-1"))
        try await manager.start()
        _ = try await manager.send(ListFiles(), timeout: nil)  // OnPermissionsChange has arrived
        let permissions = manager.permissionManager
        #expect(await permissions.isRPCAllowed("Show") == false)
        #expect(await permissions.groupStatus(of: ["Show", "AddCommand"]) == .disallowed)
        try await emulator.activateApp("perm-1")
        _ = await manager.firstNonNoneHMILevel()
        #expect(await permissions.isRPCAllowed("Show"))
        #expect(await permissions.groupStatus(of: ["Show", "AddCommand"]) == .allowed)
        #expect(await permissions.groupStatus(of: ["Show", "NoSuchRPC"]) == .mixed)
        await manager.stop()
    }

    @Test("observers fire when added and then exactly when their group changes; removal stops them")
    func observers() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "perm-2"))
        try await manager.start()
        _ = try await manager.send(ListFiles(), timeout: nil)
        let permissions = manager.permissionManager
        // OnPermissionsChange is applied as the listener gets to it, which under a sanitizer can
        // be after the response above: observers added before it would see one change more.
        let deadline = ContinuousClock.now + .seconds(10)
        while await permissions.groupStatus(of: ["ListFiles"]) != .allowed, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let (anyChange, anyTask) = Recorder<PermissionGroupStatus>.recording(AsyncStream { continuation in
            Task { await permissions.addObserver(for: ["Show", "Alert"], mode: .anyChange) { _, group in continuation.yield(group) } }
        })
        let (allAllowed, allTask) = Recorder<PermissionGroupStatus>.recording(AsyncStream { continuation in
            Task { await permissions.addObserver(for: ["Show", "Alert"], mode: .allAllowed) { _, group in continuation.yield(group) } }
        })
        // ListFiles is allowed in NONE and FULL alike: its observer fires when added, and never again.
        let (unrelated, unrelatedTask) = Recorder<PermissionGroupStatus>.recording(AsyncStream { continuation in
            Task { await permissions.addObserver(for: ["ListFiles"], mode: .anyChange) { _, group in continuation.yield(group) } }
        })
        await anyChange.waitFor(1)
        await allAllowed.waitFor(1)
        try await emulator.activateApp("perm-2")
        await anyChange.waitFor(2)
        await allAllowed.waitFor(2)
        #expect(await anyChange.values == [.disallowed, .allowed])
        #expect(await allAllowed.values == [.disallowed, .allowed])
        #expect(await unrelated.values == [.allowed])
        await manager.stop()  // back to NONE: the group observer fires once more
        await anyChange.waitFor(3)
        #expect(await anyChange.values.last == .disallowed)
        unrelatedTask.cancel()
        anyTask.cancel()
        allTask.cancel()
    }
}
