/// One maneuver of turn-by-turn guidance, as ShowConstantTBT shows it.
public struct Maneuver: Sendable, Hashable {
    /// The instruction ("Turn left onto Main St").
    public var text: String
    /// A second line (the road after the turn, say).
    public var secondaryText: String?
    /// Distance to the maneuver as the driver reads it ("300 m").
    public var distance: String?
    /// Arrival time as shown ("12:41").
    public var eta: String?
    /// The remaining distance of the trip as shown.
    public var totalDistance: String?
    /// Distance to the maneuver and the whole distance from the last maneuver, for the
    /// head unit's progress bar (`distanceToManeuver`, `distanceToManeuverScale`).
    public var distanceToManeuver: Double?
    /// The whole distance from the last maneuver to this one (see ``distanceToManeuver``).
    public var distanceToManeuverScale: Double?
    /// Spoken when shown with ``NavigationManager/alert(_:)``.
    public var spoken: String?

    /// A maneuver; only the instruction is required.
    public init(text: String, secondaryText: String? = nil, distance: String? = nil, eta: String? = nil, totalDistance: String? = nil,
                distanceToManeuver: Double? = nil, distanceToManeuverScale: Double? = nil, spoken: String? = nil) {
        self.text = text
        self.secondaryText = secondaryText
        self.distance = distance
        self.eta = eta
        self.totalDistance = totalDistance
        self.distanceToManeuver = distanceToManeuver
        self.distanceToManeuverScale = distanceToManeuverScale
        self.spoken = spoken
    }
}

/// Turn-by-turn guidance on the head unit's own navigation screen: the next maneuver
/// (ShowConstantTBT), a spoken alert for it (AlertManeuver) and the list of turns
/// (UpdateTurnList). Head units that draw no TBT screen answer UNSUPPORTED_RESOURCE,
/// surfaced as ``ManagerError/refused(function:resultCode:info:)``.
public actor NavigationManager {
    private let channel: any RPCChannel

    /// A manager that sends its RPCs over `channel` (the ``SDLManager``, usually).
    public init(channel: any RPCChannel) {
        self.channel = channel
    }

    /// Shows `maneuver` as the current one.
    public func show(_ maneuver: Maneuver) async throws(ManagerError) {
        try await channel.expectSuccess(ShowConstantTBT(
            navigationText1: maneuver.text, navigationText2: maneuver.secondaryText, eta: maneuver.eta,
            timeToDestination: nil, totalDistance: maneuver.totalDistance, distanceToManeuver: maneuver.distanceToManeuver,
            distanceToManeuverScale: maneuver.distanceToManeuverScale))
    }

    /// Speaks the maneuver (its ``Maneuver/spoken`` text, else its text) as an alert.
    public func alert(_ maneuver: Maneuver) async throws(ManagerError) {
        try await channel.expectSuccess(AlertManeuver(ttsChunks: [TTSChunk(text: maneuver.spoken ?? maneuver.text, type: .text)]))
    }

    /// Replaces the list of turns ahead.
    public func updateTurnList(_ turns: [String]) async throws(ManagerError) {
        guard !turns.isEmpty else { throw .invalid("a turn list needs at least one turn (the spec's minsize is 1)") }
        try await channel.expectSuccess(UpdateTurnList(turnList: turns.map { Turn(navigationText: $0) }))
    }
}
