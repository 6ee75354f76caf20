/// An alert the app wants to show: text, speech or a tone, soft buttons, an icon.
public struct AlertView: Sendable {
    /// The first line (alertText1).
    public var text: String?
    /// The second line (alertText2).
    public var secondaryText: String?
    /// The third line (alertText3).
    public var tertiaryText: String?
    /// Spoken when the alert shows.
    public var speech: [String]
    /// Plays the head unit's alert tone.
    public var playTone: Bool
    /// At most four are shown (the spec's limit, lower if the head unit has fewer).
    public var softButtons: [SoftButtonObject]
    /// Uploaded first; left out on displays without graphics.
    public var icon: SDLFile?
    /// How long it shows without soft buttons: 3…10 s (the head unit's default is 5 s).
    public var duration: Duration?
    /// Shows a progress indicator (progressIndicator).
    public var showWaitIndicator: Bool

    /// An alert; it needs text or speech.
    public init(text: String? = nil, secondaryText: String? = nil, tertiaryText: String? = nil, speech: [String] = [],
                playTone: Bool = false, softButtons: [SoftButtonObject] = [], icon: SDLFile? = nil, duration: Duration? = nil,
                showWaitIndicator: Bool = false) {
        self.text = text
        self.secondaryText = secondaryText
        self.tertiaryText = tertiaryText
        self.speech = speech
        self.playTone = playTone
        self.softButtons = softButtons
        self.icon = icon
        self.duration = duration
        self.showWaitIndicator = showWaitIndicator
    }
}

/// How an alert ended.
public struct AlertResult: Sendable, Equatable {
    /// SUCCESS when it timed out or a soft button closed it, ABORTED when cancelled.
    public var resultCode: ResultCode
    /// The head unit's explanation, if any.
    public var info: String?
    /// Seconds the head unit asks to wait before another alert (when it refused this one).
    public var tryAgainTime: Int?
    /// Parts not shown (soft buttons beyond the limit, an icon without graphics...).
    public var skipped: [String]
}

/// Presents alerts one after another. The head unit REJECTs an Alert while another modal
/// view of the app is shown, so alerts (and choice sets, keyboards) wait in one queue.
public actor AlertManager {
    /// Soft buttons of alerts get ids from here on, apart from the screen's.
    static let firstButtonID = 10_000
    /// Alert's own limit in the spec.
    static let maximumSoftButtons = 4

    private let context: ScreenContext
    private var routes: [Int: (name: String, handler: SoftButtonObject.Handler?)] = [:]
    private var states: [String: String] = [:]
    private var nextButtonID = AlertManager.firstButtonID
    private var nextCancelID = 1
    private var shownCancelID: Int?
    private var listening = false

    init(context: ScreenContext) {
        self.context = context
    }

    func startListening() async {
        guard !listening else { return }
        listening = true
        await context.channel.forEach(OnButtonPress.self, on: self) { await $0.received($1) }
    }

    /// Shows the alert once the app's earlier modal views are gone, and returns how it ended.
    ///
    /// - Throws: ``ManagerError/invalid(_:)`` for an alert with neither text nor
    ///   speech (nothing is sent), ``ManagerError/refused(function:resultCode:info:)``
    ///   when the head unit refuses it (another app's alert, DISALLOWED in this HMI level).
    @discardableResult
    public func present(_ alert: AlertView) async throws(ManagerError) -> AlertResult {
        await startListening()
        guard alert.text != nil || alert.secondaryText != nil || !alert.speech.isEmpty else {
            throw .invalid("an alert needs text or speech")
        }
        if let problem = alert.softButtons.lazy.compactMap(\.problem).first { throw .invalid(problem) }
        await context.modals.acquire()
        do {
            let result = try await show(alert)
            await context.modals.release()
            return result
        } catch {
            await context.modals.release()
            throw error
        }
    }

    /// Closes the alert that is showing now (CancelInteraction); the alert's ``present(_:)``
    /// returns ABORTED.
    public func dismissCurrent() async throws(ManagerError) {
        guard let cancelID = shownCancelID else { throw .invalid("no alert of this manager is showing") }
        try await context.sendExpectingSuccess(CancelInteraction(functionID: Int(Alert.functionID), cancelID: cancelID))
    }

    private func show(_ alert: AlertView) async throws(ManagerError) -> AlertResult {
        var skipped: [String] = []
        let graphics = await context.graphicsSupported()
        let capabilities = await context.capabilities.softButtonCapabilities
        var artwork = alert.softButtons.compactMap { $0.currentState?.artwork }
        if let icon = alert.icon {
            if graphics { artwork.append(icon) } else { skipped.append("icon: the display shows no graphics") }
        }
        let available = artwork.isEmpty ? [] : await context.upload(artwork)
        if nextButtonID > 60_000 { nextButtonID = Self.firstButtonID }
        let layout = SoftButtonLayout(alert.softButtons, firstID: nextButtonID, limit: Self.maximumSoftButtons,
                                      capabilities: capabilities, artwork: available)
        nextButtonID += alert.softButtons.count
        skipped += layout.skipped
        routes = layout.routes
        states = Dictionary(alert.softButtons.map { ($0.name, $0.currentStateName) }) { first, _ in first }
        let cancelID = nextCancelID
        nextCancelID += 1
        let speech = alert.speech.map { TTSChunk(text: $0, type: .text) }
        let request = Alert(
            alertText1: alert.text, alertText2: alert.secondaryText, alertText3: alert.tertiaryText,
            ttsChunks: speech.isEmpty ? nil : speech,
            duration: alert.duration?.milliseconds,
            playTone: alert.playTone ? true : nil, progressIndicator: alert.showWaitIndicator ? true : nil,
            softButtons: layout.buttons.isEmpty ? nil : layout.buttons, alertIcon: ScreenContext.image(alert.icon, in: available),
            cancelID: cancelID)
        shownCancelID = cancelID
        defer { shownCancelID = nil }
        let response = try await context.send(request)
        guard response.success || response.resultCode == .aborted else {
            let detail = [response.info, response.tryAgainTime.map { "try again in \($0) s" }].compactMap { $0 }.joined(separator: "; ")
            throw .refused(function: "Alert", resultCode: response.resultCode, info: detail.isEmpty ? nil : detail)
        }
        return AlertResult(resultCode: response.resultCode, info: response.info, tryAgainTime: response.tryAgainTime, skipped: skipped)
    }

    private func received(_ press: OnButtonPress) {
        guard press.buttonName == .customButton, let id = press.customButtonID, let route = routes[id] else { return }
        route.handler?(SoftButtonPress(buttonName: route.name, stateName: states[route.name] ?? "", mode: press.buttonPressMode))
    }
}
