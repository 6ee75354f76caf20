/// What the streaming media manager needs besides RPCs: the audio and video services, and
/// the app's current HMI state and registration. ``SDLManager`` is the real one.
public protocol MediaServiceChannel: RPCChannel {
    /// Starts audio or video and returns the head unit's ACK payload (see ``SDLConnection/startService(_:payload:protected:)``).
    func startService(_ service: ServiceType, payload: ControlPayload?) async throws(SDLError) -> ControlPayload?
    /// Ends audio or video.
    func endService(_ service: ServiceType) async throws(SDLError)
    /// Sends data on a started service; waits while the link is far behind.
    func sendServiceData(_ data: [UInt8], on service: ServiceType) async throws(SDLError)
    /// Links coming and going, and services the head unit ended.
    func transportEvents() async -> AsyncStream<TransportEvent>
    /// The HMI state now (the last OnHMIStatus of the main window).
    func currentHMIState() async -> HMIState
    /// The head unit's answer to the current registration.
    func currentRegistration() async -> RegisterAppInterfaceResponse?
}

extension SDLManager: MediaServiceChannel {
    public func currentHMIState() -> HMIState { hmiState }
    public func currentRegistration() -> RegisterAppInterfaceResponse? { registration }
}

extension ChannelRelay: MediaServiceChannel {
    func startService(_ service: ServiceType, payload: ControlPayload?) async throws(SDLError) -> ControlPayload? {
        guard let manager = attached else { throw SDLError.notConnected }
        return try await manager.startService(service, payload: payload)
    }

    func endService(_ service: ServiceType) async throws(SDLError) {
        guard let manager = attached else { throw SDLError.notConnected }
        try await manager.endService(service)
    }

    func sendServiceData(_ data: [UInt8], on service: ServiceType) async throws(SDLError) {
        guard let manager = attached else { throw SDLError.notConnected }
        try await manager.sendServiceData(data, on: service)
    }

    func transportEvents() async -> AsyncStream<TransportEvent> {
        guard let manager = attached else { return AsyncStream { $0.finish() } }
        return await manager.transportEvents()
    }

    func currentHMIState() async -> HMIState {
        await attached?.currentHMIState() ?? .initial
    }

    func currentRegistration() async -> RegisterAppInterfaceResponse? {
        await attached?.currentRegistration()
    }
}
