/// Shows the app's soft buttons on the main screen and calls their handlers on presses.
///
/// Buttons beyond what the head unit shows are left out and named in the result, rather
/// than sent and refused. A transition to another state sends one Show with the new set.
public actor SoftButtonManager {
    /// Soft button ids of the screen; alerts use their own range.
    static let firstID = 1

    private let context: ScreenContext
    /// The buttons as last set, in their current states.
    public private(set) var objects: [SoftButtonObject] = []
    private var routes: [Int: (name: String, handler: SoftButtonObject.Handler?)] = [:]
    private let updates = SerialQueue()
    private var listening = false

    init(context: ScreenContext) {
        self.context = context
    }

    func startListening() async {
        guard !listening else { return }
        listening = true
        await context.hmi.startListening(context.channel)
        await context.channel.forEach(OnButtonPress.self, on: self) { await $0.received($1) }
    }

    /// Replaces the soft buttons.
    ///
    /// - Throws: ``ManagerError/invalid(_:)`` for two buttons of the same name or a
    ///   state that does not exist; ``ManagerError/refused(function:resultCode:info:)``
    ///   when the head unit refuses the Show.
    @discardableResult
    public func setSoftButtons(_ objects: [SoftButtonObject]) async throws(ManagerError) -> ScreenUpdateResult {
        await startListening()
        if let problem = objects.lazy.compactMap(\.problem).first { throw .invalid(problem) }
        let names = objects.map(\.name)
        guard Set(names).count == names.count else { throw .invalid("soft button names must be unique: \(names)") }
        self.objects = objects
        return try await send()
    }

    /// Moves a button to another of its states and shows it.
    @discardableResult
    public func transition(_ buttonName: String, to stateName: String) async throws(ManagerError) -> ScreenUpdateResult {
        guard let index = objects.firstIndex(where: { $0.name == buttonName }) else {
            throw .invalid("there is no soft button \"\(buttonName)\"")
        }
        guard objects[index].states.contains(where: { $0.name == stateName }) else {
            throw .invalid("the soft button \"\(buttonName)\" has no state \"\(stateName)\"")
        }
        objects[index].currentStateName = stateName
        return try await send()
    }

    private func send() async throws(ManagerError) -> ScreenUpdateResult {
        await updates.acquire()
        defer { Task { await updates.release() } }
        await context.hmi.waitUntilNotNone()
        let capabilities = await context.capabilities.softButtonCapabilities
        let imagesWanted = capabilities?.first?.imageSupported ?? true
        let artwork = objects.compactMap { $0.currentState?.artwork }
        let available = imagesWanted ? await context.upload(artwork) : []
        // Show takes at most eight soft buttons (spec), whatever the head unit reports.
        let layout = SoftButtonLayout(objects, firstID: Self.firstID, limit: 8, capabilities: capabilities, artwork: available)
        let response = try await context.sendExpectingSuccess(Show(softButtons: layout.buttons))
        routes = layout.routes
        return ScreenUpdateResult(resultCode: response.resultCode, info: response.info, skipped: layout.skipped)
    }

    /// A head unit that starts empty shows the soft buttons again.
    func headUnitForgot() {
        guard !objects.isEmpty else { return }
        Task { _ = try? await self.send() }
    }

    private func received(_ press: OnButtonPress) {
        guard press.buttonName == .customButton, let id = press.customButtonID, let route = routes[id],
              let object = objects.first(where: { $0.name == route.name }) else { return }
        route.handler?(SoftButtonPress(buttonName: route.name, stateName: object.currentStateName, mode: press.buttonPressMode))
    }
}
