import SmartDeviceLink
import Testing

/// A scripted head unit on the other end of a MemoryTransport: it accepts the session and
/// answers requests with `respond` (nil = stay silent).
actor ScriptedHeadUnit {
    let link: any SDLTransport
    var machine = HeadUnitProtocolMachine(configuration: .headUnit)
    let respond: @Sendable (RPCPacket) -> JSONObject?
    private(set) var requests: [RPCPacket] = [] {
        didSet { wakeWaiters() }
    }
    /// The service each request arrived on.
    private(set) var services: [ServiceType] = []
    private var requestWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once `count` requests have arrived, or after `limit` (the test's expectations
    /// then fail with what did arrive, instead of the run hanging).
    func waitForRequests(_ count: Int, within limit: Duration = .seconds(10)) async {
        guard requests.count < count else { return }
        let timer = Task {
            try? await Task.sleep(for: limit)
            self.giveUpWaiting(for: count)
        }
        defer { timer.cancel() }
        await withCheckedContinuation { requestWaiters.append((count, $0)) }
    }

    private func giveUpWaiting(for count: Int) {
        for waiter in requestWaiters where waiter.count == count { waiter.continuation.resume() }
        requestWaiters.removeAll { $0.count == count }
    }

    private func wakeWaiters() {
        let ready = requestWaiters.filter { $0.count <= requests.count }
        requestWaiters.removeAll { $0.count <= requests.count }
        for waiter in ready { waiter.continuation.resume() }
    }

    init(link: any SDLTransport, respond: @escaping @Sendable (RPCPacket) -> JSONObject?) {
        self.link = link
        self.respond = respond
    }

    func run() async {
        do {
            for try await chunk in link.incoming {
                for action in machine.receive(chunk, now: .now) { await handle(action) }
            }
        } catch {}
    }

    private func handle(_ action: ProtocolAction) async {
        switch action {
        case .send(let bytes):
            try? await link.send(bytes)
        case .startServiceRequested(let request):
            for next in (try? machine.acceptStartService(request, now: .now)) ?? [] { await handle(next) }
        case .message(let session, let service, let payload, _):
            guard let packet = try? RPCPacket(decoding: payload) else { return }
            services.append(service)
            requests.append(packet)
            guard packet.messageType == .request, let answer = respond(packet) else { return }
            let response = RPCPacket(messageType: .response, functionID: packet.functionID, correlationID: packet.correlationID,
                                     json: JSONValue.object(answer).serializedBytes())
            for next in (try? machine.send(response.encoded, service: .rpc, sessionID: session, now: .now)) ?? [] { await handle(next) }
        default:
            break
        }
    }

    func notify(functionID: UInt32, _ parameters: JSONObject) async {
        let packet = RPCPacket(messageType: .notification, functionID: functionID, correlationID: -1,
                               json: JSONValue.object(parameters).serializedBytes())
        guard let session = machine.activeSessions.keys.first else { return }
        for action in (try? machine.send(packet.encoded, service: .rpc, sessionID: session, now: .now)) ?? [] { await handle(action) }
    }
}

@Suite("SDLConnection: the RPC dispatcher")
struct SDLConnectionTests {
    func connect(
        requestTimeout: Duration = .seconds(10), chunkSize: Int? = nil,
        respond: @escaping @Sendable (RPCPacket) -> JSONObject? = { _ in ["success": true, "resultCode": "SUCCESS"] }
    ) async throws -> (SDLConnection, ScriptedHeadUnit, Task<Void, Never>) {
        let (app, headUnitEnd) = MemoryTransport.pair(chunkSize: chunkSize)
        let headUnit = ScriptedHeadUnit(link: headUnitEnd, respond: respond)
        let task = Task { await headUnit.run() }
        let connection = SDLConnection(transport: app, configuration: .init(requestTimeout: requestTimeout))
        let session = try await connection.start()
        #expect(session.version == ProtocolVersion(5, 4, 0))
        return (connection, headUnit, task)
    }

    @Test("a response is matched to its request by correlation id, even out of order")
    func matchesResponses() async throws {
        let (connection, _, task) = try await connect(chunkSize: 5) { packet in
            ["success": true, "resultCode": "SUCCESS", "info": .string("cid \(packet.correlationID)")]
        }
        async let first = connection.request(functionID: 13, functionName: "Show", parameters: ["mainField1": "a"])
        async let second = connection.request(functionID: 13, functionName: "Show", parameters: ["mainField1": "b"])
        let (a, b) = try await (first, second)
        #expect(a.parameters["info"] == .string("cid \(a.correlationID)"))
        #expect(b.parameters["info"] == .string("cid \(b.correlationID)"))
        #expect(a.correlationID != b.correlationID)
        await connection.stop()
        task.cancel()
    }

    @Test("an upload's window reaches the wire: four chunks in offset order before any answer")
    func uploadWindowOnTheWire() async throws {
        let (connection, headUnit, task) = try await connect { _ in nil }  // answers nothing
        let files = SDLFileManager(channel: connection, chunkSize: 100, pacing: UploadPacing(window: 4, maximumRequestsPerSecond: nil))
        let upload = Task { try await files.upload(SDLFile(name: "w.bin", source: .data([UInt8](repeating: 7, count: 1000)), fileType: .binary)) }
        await headUnit.waitForRequests(4)
        let offsets = try await headUnit.requests.map { try JSONValue.parse($0.json)["offset"] }
        #expect(offsets == [0, 100, 200, 300])
        upload.cancel()
        await connection.stop()
        task.cancel()
    }

    @Test("each chunk on the wire is the PutFile the typed API would send: the file's parameters, its own offset, length and CRC, its bytes")
    func chunksOnTheWire() async throws {
        let (connection, headUnit, task) = try await connect()
        let files = SDLFileManager(channel: connection, chunkSize: 100, pacing: UploadPacing(window: 4, maximumRequestsPerSecond: nil))
        let file = (0..<1050).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try await files.upload(SDLFile(name: "w.bin", source: .data(file), fileType: .binary, isPersistent: true))
        let requests = await headUnit.requests
        #expect(requests.count == 11)
        for (index, packet) in requests.enumerated() {
            let offset = index * 100
            let bytes = Array(file[offset..<min(offset + 100, file.count)])
            let expected = PutFile(syncFileName: "w.bin", fileType: .binary, persistentFile: true, systemFile: false, offset: offset,
                                   length: offset == 0 ? file.count : bytes.count, crc: Int(CRC32.checksum(bytes)))
            #expect(try JSONValue.parse(packet.json) == expected.json, "chunk \(index)")
            #expect(Array(packet.bulkData) == bytes, "chunk \(index)")
        }
        await connection.stop()
        task.cancel()
    }

    @Test("a silent head unit makes the request time out with a message naming it")
    func timesOut() async throws {
        let (connection, _, task) = try await connect(requestTimeout: .milliseconds(200)) { _ in nil }
        await #expect {
            _ = try await connection.request(functionID: 13, functionName: "Show", parameters: [:])
        } throws: { error in
            guard case SDLError.requestTimedOut(let function, _, _) = error else { return false }
            return function == "Show" && "\(error)".contains("got no response within")
        }
        await connection.stop()
        task.cancel()
    }

    @Test("requests that wait on the user get their own duration on top of the default")
    func userWaitExtendsTimeout() {
        #expect(RPCTimeouts.userWait(function: "PerformInteraction", parameters: ["timeout": 15000]) == .seconds(15))
        #expect(RPCTimeouts.userWait(function: "Alert", parameters: ["duration": 3000, "softButtons": [["softButtonID": 1]]]) == .seconds(13))
        #expect(RPCTimeouts.userWait(function: "PerformAudioPassThru", parameters: ["maxDuration": 4000]) == .seconds(4))
        #expect(RPCTimeouts.userWait(function: "Slider", parameters: [:]) == .seconds(10))
        #expect(RPCTimeouts.userWait(function: "ScrollableMessage", parameters: ["timeout": 1000]) == .seconds(1))
        #expect(RPCTimeouts.userWait(function: "Show", parameters: [:]) == .zero)
    }

    @Test("a submitted request's answer settles its PendingResponse; a cancelled one is given up, the waiting task too",
          .timeLimit(.minutes(1)))
    func submittedRequests() async throws {
        // Answers the Show that says "a"; stays silent for the others.
        let (connection, headUnit, task) = try await connect { packet in
            (try? JSONValue.parse(packet.json)["mainField1"]) == "a" ? ["success": true, "resultCode": "SUCCESS"] : nil
        }
        let answered = try #require(try await connection.submit(Show(mainField1: "a")))
        let givenUp = try #require(try await connection.submit(Show(mainField1: "b")))
        let waitedFor = try #require(try await connection.submit(Show(mainField1: "c")))
        await headUnit.waitForRequests(3)
        let offsets = try await headUnit.requests.map { try JSONValue.parse($0.json)["mainField1"] }
        #expect(offsets == ["a", "b", "c"], "queued in the order of the calls")
        #expect(try await answered.value().resultCode == .success)
        givenUp.cancel()
        let cancelled = await Self.failure { try await givenUp.value() }
        #expect(cancelled == "cancelled Show")
        // Cancelling the task that waits gives its request up as well.
        let waiting = Task { try await waitedFor.value() }
        waiting.cancel()
        let cancelledWhileWaiting = await Self.failure { try await waiting.value }
        #expect(cancelledWhileWaiting == "cancelled Show")
        await connection.stop()
        task.cancel()
    }

    /// "cancelled Show" for `.cancelled(function: "Show")`, else what came instead.
    static func failure(of body: () async throws -> ShowResponse) async -> String {
        do {
            let response = try await body()
            return "answered \(response.resultCode)"
        } catch SDLError.cancelled(let function) {
            return "cancelled \(function)"
        } catch {
            return "\(error)"
        }
    }

    @Test("losing the transport fails submitted requests too")
    func transportLossFailsSubmitted() async throws {
        let (connection, headUnit, task) = try await connect { _ in nil }
        let pending = try #require(try await connection.submit(Show(mainField1: "a")))
        await headUnit.waitForRequests(1)
        await headUnit.link.close()
        do {
            _ = try await pending.value()
            Issue.record("a request answered on a closed link")
        } catch {
            if case .connectionLost = error { return }
            Issue.record("expected connectionLost, got \(error)")
        }
        task.cancel()
    }

    @Test("losing the transport fails every pending request at once")
    func transportLossFailsPending() async throws {
        let (connection, headUnit, task) = try await connect { _ in nil }
        let first = Task { try await connection.request(functionID: 13, functionName: "Show", parameters: [:]) }
        let second = Task { try await connection.request(functionID: 12, functionName: "Alert", parameters: [:]) }
        // Close once both requests reached the head unit.
        await headUnit.waitForRequests(2)
        await headUnit.link.close()
        // connectionLost, not timedOut: they failed with the link, not by their deadline (no
        // clock here: under the full suite's load this machine kind took 6.7 s to get this far).
        for outcome in [await first.result, await second.result] {
            guard case .failure(SDLError.connectionLost) = outcome else {
                Issue.record("expected connectionLost, got \(outcome)")
                continue
            }
        }
        #expect(await connection.state != .idle)
        task.cancel()
    }

    @Test("notifications reach every subscriber; core's correlation id -1 is accepted")
    func notificationsFanOut() async throws {
        let (connection, headUnit, task) = try await connect()
        let one = await connection.messages()
        let two = await connection.messages()
        await headUnit.notify(functionID: 32768, ["hmiLevel": "FULL", "audioStreamingState": "AUDIBLE", "systemContext": "MAIN"])
        var iteratorOne = one.makeAsyncIterator()
        var iteratorTwo = two.makeAsyncIterator()
        let a = await iteratorOne.next()
        let b = await iteratorTwo.next()
        #expect(a?.functionName == "OnHMIStatus" && a?.correlationID == -1)
        #expect(b?.parameters["hmiLevel"] == "FULL")
        await connection.stop()
        task.cancel()
    }

    @Test("correlation ids are positive, distinct, and skip ones still pending")
    func correlationIDs() async throws {
        let (connection, headUnit, task) = try await connect()
        for _ in 0..<5 { _ = try await connection.request(functionID: 13, functionName: "Show", parameters: [:]) }
        let ids = await headUnit.requests.map(\.correlationID)
        #expect(ids == [1, 2, 3, 4, 5])
        await connection.stop()
        task.cancel()
    }

    @Test("stop sends EndService with the hash id and the head unit acknowledges")
    func stopEndsSession() async throws {
        let (connection, _, task) = try await connect()
        await connection.stop()
        guard case .closed = await connection.state else {
            Issue.record("connection should be closed")
            return
        }
        await #expect(throws: SDLError.self) {
            _ = try await connection.request(functionID: 13, functionName: "Show", parameters: [:])
        }
        task.cancel()
    }
}


@Suite("SDLConnection: typed requests")
struct TypedRequestTests {
    @Test("a request with binary data travels on the hybrid service, JSON then bulk (PROTOCOL.md §3.1)")
    func bulkDataOnHybrid() async throws {
        let (app, headUnitEnd) = MemoryTransport.pair()
        let headUnit = ScriptedHeadUnit(link: headUnitEnd) { _ in ["success": true, "resultCode": "SUCCESS", "spaceAvailable": 10] }
        let task = Task { await headUnit.run() }
        let connection = SDLConnection(transport: app)
        try await connection.start()
        var request = PutFile(syncFileName: "a.bin", fileType: .binary)
        request.bulkData = [0xAA, 0xBB, 0xCC]
        let response = try await connection.send(request)
        #expect(response.spaceAvailable == 10)
        _ = try await connection.send(ListFiles())
        #expect(await headUnit.services == [.hybrid, .rpc])
        let packet = try #require(await headUnit.requests.first)
        #expect(packet.bulkData == [0xAA, 0xBB, 0xCC] && packet.functionID == 32)
        #expect(try JSONValue.parse(packet.json)["syncFileName"] == "a.bin")
        await connection.stop()
        task.cancel()
    }

    @Test("a typed request that breaks the spec fails before anything is sent")
    func validatesBeforeSending() async throws {
        let (app, headUnitEnd) = MemoryTransport.pair()
        let headUnit = ScriptedHeadUnit(link: headUnitEnd) { _ in ["success": true, "resultCode": "SUCCESS"] }
        let task = Task { await headUnit.run() }
        let connection = SDLConnection(transport: app)
        try await connection.start()
        await #expect {
            _ = try await connection.send(Show(mainField1: String(repeating: "x", count: 501)))
        } throws: { error in
            "\(error)".contains("Show.mainField1 is 501 characters long")
        }
        #expect(await headUnit.requests.isEmpty)
        let response = try await connection.send(Show(mainField1: "fits"))
        #expect(response.success && response.resultCode == .success)
        await connection.stop()
        task.cancel()
    }

    @Test("an unsuccessful response is a value, and an error for sendExpectingSuccess")
    func unsuccessfulResponses() async throws {
        let (app, headUnitEnd) = MemoryTransport.pair()
        let headUnit = ScriptedHeadUnit(link: headUnitEnd) { _ in ["success": false, "resultCode": "REJECTED", "info": "busy"] }
        let task = Task { await headUnit.run() }
        let connection = SDLConnection(transport: app)
        try await connection.start()
        let response = try await connection.send(Show(mainField1: "a"))
        #expect(!response.success && response.resultCode == .rejected && response.info == "busy")
        await #expect {
            _ = try await connection.sendExpectingSuccess(Show(mainField1: "a"))
        } throws: { error in
            "\(error)" == "Show failed with REJECTED: busy"
        }
        await connection.stop()
        task.cancel()
    }
}
