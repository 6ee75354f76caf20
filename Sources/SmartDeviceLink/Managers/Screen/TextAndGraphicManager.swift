/// What the app wants on its main screen.
public struct TextAndGraphicState: Sendable, Equatable {
    /// The first text line (mainField1).
    public var textField1: String?
    /// The second text line.
    public var textField2: String?
    /// The third text line.
    public var textField3: String?
    /// The fourth text line.
    public var textField4: String?
    /// What each text field holds (artist, title...), so the head unit can present it well.
    public var textField1Type: MetadataType?
    /// What textField2 holds.
    public var textField2Type: MetadataType?
    /// What textField3 holds.
    public var textField3Type: MetadataType?
    /// What textField4 holds.
    public var textField4Type: MetadataType?
    /// The media track field, on media templates.
    public var mediaTrack: String?
    /// The template title.
    public var title: String?
    /// Alignment of the text lines.
    public var alignment: TextAlignment?
    /// The main image; uploaded before it is shown.
    public var primaryGraphic: SDLFile?
    /// The second image, on templates that have one.
    public var secondaryGraphic: SDLFile?

    /// Nothing on the screen.
    public init() {}
}

/// Sends the app's text and graphics with the fewest Show requests.
///
/// Only fields that changed since the head unit last accepted a Show are sent (a field set
/// back to nil is cleared with an empty string). Texts beyond the lines the template has
/// are joined into its last line with " - ", as sdl_ios does. A graphic not yet on the
/// head unit is uploaded first while the text goes out without it, then a second Show adds
/// it; on displays without graphics it is left out and named in the result. In HMI level
/// NONE, where head units refuse Show, updates wait until the app is shown.
public actor TextAndGraphicManager {
    /// The Show fields as the head unit has them.
    struct Fields: Equatable, Sendable {
        var mainFields: [String?] = [nil, nil, nil, nil]
        var metadata: [[MetadataType]?] = [nil, nil, nil, nil]
        var mediaTrack: String?
        var templateTitle: String?
        var alignment: TextAlignment?
        var graphic: String?
        var secondaryGraphic: String?
    }

    private let context: ScreenContext
    /// The state the app asked for last.
    public private(set) var state = TextAndGraphicState()
    private var shown = Fields()
    private var batching = 0
    private let updates = SerialQueue()

    init(context: ScreenContext) {
        self.context = context
    }

    /// Changes the state and sends what changed in one Show (two when a new graphic has to
    /// be uploaded first). Inside ``beginUpdates()``/``endUpdates()`` nothing is sent until
    /// the end; the result then says so.
    @discardableResult
    public func update(_ change: (inout TextAndGraphicState) -> Void) async throws(ManagerError) -> ScreenUpdateResult {
        change(&state)
        guard batching == 0 else { return ScreenUpdateResult(info: "batched: sent by endUpdates()") }
        return try await send()
    }

    /// Holds back updates until the matching ``endUpdates()``, to send several changes as one Show.
    public func beginUpdates() {
        batching += 1
    }

    /// Sends everything changed since ``beginUpdates()``.
    @discardableResult
    public func endUpdates() async throws(ManagerError) -> ScreenUpdateResult {
        batching = max(0, batching - 1)
        guard batching == 0 else { return ScreenUpdateResult(info: "batched: an outer beginUpdates() is still open") }
        return try await send()
    }

    /// Changes the template (SetDisplayLayout), then shows the current state on it again:
    /// a new template starts empty.
    @discardableResult
    public func changeTemplate(_ template: String, dayColorScheme: TemplateColorScheme? = nil,
                               nightColorScheme: TemplateColorScheme? = nil) async throws(ManagerError) -> ScreenUpdateResult {
        try await context.sendExpectingSuccess(SetDisplayLayout(displayLayout: template, dayColorScheme: dayColorScheme,
                                                                nightColorScheme: nightColorScheme))
        shown = Fields()
        return try await send()
    }

    /// A head unit that starts empty shows the app's text and graphics again.
    func headUnitForgot() {
        shown = Fields()
        guard state != TextAndGraphicState() else { return }
        Task { _ = try? await self.send() }
    }

    // MARK: - Sending

    private func send() async throws(ManagerError) -> ScreenUpdateResult {
        await context.hmi.startListening(context.channel)
        await updates.acquire()
        await context.hmi.waitUntilNotNone()
        do {
            let result = try await sendLocked()
            await updates.release()
            return result
        } catch {
            await updates.release()
            throw error
        }
    }

    private func sendLocked() async throws(ManagerError) -> ScreenUpdateResult {
        let display = await context.capabilities.displayCapabilities
        var skipped: [String] = []
        var wanted = Self.fields(for: state, display: display, skipped: &skipped)
        let graphics = display?.graphicSupported ?? true
        let pictures = [state.primaryGraphic, state.secondaryGraphic].compactMap { $0 }
        if !graphics, !pictures.isEmpty {
            skipped.append("graphics: the display shows none")
            wanted.graphic = nil
            wanted.secondaryGraphic = nil
        }
        var missing: [SDLFile] = []
        if graphics {
            for file in pictures where !(await context.files.hasUploaded(file.name)) { missing.append(file) }
        }
        var result = ScreenUpdateResult(skipped: skipped)
        if !missing.isEmpty {
            // The text should not wait for an upload.
            var textFirst = wanted
            textFirst.graphic = shown.graphic
            textFirst.secondaryGraphic = shown.secondaryGraphic
            if textFirst != shown { result = try await show(textFirst, skipped: skipped) }
            let available = await context.upload(missing)
            for file in missing where !available.contains(file.name) {
                result.skipped.append("graphic \(file.name): the upload failed")
                if wanted.graphic == file.name { wanted.graphic = shown.graphic }
                if wanted.secondaryGraphic == file.name { wanted.secondaryGraphic = shown.secondaryGraphic }
            }
        }
        guard wanted != shown else { return result }
        let final = try await show(wanted, skipped: result.skipped)
        return final
    }

    private func show(_ wanted: Fields, skipped: [String]) async throws(ManagerError) -> ScreenUpdateResult {
        var request = Show()
        func changed<Value: Equatable>(_ new: Value?, _ old: Value?) -> Bool { new != old }
        let clear = ""
        for line in 0..<4 where wanted.mainFields[line] != shown.mainFields[line] {
            let text = wanted.mainFields[line] ?? clear
            switch line {
            case 0: request.mainField1 = text
            case 1: request.mainField2 = text
            case 2: request.mainField3 = text
            default: request.mainField4 = text
            }
        }
        if wanted.metadata != shown.metadata {
            request.metadataTags = MetadataTags(mainField1: wanted.metadata[0] ?? [], mainField2: wanted.metadata[1] ?? [],
                                                mainField3: wanted.metadata[2] ?? [], mainField4: wanted.metadata[3] ?? [])
        }
        if changed(wanted.mediaTrack, shown.mediaTrack) { request.mediaTrack = wanted.mediaTrack ?? clear }
        if changed(wanted.templateTitle, shown.templateTitle) { request.templateTitle = wanted.templateTitle ?? clear }
        if changed(wanted.alignment, shown.alignment) { request.alignment = wanted.alignment ?? .centered }
        if changed(wanted.graphic, shown.graphic) { request.graphic = Image(value: wanted.graphic ?? clear, imageType: .dynamic) }
        if changed(wanted.secondaryGraphic, shown.secondaryGraphic) {
            request.secondaryGraphic = Image(value: wanted.secondaryGraphic ?? clear, imageType: .dynamic)
        }
        let response = try await context.sendExpectingSuccess(request)
        shown = wanted
        return ScreenUpdateResult(resultCode: response.resultCode, info: response.info, skipped: skipped)
    }

    /// The Show fields for `state` on `display`: texts on the lines the template has.
    static func fields(for state: TextAndGraphicState, display: DisplayCapabilities?, skipped: inout [String]) -> Fields {
        var fields = Fields()
        let names = display.map { Set($0.textFields.map(\.name)) }
        func has(_ name: TextFieldName) -> Bool { names?.contains(name) ?? true }
        let lineNames: [TextFieldName] = [.mainField1, .mainField2, .mainField3, .mainField4]
        let lines = lineNames.prefix { has($0) }.count
        let texts: [(String, MetadataType?)] = [
            (state.textField1, state.textField1Type), (state.textField2, state.textField2Type),
            (state.textField3, state.textField3Type), (state.textField4, state.textField4Type),
        ].compactMap { text, type in text.map { ($0, type) } }
        let highest = [state.textField1, state.textField2, state.textField3, state.textField4].lastIndex { $0 != nil }.map { $0 + 1 } ?? 0
        if highest <= lines {
            for (index, text) in [state.textField1, state.textField2, state.textField3, state.textField4].enumerated() {
                fields.mainFields[index] = text
            }
            for (index, type) in [state.textField1Type, state.textField2Type, state.textField3Type, state.textField4Type].enumerated()
            where fields.mainFields[index] != nil {
                fields.metadata[index] = type.map { [$0] }
            }
        } else if lines == 0 {
            skipped.append("text fields: the template has no main text lines")
        } else if texts.count <= lines {
            for (index, text) in texts.enumerated() {
                fields.mainFields[index] = text.0
                fields.metadata[index] = text.1.map { [$0] }
            }
        } else {
            // Fewer lines than texts: the first lines as they are, the rest joined into the last.
            for index in 0..<lines - 1 {
                fields.mainFields[index] = texts[index].0
                fields.metadata[index] = texts[index].1.map { [$0] }
            }
            let rest = texts[(lines - 1)...]
            fields.mainFields[lines - 1] = rest.map(\.0).joined(separator: " - ")
            let types = rest.compactMap(\.1)
            fields.metadata[lines - 1] = types.isEmpty ? nil : types
        }
        if state.mediaTrack != nil {
            if has(.mediaTrack) { fields.mediaTrack = state.mediaTrack } else { skipped.append("mediaTrack: the template has no such field") }
        }
        if state.title != nil {
            if has(.templateTitle) { fields.templateTitle = state.title } else { skipped.append("title: the template has no such field") }
        }
        fields.alignment = state.alignment
        fields.graphic = state.primaryGraphic?.name
        fields.secondaryGraphic = state.secondaryGraphic?.name
        return fields
    }
}
