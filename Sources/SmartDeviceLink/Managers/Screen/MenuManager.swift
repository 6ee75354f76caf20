import Logging
/// Keeps the app's menu on the head unit equal to the cells the app sets, with the fewest
/// AddCommand/AddSubMenu/DeleteCommand/DeleteSubMenu requests.
///
/// Cells that did not change stay; only deleted and new ones cause RPCs (a longest-common-run diff).
/// While the user has the menu open (system context MENU) an update waits, since changing
/// a menu under the user's finger is what makes head units answer IN_USE; when several
/// updates wait, only the newest is sent.
public actor MenuManager {
    private struct SentCell: Sendable {
        var appearance: MenuCell.Appearance
        var id: Int
        var children: [SentCell]
    }

    private let context: ScreenContext
    private var shown: [SentCell] = []
    private var handlers: [Int: MenuCell.Handler] = [:]
    private var nextID = 1
    private let updates = SerialQueue()
    private var latestRequest = 0
    /// Updates waiting for the app to be shown or the menu to close (for tests).
    private(set) var waitingUpdates = 0
    /// The menu the app set last, sent again to a head unit that starts empty.
    private var desired: [MenuCell]?
    private var listening = false

    init(context: ScreenContext) {
        self.context = context
    }

    /// Begins following OnCommand and the system context; called on first use.
    func startListening() async {
        guard !listening else { return }
        listening = true
        await context.hmi.startListening(context.channel)
        await context.channel.forEach(OnCommand.self, on: self) { await $0.received($1) }
    }

    /// Whether the user has the menu open now.
    public var isMenuOpen: Bool {
        get async { await context.hmi.systemContext == .menu }
    }

    /// Replaces the menu. Returns when the head unit shows it, or when a newer call replaced
    /// it while both waited: for the user to close the menu, or (HMI level NONE, where head
    /// units refuse menu RPCs) for the app to be shown.
    ///
    /// - Throws: ``ManagerError/invalid(_:)`` when voice commands repeat (the head
    ///   unit would refuse the second with DUPLICATE_NAME); nothing is sent then. Cells the
    ///   head unit refuses are listed in the report; the rest of the menu is still sent.
    @discardableResult
    public func setMenu(_ cells: [MenuCell]) async throws(ManagerError) -> MenuUpdateReport {
        await startListening()
        let repeated = MenuCell.repeatedVoiceCommands(in: cells)
        guard repeated.isEmpty else {
            throw .invalid("the voice commands \(repeated.map { "\"\($0)\"" }.joined(separator: ", ")) are used by more than one cell")
        }
        desired = cells
        latestRequest += 1
        let request = latestRequest
        waitingUpdates += 1
        await updates.acquire()
        await context.hmi.waitUntilScreenUsable()
        waitingUpdates -= 1
        guard request == latestRequest else {
            await updates.release()
            var report = MenuUpdateReport()
            report.superseded = true
            return report
        }
        let graphics = await context.graphicsSupported()
        let available = graphics ? await context.upload(MenuCell.artwork(in: cells)) : []
        var report = MenuUpdateReport()
        // Unknown version: unique names are safe everywhere.
        let uniqueCommands = await context.capabilities.rpcVersion.map { $0 < ProtocolVersion(7, 1, 0) } ?? true
        shown = await update(shown, to: cells, parentID: 0, artwork: available, uniqueCommands: uniqueCommands, report: &report)
        await updates.release()
        return report
    }

    /// Lays out the top level of the menu as a list or as tiles (SetGlobalProperties).
    ///
    /// - Throws: ``ManagerError/unsupported(_:)`` when the head unit lists the layouts its
    ///   main window offers and this is not one of them; nothing is sent then.
    public func setMainMenuLayout(_ layout: MenuLayout) async throws(ManagerError) {
        let displays = try? await context.capabilities.capability(.displays)
        let window = displays?.displayCapabilities?.first?.windowCapabilities?.first { ($0.windowID ?? 0) == 0 }
        if let available = window?.menuLayoutsAvailable, !available.contains(layout) {
            throw .unsupported("the main menu can be laid out as \(available.map(\.rawValue).joined(separator: ", ")), not \(layout)")
        }
        try await context.sendExpectingSuccess(SetGlobalProperties(menuLayout: layout))
    }

    /// Opens the menu on the head unit (ShowAppMenu), or the submenu with this title path.
    public func open(submenu path: [String] = []) async throws(ManagerError) {
        await startListening()
        var level = shown
        var menuID: Int?
        for title in path {
            guard let cell = level.first(where: { $0.appearance.title == title && $0.appearance.isSubmenu }) else {
                throw .invalid("the menu has no submenu \"\(title)\"")
            }
            menuID = cell.id
            level = cell.children
        }
        try await context.sendExpectingSuccess(ShowAppMenu(menuID: menuID))
    }

    /// The id of every cell on the head unit by its title path (titles as sent, made
    /// unique), for test rigs and logs that name cells by id (OnCommand, a driver).
    public var cellIDs: [[String]: Int] {
        var ids: [[String]: Int] = [:]
        func visit(_ cells: [SentCell], _ path: [String]) {
            for cell in cells {
                ids[path + [cell.appearance.title]] = cell.id
                visit(cell.children, path + [cell.appearance.title])
            }
        }
        visit(shown, [])
        return ids
    }

    // MARK: - Applying a change

    private func update(_ old: [SentCell], to new: [MenuCell], parentID: Int, artwork: Set<String>, uniqueCommands: Bool,
                        report: inout MenuUpdateReport) async -> [SentCell] {
        let titles = MenuCell.uniqueTitles(new, commandsToo: uniqueCommands)
        let appearances = zip(new, titles).map { $0.appearance(title: $1, artwork: artwork) }
        let diff = ListDiff(from: old.map(\.appearance), to: appearances)
        SDLLog.screen.debug("menu\(parentID == 0 ? "" : " \(parentID)"): \(diff.kept.count) cells kept, \(diff.deleted.count) deleted, \(diff.added.count) added")
        for index in diff.deleted { await delete(old[index], report: &report) }
        var result = [SentCell?](repeating: nil, count: new.count)
        for pair in diff.kept {
            var cell = old[pair.old]
            handlers[cell.id] = new[pair.new].handler
            if let subCells = new[pair.new].subCells {
                cell.children = await update(cell.children, to: subCells, parentID: cell.id, artwork: artwork,
                                             uniqueCommands: uniqueCommands, report: &report)
            }
            result[pair.new] = cell
            report.kept += 1
        }
        for index in diff.added {
            result[index] = await add(new[index], as: appearances[index], position: index, parentID: parentID,
                                      artwork: artwork, uniqueCommands: uniqueCommands, report: &report)
        }
        return result.compactMap { $0 }
    }

    private func add(_ cell: MenuCell, as appearance: MenuCell.Appearance, position: Int, parentID: Int,
                     artwork: Set<String>, uniqueCommands: Bool, report: inout MenuUpdateReport) async -> SentCell? {
        let id = nextID
        nextID += 1
        let icon = ScreenContext.image(cell.icon, in: artwork)
        let secondary = ScreenContext.image(cell.secondaryArtwork, in: artwork)
        do throws(ManagerError) {
            if let subCells = cell.subCells {
                try await context.sendExpectingSuccess(AddSubMenu(
                    menuID: id, menuName: appearance.title, position: position, menuIcon: icon, menuLayout: cell.submenuLayout,
                    parentID: parentID == 0 ? nil : parentID, secondaryText: cell.secondaryText, tertiaryText: cell.tertiaryText))
                report.added += 1
                let children = await update([], to: subCells, parentID: id, artwork: artwork, uniqueCommands: uniqueCommands,
                                            report: &report)
                return SentCell(appearance: appearance, id: id, children: children)
            }
            try await context.sendExpectingSuccess(AddCommand(
                cmdID: id,
                menuParams: MenuParams(menuName: appearance.title, parentID: parentID == 0 ? nil : parentID, position: position,
                                       secondaryText: cell.secondaryText, tertiaryText: cell.tertiaryText),
                vrCommands: cell.voiceCommands?.isEmpty == false ? cell.voiceCommands : nil, cmdIcon: icon, secondaryImage: secondary))
            handlers[id] = cell.handler
            report.added += 1
            return SentCell(appearance: appearance, id: id, children: [])
        } catch {
            report.failures[appearance.title] = error
            return nil
        }
    }

    private func delete(_ cell: SentCell, report: inout MenuUpdateReport) async {
        do throws(ManagerError) {
            if cell.appearance.isSubmenu {
                try await context.sendExpectingSuccess(DeleteSubMenu(menuID: cell.id))
            } else {
                try await context.sendExpectingSuccess(DeleteCommand(cmdID: cell.id))
            }
            report.deleted += 1
        } catch {
            report.failures[cell.appearance.title] = error
        }
        forgetHandlers(of: cell)
    }

    private func forgetHandlers(of cell: SentCell) {
        handlers[cell.id] = nil
        for child in cell.children { forgetHandlers(of: child) }
    }

    /// After a new registration the head unit has no menu (unless it resumed the app's
    /// data): the menu the app set is sent again, whole.
    func headUnitForgot() {
        shown = []
        handlers = [:]
        guard let desired else { return }
        Task { try? await self.setMenu(desired) }
    }

    // MARK: - Head unit events

    private func received(_ command: OnCommand) {
        handlers[command.cmdID]?(command.triggerSource)
    }
}
