/// Everything the app shows and hears on the head unit's screen, as sdl_ios's screen
/// manager: text and graphics, soft buttons, the menu, voice commands, choice sets and
/// the keyboard, and alerts.
///
/// The pieces are separate actors so that a slow one (a choice set waiting for the user)
/// never holds up another (a text update). They share the file manager for artwork, the
/// capabilities for what the head unit can show, and one queue for modal views.
public struct ScreenManager: Sendable {
    /// Text fields, titles and graphics of the main screen.
    public let textAndGraphics: TextAndGraphicManager
    /// The soft buttons of the main screen.
    public let softButtons: SoftButtonManager
    /// The app's menu.
    public let menu: MenuManager
    /// Global voice commands.
    public let voiceCommands: VoiceCommandManager
    /// Choice sets and the keyboard.
    public let choiceSets: ChoiceSetManager
    /// Alerts, queued.
    public let alerts: AlertManager
    private let context: ScreenContext

    /// Alerts, choice sets and keyboards waiting for the modal view shown before them.
    var waitingModals: Int { get async { await context.modals.waitingCount } }

    /// A screen manager over any channel (``SDLManager`` makes one of its own).
    public init(channel: any RPCChannel, fileManager: SDLFileManager, systemCapabilityManager: SystemCapabilityManager) {
        let context = ScreenContext(channel: channel, files: fileManager, capabilities: systemCapabilityManager)
        self.context = context
        textAndGraphics = TextAndGraphicManager(context: context)
        softButtons = SoftButtonManager(context: context)
        menu = MenuManager(context: context)
        voiceCommands = VoiceCommandManager(context: context)
        choiceSets = ChoiceSetManager(context: context)
        alerts = AlertManager(context: context)
    }

    /// Starts following the head unit's notifications (commands, button presses, keyboard
    /// input, the system context). Each piece also starts on first use.
    public func startListening() async {
        await context.hmi.startListening(context.channel)
        await menu.startListening()
        await voiceCommands.startListening()
        await softButtons.startListening()
        await choiceSets.startListening()
        await alerts.startListening()
    }

    /// The app is registered (again).
    func registered() async {
        await context.hmi.registered()
    }

    /// The manager stopped: updates waiting for the app to be shown go on, and fail as not
    /// connected instead of waiting forever.
    func stopped() async {
        await context.hmi.releaseAll()
    }

    /// The head unit starts without the app's menu, choices and screen (a new registration
    /// that did not resume): the screen, menu and voice commands are sent again; choice
    /// sets are loaded again when next presented.
    func headUnitForgot() async {
        await context.hmi.reset()
        await menu.headUnitForgot()
        await voiceCommands.headUnitForgot()
        await choiceSets.headUnitForgot()
        await textAndGraphics.headUnitForgot()
        await softButtons.headUnitForgot()
    }
}
