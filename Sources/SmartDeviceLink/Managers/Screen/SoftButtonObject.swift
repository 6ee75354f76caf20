/// One look of a soft button: its text, artwork and highlight.
public struct SoftButtonState: Sendable, Hashable {
    /// Identifies the state for transitions.
    public var name: String
    /// The label; shown where the head unit shows text on soft buttons.
    public var text: String?
    /// Uploaded before it is shown; on head units without soft-button images the text shows alone.
    public var artwork: SDLFile?
    /// Drawn as selected.
    public var isHighlighted: Bool
    /// What the head unit itself does on a press (DEFAULT_ACTION when nil).
    public var systemAction: SystemAction?

    /// A state; it needs text or artwork.
    public init(name: String, text: String? = nil, artwork: SDLFile? = nil, isHighlighted: Bool = false,
                systemAction: SystemAction? = nil) {
        self.name = name
        self.text = text
        self.artwork = artwork
        self.isHighlighted = isHighlighted
        self.systemAction = systemAction
    }
}

/// A press of a soft button, as the handler receives it.
public struct SoftButtonPress: Sendable, Hashable {
    /// The ``SoftButtonObject/name`` of the button.
    public var buttonName: String
    /// The state the button was in when pressed.
    public var stateName: String
    /// SHORT or LONG.
    public var mode: ButtonPressMode

    /// A press.
    public init(buttonName: String, stateName: String, mode: ButtonPressMode) {
        self.buttonName = buttonName
        self.stateName = stateName
        self.mode = mode
    }
}

/// A soft button with named states it can move between (play ↔ pause...), and a handler.
public struct SoftButtonObject: Sendable {
    /// Called on every press of the button.
    public typealias Handler = @Sendable (SoftButtonPress) -> Void

    /// Identifies the button for ``SoftButtonManager/transition(_:to:)``; unique per screen.
    public var name: String
    /// The looks the button can take; names unique.
    public var states: [SoftButtonState]
    /// The state shown now.
    public var currentStateName: String
    /// Called on presses.
    public var handler: Handler?

    /// A button with several states, starting in `initialStateName` (the first state when nil).
    public init(name: String, states: [SoftButtonState], initialStateName: String? = nil, handler: Handler? = nil) {
        self.name = name
        self.states = states
        self.currentStateName = initialStateName ?? states.first?.name ?? ""
        self.handler = handler
    }

    /// A button with one state.
    public init(name: String, text: String? = nil, artwork: SDLFile? = nil, handler: Handler? = nil) {
        self.init(name: name, states: [SoftButtonState(name: name, text: text, artwork: artwork)], handler: handler)
    }

    /// The state named ``currentStateName``.
    public var currentState: SoftButtonState? { states.first { $0.name == currentStateName } }

    /// What is wrong with the object, if anything.
    var problem: String? {
        if states.isEmpty { return "the soft button \"\(name)\" has no states" }
        if currentState == nil { return "the soft button \"\(name)\" has no state \"\(currentStateName)\"" }
        if let empty = states.first(where: { $0.text == nil && $0.artwork == nil }) {
            return "the state \"\(empty.name)\" of soft button \"\(name)\" has neither text nor artwork"
        }
        return nil
    }

    /// The RPC form for a head unit with these abilities; nil when nothing of it can show
    /// (an image-only state where images are not supported).
    func rpc(id: Int, imageSupported: Bool, textSupported: Bool, artwork available: Set<String>) -> SoftButton? {
        guard let state = currentState else { return nil }
        let image = imageSupported ? ScreenContext.image(state.artwork, in: available) : nil
        let text = textSupported ? state.text : nil
        let type: SoftButtonType
        switch (text, image) {
        case (.some, .some): type = .both
        case (.some, nil): type = .text
        case (nil, .some): type = .image
        case (nil, nil): return nil
        }
        return SoftButton(type: type, softButtonID: id, text: text, image: image, isHighlighted: state.isHighlighted,
                          systemAction: state.systemAction)
    }
}

/// Turns soft button objects into RPC soft buttons for the head unit's capabilities and
/// routes presses back to their handlers. Shared by the screen and by alerts.
struct SoftButtonLayout: Sendable {
    var buttons: [SoftButton] = []
    var skipped: [String] = []
    /// Handler and name of every button sent, by soft button id.
    var routes: [Int: (name: String, handler: SoftButtonObject.Handler?)] = [:]

    init(_ objects: [SoftButtonObject], firstID: Int, limit: Int?, capabilities: [SoftButtonCapabilities]?,
         artwork available: Set<String>) {
        let first = capabilities?.first
        // The spec has one entry per button the screen shows, but sdl_hmi (and head units in
        // the field) send a single entry meant for every button, and show several: sdl_ios and
        // sdl_java_suite read only the first. So one entry sets no number; more entries do.
        let listed = capabilities?.count ?? 0
        let maximum = min(limit ?? Int.max, listed > 1 ? listed : Int.max)
        for (index, object) in objects.enumerated() {
            guard buttons.count < maximum else {
                skipped.append("soft button \"\(object.name)\": the head unit shows at most \(maximum)")
                continue
            }
            let id = firstID + index
            guard let button = object.rpc(id: id, imageSupported: first?.imageSupported ?? true,
                                          textSupported: first?.textSupported ?? true, artwork: available) else {
                skipped.append("soft button \"\(object.name)\": its state \"\(object.currentStateName)\" has nothing this head unit can show")
                continue
            }
            if object.currentState?.artwork != nil, button.image == nil {
                skipped.append("soft button \"\(object.name)\": artwork not shown")
            }
            buttons.append(button)
            routes[id] = (object.name, object.handler)
        }
    }
}
