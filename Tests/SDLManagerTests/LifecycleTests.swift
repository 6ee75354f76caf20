import SDLEmulator
import SDLTestSupport
import SmartDeviceLink
import Testing

/// A transport choice that reaches `emulator` through a fresh in-memory link each time.
func emulatorChoice(_ emulator: HeadUnitEmulator) -> TransportChoice {
    TransportChoice("embedded emulator") {
        let (app, headUnit) = MemoryTransport.pair()
        Task { await emulator.serve(headUnit) }
        return app
    }
}

func configuration(_ emulator: HeadUnitEmulator, name: String = "Lifecycle App", appID: String = "lifecycle-1",
                   change: (inout SDLConfiguration) -> Void = { _ in }) -> SDLConfiguration {
    // The registration limit is for a head unit that never answers, not a measure: with every
    // suite running at once on two cores (and under sanitizers), a handshake can wait seconds
    // for a thread.
    var configuration = SDLConfiguration(appName: name, appID: appID, transports: [emulatorChoice(emulator)],
                                         reconnect: ReconnectPolicy(initialDelay: .milliseconds(20), maximumAttempts: 3),
                                         registrationTimeout: .seconds(30))
    // The emulator sends core's default icon URL (on the web); only the lock screen tests fetch, from loopback.
    configuration.lockScreen.fetchIcon = false
    change(&configuration)
    return configuration
}

/// Collects a stream's values in the background for later assertions.
actor Recorder<Value: Sendable> {
    private(set) var values: [Value] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var conditions: [(id: Int, holds: @Sendable ([Value]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextCondition = 0

    func add(_ value: Value) {
        values.append(value)
        let met = conditions.filter { $0.holds(values) }
        conditions.removeAll { $0.holds(values) }
        for condition in met { condition.continuation.resume(returning: true) }
        let ready = waiters.filter { $0.count <= values.count }
        waiters.removeAll { $0.count <= values.count }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once `count` values arrived, or after `timeout` (the caller's expectations
    /// then fail with what did arrive, instead of the test hanging).
    func waitFor(_ count: Int, timeout: Duration = .seconds(10)) async {
        guard values.count < count else { return }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.expire(count)
        }
        await withCheckedContinuation { waiters.append((count, $0)) }
        timer.cancel()
    }

    /// Returns true once the values so far satisfy `holds`, false after `timeout`.
    func waitUntil(timeout: Duration = .seconds(10), _ holds: @escaping @Sendable ([Value]) -> Bool) async -> Bool {
        if holds(values) { return true }
        nextCondition += 1
        let id = nextCondition
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.expireCondition(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { conditions.append((id, holds, $0)) }
    }

    private func expireCondition(_ id: Int) {
        guard let index = conditions.firstIndex(where: { $0.id == id }) else { return }
        conditions.remove(at: index).continuation.resume(returning: false)
    }

    private func expire(_ count: Int) {
        let expired = waiters.filter { $0.count == count }
        waiters.removeAll { $0.count == count }
        for waiter in expired { waiter.continuation.resume() }
    }

    static func recording(_ stream: AsyncStream<Value>) -> (Recorder, Task<Void, Never>) {
        let recorder = Recorder()
        let task = Task { for await value in stream { await recorder.add(value) } }
        return (recorder, task)
    }
}

@Suite("SDLManager lifecycle against the emulator", .serialized)
struct LifecycleTests {
    @Test("start goes stopped → connecting → registered → setting up managers → ready")
    func startsAndRegisters() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator))
        let (states, task) = Recorder.recording(await manager.states())
        try await manager.start()
        await states.waitFor(5)
        #expect(await states.values == [.stopped, .connecting, .registered, .settingUpManagers, .ready])
        #expect(await manager.registration?.displayCapabilities != nil)
        #expect(await manager.session?.version == ProtocolVersion(5, 4, 0))
        await manager.stop()
        #expect(await emulator.snapshot().apps.isEmpty, "stop unregisters the app")
        task.cancel()
    }

    @Test("messages() carries responses as well as notifications; after stop, a request is refused as not connected",
          .timeLimit(.minutes(1)))
    func messagesAndSendPath() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator))
        try await manager.start()
        // Subscribed after the start: the manager takes responses in only while someone here
        // takes every message.
        let messages = await manager.messages()
        let answer = try await manager.send(ListFiles(), timeout: nil)
        #expect(answer.success)
        var seen: RPCEnvelope?
        for await envelope in messages where envelope.messageType == .response {
            seen = envelope
            break
        }
        #expect(seen?.functionID == ListFiles.functionID)
        await manager.stop()
        let refused = await #expect(throws: SDLError.self) { try await manager.send(ListFiles(), timeout: nil) }
        guard case .notConnected? = refused else {
            Issue.record("after stop: \(String(describing: refused)), not notConnected")
            return
        }
    }

    @Test("the transport plan falls back to the next choice when one cannot connect")
    func transportPlanFallsBack() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator) {
            $0.transports.insert(.tcp(host: "127.0.0.1", port: 1), at: 0)
        })
        try await manager.start()
        #expect(await manager.state == .ready)
        await manager.stop()
    }

    @Test("a refused registration (DUPLICATE_NAME, as core) ends in a clear error and stopped")
    func refusedRegistration() async throws {
        let emulator = HeadUnitEmulator()
        let first = SDLManager(configuration: configuration(emulator, appID: "first"))
        try await first.start()
        let second = SDLManager(configuration: configuration(emulator, appID: "second"))
        await #expect {
            try await second.start()
        } throws: { error in
            "\(error)" == "RegisterAppInterface failed with DUPLICATE_NAME" || "\(error)".hasPrefix("RegisterAppInterface failed with DUPLICATE_NAME:")
        }
        #expect(await second.state == .stopped)
        await first.stop()
    }

    @Test("a head unit that never answers ends in a timeout, never connecting forever")
    func registrationTimeout() async throws {
        let silent = TransportChoice("silent") { MemoryTransport.pair().app }
        let manager = SDLManager(configuration: SDLConfiguration(
            appName: "Waiting", appID: "waiting", transports: [silent], registrationTimeout: .milliseconds(300)))
        await #expect {
            try await manager.start()
        } throws: { error in
            guard case SDLError.startTimedOut = error else { return false }
            return true
        }
        #expect(await manager.state == .stopped)
    }

    @Test("a minimum RPC version above the head unit's is refused with the versions named")
    func minimumRPCVersion() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator) { $0.minimumRPCVersion = ProtocolVersion(9) })
        await #expect {
            try await manager.start()
        } throws: { error in
            "\(error)".contains("below the minimum 9.0.0")
        }
        #expect(await emulator.snapshot().apps.isEmpty, "the app unregistered again")
    }

    @Test("HMI changes report old and new values, only on a real change; first non-NONE level")
    func hmiChanges() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator))
        try await manager.start()
        _ = try await manager.send(ListFiles(), timeout: nil)  // the first OnHMIStatus(NONE) has arrived
        let (changes, task) = Recorder.recording(await manager.hmiChanges())
        async let first = manager.firstNonNoneHMILevel()
        try await emulator.activateApp("lifecycle-1")
        #expect(await first == .full)
        await changes.waitFor(1)
        let change = try #require(await changes.values.first)
        #expect(change.old.hmiLevel == HMILevel.none && change.new.hmiLevel == .full && change.hmiLevelChanged)
        #expect(change.new.audioStreamingState == .notAudible, "a non-media app is not audible in FULL")
        try await emulator.activateApp("lifecycle-1")  // already FULL: core sends nothing, nothing fires
        _ = try await manager.send(ListFiles(), timeout: nil)
        #expect(await changes.values.count == 1)
        await manager.stop()
        task.cancel()
    }

    @Test("a dropped link reconnects with back-off and registers again")
    func reconnects() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator))
        try await manager.start()
        let (states, task) = Recorder.recording(await manager.states())
        try await emulator.dropTransport(appID: "lifecycle-1")
        await states.waitFor(5)
        #expect(await states.values == [.ready, .reconnecting(attempt: 1), .registered, .settingUpManagers, .ready])
        #expect(await manager.state == .ready)
        #expect(await emulator.snapshot().apps.contains { $0.appID == "lifecycle-1" })
        await manager.stop()
        task.cancel()
    }

    @Test("the reconnect back-off waits on the configured clock: nothing is tried until that clock has moved")
    func backOffOnInjectedClock() async throws {
        let emulator = HeadUnitEmulator()
        let clock = ManualClock()
        let manager = SDLManager(configuration: configuration(emulator, appID: "clocked-1") {
            $0.reconnect = ReconnectPolicy(initialDelay: .seconds(30), maximumAttempts: 1)
            $0.clock = LinkClock(clock)
        })
        try await manager.start()
        let (states, task) = Recorder.recording(await manager.states())
        try await emulator.dropTransport(appID: "clocked-1")
        await states.waitFor(2)
        #expect(await states.values == [.ready, .reconnecting(attempt: 1)])
        // The manager is parked on the injected clock (no wall-clock sleep), and the head
        // unit has not seen it again.
        await clock.waitForSleepers(1)
        #expect(await emulator.snapshot().apps.isEmpty)
        clock.advance(by: .seconds(30))
        await states.waitFor(5)
        #expect(await states.values.suffix(3) == [.registered, .settingUpManagers, .ready])
        await manager.stop()
        task.cancel()
    }

    @Test("reconnecting gives up after the policy's attempts and says why")
    func reconnectLimit() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator) {
            $0.reconnect = ReconnectPolicy(initialDelay: .milliseconds(10), maximumAttempts: 2)
            $0.registrationTimeout = .milliseconds(200)
        })
        try await manager.start()
        let (states, task) = Recorder.recording(await manager.states())
        await emulator.stop()  // the head unit is gone for good
        await states.waitFor(4)
        #expect(await states.values == [.ready, .reconnecting(attempt: 1), .reconnecting(attempt: 2), .stopped])
        #expect(await manager.lastError != nil)
        task.cancel()
    }

    @Test("back-off doubles up to the maximum")
    func backOff() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(500), multiplier: 2, maximumDelay: .seconds(3), maximumAttempts: 6)
        #expect((1...5).map { policy.delay(beforeAttempt: $0) } == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3)])
    }
}
