/// What a subscribed hardware button did.
public enum ButtonAction: Sendable, Hashable {
    /// A completed press, SHORT or LONG.
    case press(ButtonPressMode)
    /// The button went down or up.
    case event(ButtonEventMode)
}

/// A handle to remove one button handler with ``ButtonManager/unsubscribe(_:)``.
public struct ButtonSubscription: Sendable, Hashable {
    /// The button the handler belongs to.
    public let button: ButtonName
    let id: Int
}

/// A media clock setting for ``ButtonManager/setMediaClock(_:audioIndicator:)``.
public enum MediaClock: Sendable, Hashable {
    /// Counts up from `from`, stopping at `to` if given.
    case countUp(from: Duration, to: Duration? = nil)
    /// Counts down from `from` to `to` (zero when nil).
    case countDown(from: Duration, to: Duration? = nil)
    /// Stops the clock where it is.
    case pause
    /// Starts a paused clock again from where it stopped.
    case resume
    /// Removes the clock from the screen.
    case clear
}

/// Hardware buttons (play/pause, seek, presets, OK...) with any number of handlers each,
/// and the media clock.
///
/// A button is subscribed (SubscribeButton) when its first handler is added and
/// unsubscribed when its last one goes, so handlers of different parts of an app do not
/// undo each other.
public actor ButtonManager {
    private let channel: any RPCChannel
    private var handlers: [ButtonName: [Int: @Sendable (ButtonAction) -> Void]] = [:]
    private var nextID = 0
    private var listening = false

    /// A manager over any channel (``SDLManager`` has one of its own).
    public init(channel: any RPCChannel) {
        self.channel = channel
    }

    private func startListening() async {
        guard !listening else { return }
        listening = true
        await channel.forEach(OnButtonPress.self, on: self) { await $0.dispatch($1.buttonName, .press($1.buttonPressMode)) }
        await channel.forEach(OnButtonEvent.self, on: self) { await $0.dispatch($1.buttonName, .event($1.buttonEventMode)) }
    }

    /// Calls `handler` for presses and up/down events of `button`.
    ///
    /// - Throws: ``ManagerError/refused(function:resultCode:info:)`` when the head unit
    ///   refuses the subscription: UNSUPPORTED_RESOURCE for a button it lacks, REJECTED for
    ///   media buttons of an app that is not a media app.
    public func subscribe(_ button: ButtonName, handler: @escaping @Sendable (ButtonAction) -> Void) async throws(ManagerError) -> ButtonSubscription {
        await startListening()
        if handlers[button]?.isEmpty ?? true {
            // IGNORED: already subscribed (after a resumption), which is what we want.
            try await channel.expectSuccess(SubscribeButton(buttonName: button), accepting: [.ignored])
        }
        nextID += 1
        handlers[button, default: [:]][nextID] = handler
        return ButtonSubscription(button: button, id: nextID)
    }

    /// Removes one handler; the last handler of a button unsubscribes it.
    public func unsubscribe(_ subscription: ButtonSubscription) async throws(ManagerError) {
        guard handlers[subscription.button]?.removeValue(forKey: subscription.id) != nil else { return }
        guard handlers[subscription.button]?.isEmpty ?? true else { return }
        handlers[subscription.button] = nil
        try await channel.expectSuccess(UnsubscribeButton(buttonName: subscription.button), accepting: [.ignored])
    }

    /// Sets the media clock (media and navigation apps).
    public func setMediaClock(_ clock: MediaClock, audioIndicator: AudioStreamingIndicator? = nil) async throws(ManagerError) {
        var request: SetMediaClockTimer
        switch clock {
        case .countUp(let from, let to):
            request = SetMediaClockTimer(updateMode: .countup, startTime: Self.time(from), endTime: to.map(Self.time))
        case .countDown(let from, let to):
            request = SetMediaClockTimer(updateMode: .countdown, startTime: Self.time(from), endTime: Self.time(to ?? .zero))
        case .pause: request = SetMediaClockTimer(updateMode: .pause)
        case .resume: request = SetMediaClockTimer(updateMode: .resume)
        case .clear: request = SetMediaClockTimer(updateMode: .clear)
        }
        request.audioStreamingIndicator = audioIndicator
        try await channel.expectSuccess(request)
    }

    /// A head unit that did not resume the app lost its button subscriptions: subscribe
    /// again to every button that still has handlers, once the app leaves HMI level NONE
    /// (where the head unit refuses SubscribeButton), so the handlers keep working.
    func headUnitForgot() async {
        let buttons = handlers.keys.sorted { $0.rawValue < $1.rawValue }
        guard !buttons.isEmpty else { return }
        let statuses = await channel.notifications(OnHMIStatus.self)
        Task {
            for await status in statuses where status.hmiLevel != HMILevel.none {
                for button in buttons { _ = try? await self.channel.send(SubscribeButton(buttonName: button), timeout: nil) }
                break
            }
        }
    }

    private func dispatch(_ button: ButtonName, _ action: ButtonAction) {
        guard button != .customButton else { return }
        for handler in (handlers[button] ?? [:]).values { handler(action) }
    }

    private static func time(_ duration: Duration) -> StartTime {
        let seconds = Int(duration.components.seconds)
        return StartTime(hours: seconds / 3600, minutes: seconds / 60 % 60, seconds: seconds % 60)
    }
}
