/// One choice the user can pick in a choice set.
public struct ChoiceCell: Sendable, Hashable {
    /// The choice as shown (menuName); identifies the cell with the other fields.
    public var text: String
    /// A second line, on templates that show one.
    public var secondaryText: String?
    /// A third line, on templates that show one.
    public var tertiaryText: String?
    /// Needed to present the cell by voice.
    public var voiceCommands: [String]?
    /// Uploaded with the preload; left out without graphics.
    public var artwork: SDLFile?
    /// A second image, on templates that show one.
    public var secondaryArtwork: SDLFile?

    /// A cell; equal cells are one cell on the head unit.
    public init(text: String, secondaryText: String? = nil, tertiaryText: String? = nil, voiceCommands: [String]? = nil,
                artwork: SDLFile? = nil, secondaryArtwork: SDLFile? = nil) {
        self.text = text
        self.secondaryText = secondaryText
        self.tertiaryText = tertiaryText
        self.voiceCommands = voiceCommands
        self.artwork = artwork
        self.secondaryArtwork = secondaryArtwork
    }
}

/// A question with choices, presented as a list or as tiles.
public struct ChoiceSet: Sendable {
    /// How the choices are laid out.
    public enum Layout: Sendable {
        /// One choice a row (PerformInteraction's LIST layouts).
        case list
        /// A grid of icons (ICON_ONLY, or ICON_WITH_SEARCH with a keyboard).
        case tiles
    }

    /// The question (initialText).
    public var title: String
    /// The choices, in order.
    public var cells: [ChoiceCell]
    /// List or tiles.
    public var layout: Layout
    /// How long the head unit waits for an answer (its default is 10 s).
    public var timeout: Duration?
    /// Spoken when the set appears.
    public var initialPrompt: [String]
    /// Spoken when the user asks for help.
    public var helpPrompt: [String]
    /// Spoken when nobody answered in time.
    public var timeoutPrompt: [String]

    /// A choice set.
    public init(title: String, cells: [ChoiceCell], layout: Layout = .list, timeout: Duration? = nil,
                initialPrompt: [String] = [], helpPrompt: [String] = [], timeoutPrompt: [String] = []) {
        self.title = title
        self.cells = cells
        self.layout = layout
        self.timeout = timeout
        self.initialPrompt = initialPrompt
        self.helpPrompt = helpPrompt
        self.timeoutPrompt = timeoutPrompt
    }
}

/// How the user may answer a choice set.
public enum InteractionStyle: Sendable {
    /// By touch.
    case manual
    /// By voice only; every cell needs voice commands.
    case voice
    /// Both; every cell needs voice commands.
    case both

    var mode: InteractionMode {
        switch self {
        case .manual: return .manualOnly
        case .voice: return .vrOnly
        case .both: return .both
        }
    }
}

/// How a choice set or keyboard ended.
public enum InteractionOutcome: Sendable, Equatable {
    /// The user picked a cell, by touch or voice.
    case selected(ChoiceCell, TriggerSource)
    /// The user typed and submitted text (keyboard, or the search field of a choice set).
    case entered(String)
    /// Nobody answered in time.
    case timedOut
    /// The user or the app cancelled.
    case aborted
}

/// Callbacks of a keyboard (alone or as the search field of a choice set). All have
/// default implementations that do nothing.
public protocol KeyboardDelegate: Sendable {
    /// The text typed so far changed. Return words to offer as autocompletion, or nil to
    /// leave the list as it is.
    func keyboard(didUpdate text: String) async -> [String]?
    /// The user submitted `text`, typed or dictated (`event` ENTRY_SUBMITTED or ENTRY_VOICE).
    func keyboard(didSubmit text: String, event: KeyboardEvent) async
    /// The keyboard went away without input (ENTRY_ABORTED or ENTRY_CANCELLED).
    func keyboardDidAbort(event: KeyboardEvent) async
    /// The head unit masked or unmasked the typed characters.
    func keyboard(didChangeMask event: KeyboardEvent) async
}

extension KeyboardDelegate {
    public func keyboard(didUpdate text: String) async -> [String]? { nil }
    public func keyboard(didSubmit text: String, event: KeyboardEvent) async {}
    public func keyboardDidAbort(event: KeyboardEvent) async {}
    public func keyboard(didChangeMask event: KeyboardEvent) async {}
}

/// Choice sets and the keyboard: preloads choices with ids it manages, presents them (by
/// touch, voice or both, optionally searchable), shows the keyboard, and cancels either.
///
/// Each cell becomes a one-choice CreateInteractionChoiceSet, so any set of preloaded cells
/// can be presented without creating them again. Presentations wait in the same queue as
/// alerts: the head unit shows one modal view of an app at a time.
public actor ChoiceSetManager {
    private struct Loaded: Sendable {
        var id: Int
        var cell: ChoiceCell
    }

    private let context: ScreenContext
    private var loaded: [ChoiceCell: Loaded] = [:]
    private var nextID = 1
    private var nextCancelID = 1_000_000
    private var keyboardDelegate: (any KeyboardDelegate)?
    private var keyboardProperties: KeyboardProperties?
    private var sentKeyboardProperties: KeyboardProperties?
    private var shownCancelID: Int?
    private var listening = false

    init(context: ScreenContext) {
        self.context = context
    }

    func startListening() async {
        guard !listening else { return }
        listening = true
        await context.hmi.startListening(context.channel)
        await context.channel.forEach(OnKeyboardInput.self, on: self) { await $0.received($1) }
    }

    /// Cells already on the head unit.
    public var preloadedCells: [ChoiceCell] { Array(loaded.keys) }

    /// Puts cells on the head unit ahead of time, with their artwork, so presenting them
    /// later is quick. Returns the cells the head unit refused, with why.
    @discardableResult
    public func preload(_ cells: [ChoiceCell]) async -> [ChoiceCell: ManagerError] {
        await startListening()
        let missing = Array(Set(cells).filter { loaded[$0] == nil })
        guard !missing.isEmpty else { return [:] }
        await context.hmi.waitUntilNotNone()
        let graphics = await context.graphicsSupported()
        let available = graphics ? await context.upload(missing.flatMap { [$0.artwork, $0.secondaryArtwork].compactMap { $0 } }) : []
        var failures: [ChoiceCell: ManagerError] = [:]
        for cell in missing.sorted(by: { cells.firstIndex(of: $0)! < cells.firstIndex(of: $1)! }) {
            let id = nextID
            nextID += 1
            let choice = Choice(choiceID: id, menuName: cell.text, vrCommands: cell.voiceCommands,
                                image: ScreenContext.image(cell.artwork, in: available), secondaryText: cell.secondaryText,
                                tertiaryText: cell.tertiaryText, secondaryImage: ScreenContext.image(cell.secondaryArtwork, in: available))
            do throws(ManagerError) {
                try await context.sendExpectingSuccess(CreateInteractionChoiceSet(interactionChoiceSetID: id, choiceSet: [choice]))
                loaded[cell] = Loaded(id: id, cell: cell)
            } catch {
                failures[cell] = error
            }
        }
        return failures
    }

    /// Deletes preloaded cells from the head unit.
    public func delete(_ cells: [ChoiceCell]) async throws(ManagerError) {
        var failure: ManagerError?
        for cell in cells {
            guard let entry = loaded[cell] else { continue }
            do throws(ManagerError) {
                try await context.sendExpectingSuccess(DeleteInteractionChoiceSet(interactionChoiceSetID: entry.id))
                loaded[cell] = nil
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Presents a choice set and returns the user's answer. Cells not preloaded are loaded
    /// first. With a `keyboard` delegate the set is searchable: the head unit shows a
    /// search field, and typed text arrives at the delegate and may come back as
    /// ``InteractionOutcome/entered(_:)``.
    ///
    /// - Throws: ``ManagerError/invalid(_:)`` for an empty set or, in a voice style,
    ///   cells without voice commands; ``ManagerError/refused(function:resultCode:info:)``
    ///   when the head unit refuses a cell or the interaction.
    public func present(_ set: ChoiceSet, style: InteractionStyle = .manual,
                        keyboard: (any KeyboardDelegate)? = nil) async throws(ManagerError) -> InteractionOutcome {
        guard !set.cells.isEmpty else { throw .invalid("the choice set \"\(set.title)\" has no cells") }
        if style != .manual, let silent = set.cells.first(where: { $0.voiceCommands?.isEmpty ?? true }) {
            throw .invalid("\"\(silent.text)\" has no voice commands, which presenting by voice needs")
        }
        if let (cell, error) = await preload(set.cells).first { throw refusedCell(cell, error) }
        let ids = set.cells.compactMap { loaded[$0]?.id }
        let layout: LayoutMode
        switch (set.layout, keyboard != nil) {
        case (.list, false): layout = .listOnly
        case (.list, true): layout = .listWithSearch
        case (.tiles, false): layout = .iconOnly
        case (.tiles, true): layout = .iconWithSearch
        }
        let request = PerformInteraction(
            initialText: set.title, interactionMode: style.mode, interactionChoiceSetIDList: ids,
            initialPrompt: Self.speech(set.initialPrompt), helpPrompt: Self.speech(set.helpPrompt),
            timeoutPrompt: Self.speech(set.timeoutPrompt), timeout: set.timeout?.milliseconds, interactionLayout: layout)
        return try await interact(request, keyboard: keyboard) { [loaded] choiceID in
            loaded.values.first { $0.id == choiceID }?.cell
        }
    }

    /// Shows the keyboard and returns what the user entered.
    ///
    /// - Parameters:
    ///   - initialText: what the keyboard shows to begin with.
    ///   - properties: language, layout, input mask, autocompletion...; sent with
    ///     SetGlobalProperties only when they differ from what the head unit has.
    ///   - timeout: how long the head unit shows it; its own default when nil.
    ///   - cancelID: lets ``dismiss(cancelID:)`` close this keyboard; one is made up when nil.
    ///   - delegate: told of each key and may correct or complete the text as it is typed.
    public func presentKeyboard(initialText: String, properties: KeyboardProperties? = nil, timeout: Duration? = nil,
                                cancelID: Int? = nil, delegate: (any KeyboardDelegate)? = nil) async throws(ManagerError) -> InteractionOutcome {
        if let properties { keyboardProperties = properties }
        let request = PerformInteraction(initialText: initialText, interactionMode: .manualOnly, interactionChoiceSetIDList: [],
                                         timeout: timeout?.milliseconds, interactionLayout: .keyboard, cancelID: cancelID)
        return try await interact(request, keyboard: delegate) { _ in nil }
    }

    /// Closes a choice set or keyboard shown with this cancel id (ABORTED for it); a view
    /// that is not showing anymore is IGNORED by the head unit, which this throws.
    public func dismiss(cancelID: Int) async throws(ManagerError) {
        try await context.sendExpectingSuccess(CancelInteraction(functionID: Int(PerformInteraction.functionID), cancelID: cancelID))
    }

    /// Closes whatever choice set or keyboard of this manager is showing.
    public func dismissCurrent() async throws(ManagerError) {
        guard let cancelID = shownCancelID else { throw .invalid("no choice set or keyboard of this manager is showing") }
        try await dismiss(cancelID: cancelID)
    }

    func headUnitForgot() {
        loaded = [:]
        sentKeyboardProperties = nil
    }

    // MARK: - Presenting

    private func interact(_ request: PerformInteraction, keyboard: (any KeyboardDelegate)?,
                          cell: @Sendable (Int) -> ChoiceCell?) async throws(ManagerError) -> InteractionOutcome {
        await startListening()
        var request = request
        if request.cancelID == nil {
            request.cancelID = nextCancelID
            nextCancelID += 1
        }
        await context.modals.acquire()
        let response: PerformInteractionResponse
        do throws(ManagerError) {
            if keyboard != nil { try await sendKeyboardProperties() }
            keyboardDelegate = keyboard
            shownCancelID = request.cancelID
            response = try await context.send(request)
        } catch {
            shownCancelID = nil
            await context.modals.release()
            throw error
        }
        // The delegate stays until the next presentation: the keyboard's last
        // OnKeyboardInput (ENTRY_SUBMITTED) may be handled after the response.
        shownCancelID = nil
        await context.modals.release()
        switch response.resultCode {
        case .timedOut: return .timedOut
        case .aborted: return .aborted
        default: break
        }
        guard response.success else {
            throw .refused(function: "PerformInteraction", resultCode: response.resultCode, info: response.info)
        }
        if let id = response.choiceID, let chosen = cell(id) { return .selected(chosen, response.triggerSource ?? .menu) }
        if let text = response.manualTextEntry { return .entered(text) }
        throw .refused(function: "PerformInteraction", resultCode: response.resultCode,
                       info: "the answer names neither a known choice nor text")
    }

    private func sendKeyboardProperties() async throws(ManagerError) {
        let properties = keyboardProperties ?? Self.defaultKeyboardProperties
        guard properties != sentKeyboardProperties else { return }
        try await context.sendExpectingSuccess(SetGlobalProperties(keyboardProperties: properties))
        sentKeyboardProperties = properties
    }

    /// RESEND_CURRENT_ENTRY: every key press brings the whole text, so the delegate never
    /// has to rebuild it from single keys.
    public static let defaultKeyboardProperties = KeyboardProperties(language: .enUs, keyboardLayout: .qwerty, keypressMode: .resendCurrentEntry)

    private func received(_ input: OnKeyboardInput) async {
        guard let delegate = keyboardDelegate else { return }
        switch input.event {
        case .keypress:
            if let words = await delegate.keyboard(didUpdate: input.data ?? "") {
                var properties = sentKeyboardProperties ?? Self.defaultKeyboardProperties
                properties.autoCompleteList = words
                if (try? await context.sendExpectingSuccess(SetGlobalProperties(keyboardProperties: properties))) != nil {
                    sentKeyboardProperties = properties
                }
            }
        case .entrySubmitted, .entryVoice:
            await delegate.keyboard(didSubmit: input.data ?? "", event: input.event)
        case .entryAborted, .entryCancelled:
            await delegate.keyboardDidAbort(event: input.event)
        default:
            await delegate.keyboard(didChangeMask: input.event)
        }
    }

    private static func speech(_ texts: [String]) -> [TTSChunk]? {
        texts.isEmpty ? nil : texts.map { TTSChunk(text: $0, type: .text) }
    }

    private func refusedCell(_ cell: ChoiceCell, _ error: ManagerError) -> ManagerError {
        if case .refused(let function, let code, let info) = error {
            return .refused(function: function, resultCode: code, info: "choice \"\(cell.text)\"" + (info.map { ": \($0)" } ?? ""))
        }
        return error
    }
}
