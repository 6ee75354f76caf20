/// A phrase (or several) the user can say at any time to trigger the app, without a menu entry.
public struct VoiceCommand: Sendable {
    /// What the user may say; unique across the voice commands.
    public var phrases: [String]
    /// Called when the user says one of the phrases.
    public var handler: @Sendable () -> Void

    /// A voice command.
    public init(_ phrases: [String], handler: @escaping @Sendable () -> Void) {
        self.phrases = phrases
        self.handler = handler
    }
}

/// Keeps the app's global voice commands (AddCommand with only `vrCommands`) equal to the
/// list the app sets, sending only the difference.
public actor VoiceCommandManager {
    private struct Sent: Sendable {
        var phrases: [String]
        var id: Int
    }

    /// Command ids of voice commands start here, far from the menu's, so one OnCommand
    /// stream serves both managers without collisions.
    static let firstID = 1_000_000_000

    private let context: ScreenContext
    private var shown: [Sent] = []
    private var handlers: [Int: @Sendable () -> Void] = [:]
    private var nextID = VoiceCommandManager.firstID
    private let updates = SerialQueue()
    private var listening = false
    /// The commands the app set last, sent again to a head unit that starts empty.
    private var desired: [VoiceCommand]?

    init(context: ScreenContext) {
        self.context = context
    }

    func startListening() async {
        guard !listening else { return }
        listening = true
        await context.hmi.startListening(context.channel)
        await context.channel.forEach(OnCommand.self, on: self) { await $0.received($1) }
    }

    /// Replaces the voice commands. Phrases that are empty or only spaces are dropped, and
    /// a command left without phrases is not sent (the head unit rejects an empty
    /// `vrCommands`).
    ///
    /// - Throws: ``ManagerError/invalid(_:)`` when a phrase repeats (DUPLICATE_NAME
    ///   on the head unit); nothing is sent then. A refused command is thrown after the
    ///   others were sent.
    public func setVoiceCommands(_ commands: [VoiceCommand]) async throws(ManagerError) {
        await startListening()
        let cleaned = commands.compactMap { command -> VoiceCommand? in
            var command = command
            command.phrases = command.phrases.filter { !$0.allSatisfy(\.isWhitespace) }
            return command.phrases.isEmpty ? nil : command
        }
        var seen: Set<String> = []
        let repeated = cleaned.flatMap(\.phrases).filter { !seen.insert($0.lowercased()).inserted }
        guard repeated.isEmpty else {
            throw .invalid("the phrases \(repeated.map { "\"\($0)\"" }.joined(separator: ", ")) are used by more than one voice command")
        }
        desired = cleaned
        await updates.acquire()
        await context.hmi.waitUntilNotNone()
        let failure = await apply(cleaned)
        await updates.release()
        if let failure { throw failure }
    }

    private func apply(_ commands: [VoiceCommand]) async -> ManagerError? {
        let diff = ListDiff(from: shown.map(\.phrases), to: commands.map(\.phrases))
        var failure: ManagerError?
        // Commands the head unit would not delete are still there and still answer; the
        // next update tries again.
        var undeleted: [Sent] = []
        for index in diff.deleted {
            do throws(ManagerError) {
                try await context.sendExpectingSuccess(DeleteCommand(cmdID: shown[index].id))
                handlers[shown[index].id] = nil
            } catch {
                failure = error
                undeleted.append(shown[index])
            }
        }
        var result = [Sent?](repeating: nil, count: commands.count)
        for pair in diff.kept {
            result[pair.new] = shown[pair.old]
            handlers[shown[pair.old].id] = commands[pair.new].handler
        }
        for index in diff.added {
            let id = nextID
            nextID += 1
            do throws(ManagerError) {
                try await context.sendExpectingSuccess(AddCommand(cmdID: id, vrCommands: commands[index].phrases))
                handlers[id] = commands[index].handler
                result[index] = Sent(phrases: commands[index].phrases, id: id)
            } catch {
                failure = error
            }
        }
        shown = result.compactMap { $0 } + undeleted
        return failure
    }

    func headUnitForgot() {
        shown = []
        handlers = [:]
        guard let desired, !desired.isEmpty else { return }
        Task { try? await self.setVoiceCommands(desired) }
    }

    private func received(_ command: OnCommand) {
        handlers[command.cmdID]?()
    }
}
