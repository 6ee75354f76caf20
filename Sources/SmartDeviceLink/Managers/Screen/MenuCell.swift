/// One entry of the app's menu: a command the user can pick (by touch or by voice), or a
/// submenu holding more cells.
public struct MenuCell: Sendable {
    /// Called when the user picks the cell, with how (menu or voice).
    public typealias Handler = @Sendable (TriggerSource) -> Void

    /// The name shown (made unique within its level when sent).
    public var title: String
    /// A second line, on head units with RPC 7.1 or later.
    public var secondaryText: String?
    /// A third line, on head units with RPC 7.1 or later.
    public var tertiaryText: String?
    /// Uploaded before the cell is sent; left out on head units without graphics.
    public var icon: SDLFile?
    /// A second image, on head units with RPC 7.1 or later.
    public var secondaryArtwork: SDLFile?
    /// Phrases that pick the cell by voice; unique across the whole menu.
    public var voiceCommands: [String]?
    /// The cells of a submenu; nil for a command.
    public var subCells: [MenuCell]?
    /// How the head unit lays out this submenu (list or tiles).
    public var submenuLayout: MenuLayout?
    /// Called when the user picks the command; unused for submenus.
    public var handler: Handler?

    /// A command.
    public init(title: String, secondaryText: String? = nil, tertiaryText: String? = nil, icon: SDLFile? = nil,
                secondaryArtwork: SDLFile? = nil, voiceCommands: [String]? = nil, handler: Handler? = nil) {
        self.title = title
        self.secondaryText = secondaryText
        self.tertiaryText = tertiaryText
        self.icon = icon
        self.secondaryArtwork = secondaryArtwork
        self.voiceCommands = voiceCommands
        self.handler = handler
    }

    /// A submenu.
    public init(title: String, secondaryText: String? = nil, tertiaryText: String? = nil, icon: SDLFile? = nil,
                submenuLayout: MenuLayout? = nil, subCells: [MenuCell]) {
        self.title = title
        self.secondaryText = secondaryText
        self.tertiaryText = tertiaryText
        self.icon = icon
        self.submenuLayout = submenuLayout
        self.subCells = subCells
    }

    /// Whether the cell holds cells.
    public var isSubmenu: Bool { subCells != nil }

    /// What the head unit shows of the cell itself (not of its subcells): two cells with
    /// the same appearance need no RPC to turn one into the other.
    struct Appearance: Hashable, Sendable {
        var title: String
        var secondaryText: String?
        var tertiaryText: String?
        var icon: String?
        var secondaryArtwork: String?
        var voiceCommands: [String]?
        var isSubmenu: Bool
        var submenuLayout: MenuLayout?
    }

    /// The appearance with `title` as sent (made unique) and only the artwork the head
    /// unit has.
    func appearance(title: String, artwork available: Set<String>) -> Appearance {
        Appearance(title: title, secondaryText: secondaryText, tertiaryText: tertiaryText,
                   icon: icon.flatMap { available.contains($0.name) ? $0.name : nil },
                   secondaryArtwork: secondaryArtwork.flatMap { available.contains($0.name) ? $0.name : nil },
                   voiceCommands: voiceCommands, isSubmenu: isSubmenu, submenuLayout: submenuLayout)
    }

    /// Titles made unique within one level where the head unit needs it: a second submenu
    /// of the same name is DUPLICATE_NAME everywhere, a second command only before RPC 7.1
    /// (SDL-0180 allows repeated command names): "Song", "Song (2)".
    static func uniqueTitles(_ cells: [MenuCell], commandsToo: Bool) -> [String] {
        var seen: [String: Int] = [:]
        return cells.map { cell in
            guard cell.isSubmenu || commandsToo else { return cell.title }
            let count = (seen[cell.title] ?? 0) + 1
            seen[cell.title] = count
            return count == 1 ? cell.title : "\(cell.title) (\(count))"
        }
    }

    /// Every artwork of the cells and their subcells.
    static func artwork(in cells: [MenuCell]) -> [SDLFile] {
        cells.flatMap { [$0.icon, $0.secondaryArtwork].compactMap { $0 } + artwork(in: $0.subCells ?? []) }
    }

    /// Voice commands used twice across the menu (compared as the head unit does, ignoring case).
    static func repeatedVoiceCommands(in cells: [MenuCell]) -> [String] {
        var seen: Set<String> = [], repeated: [String] = []
        func visit(_ cells: [MenuCell]) {
            for cell in cells {
                for phrase in cell.voiceCommands ?? [] where !seen.insert(phrase.lowercased()).inserted { repeated.append(phrase) }
                visit(cell.subCells ?? [])
            }
        }
        visit(cells)
        return repeated
    }
}

/// What a menu update did.
public struct MenuUpdateReport: Sendable, Equatable {
    /// Cells that stayed on the head unit untouched.
    public var kept = 0
    /// Cells added (AddCommand, AddSubMenu).
    public var added = 0
    /// Cells deleted (DeleteCommand, DeleteSubMenu).
    public var deleted = 0
    /// A newer menu replaced this one before it was sent (it waited for the open menu to close).
    public var superseded = false
    /// Cells the head unit refused, by title, with its answer.
    public var failures: [String: ManagerError] = [:]

    /// An empty report.
    public init() {}
}
