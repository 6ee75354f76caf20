/// Audio and video services and the links under them, across reconnects.
extension SDLManager {
    /// What happens to the links of every session this manager opens: primary connected
    /// and lost, secondary offered, registered, rejected and lost, services moved. The
    /// stream runs across reconnects until the manager is released.
    ///
    /// ```swift
    /// for await event in await manager.transportEvents() {
    ///     if case .serviceMoved(.video, let role) = event { print("video now on the \(role)") }
    /// }
    /// ```
    public func transportEvents() -> AsyncStream<TransportEvent> {
        transportObservers.subscribe()
    }

    /// Forwards one link's transport events to the manager's subscribers.
    func relayTransportEvents(of connection: SDLConnection) {
        Task { [weak self, weak connection] in
            guard let events = await connection?.transportEvents() else { return }
            for await event in events { self?.transportObservers.yield(event) }
        }
    }

    /// Starts audio or video on the current registration; it runs on the link the head unit
    /// prefers and moves with the secondary (see ``SDLConnection/startService(_:payload:protected:)``).
    @discardableResult
    public func startService(_ service: ServiceType, payload: ControlPayload? = nil) async throws(SDLError) -> ControlPayload? {
        try await startService(service, payload: payload, protected: false)
    }

    /// `protected`: after the head unit's handshake with this app (``SDLConfiguration/security``);
    /// see ``SDLConnection/startService(_:payload:protected:)``.
    @discardableResult
    public func startService(_ service: ServiceType, payload: ControlPayload? = nil, protected: Bool) async throws(SDLError) -> ControlPayload? {
        guard let connection else { throw SDLError.notConnected }
        return try await connection.startService(service, payload: payload, protected: protected)
    }

    /// Protects the RPC service of the current registration (see ``SDLConnection/startProtectedRPC()``).
    public func startProtectedRPC() async throws(SDLError) {
        guard let connection else { throw SDLError.notConnected }
        try await connection.startProtectedRPC()
    }

    /// Whether `service` runs protected on the current registration.
    public func isProtected(_ service: ServiceType) async -> Bool {
        await connection?.isProtected(service) ?? false
    }

    /// Whether audio or video runs on the current registration (it may be moving between links).
    public func isStarted(_ service: ServiceType) async -> Bool {
        await connection?.isStarted(service) ?? false
    }

    /// The link `service` runs on now; nil while it is not running, starting or moving.
    public func link(of service: ServiceType) async -> TransportRole? {
        await connection?.link(of: service)
    }

    /// Sends audio or video data on a started service (see ``SDLConnection/sendServiceData(_:on:)``).
    public func sendServiceData(_ data: [UInt8], on service: ServiceType) async throws(SDLError) {
        guard let connection else { throw SDLError.notConnected }
        try await connection.sendServiceData(data, on: service)
    }

    /// Ends audio or video.
    public func endService(_ service: ServiceType) async throws(SDLError) {
        guard let connection else { throw SDLError.notConnected }
        try await connection.endService(service)
    }
}
