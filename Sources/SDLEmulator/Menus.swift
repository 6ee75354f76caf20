import SmartDeviceLink

extension HeadUnitEmulator {
    /// AddCommand, as core's AddCommandRequest: INVALID_ID for a used cmdID or an unknown
    /// parentID, DUPLICATE_NAME for VR commands the app already uses; the same menuName
    /// twice is allowed (SDL-0180).
    func addCommand(_ request: IncomingRequest, _ command: AddCommand) {
        guard var app = apps[request.key] else { return }
        guard command.menuParams != nil || command.vrCommands != nil else {
            respond(request, "INVALID_DATA")  // add_command_request.cc, without info
            return
        }
        if let menu = command.menuParams, menu.menuName.isEmpty {
            respond(request, "INVALID_DATA", info: "menuParams.menuName is mandatory")
            return
        }
        if app.commands[command.cmdID] != nil {
            respond(request, "INVALID_ID")
            return
        }
        if let parent = command.menuParams?.parentID, parent != 0, app.submenus[parent] == nil {
            respond(request, "INVALID_ID", info: "Parent ID doesn't exist")  // add_command/add_sub_menu_request.cc
            return
        }
        if let vr = command.vrCommands {
            // Only other commands' voice commands count: core takes one that repeats itself.
            let wanted = vr.map { $0.lowercased() }
            let used = Set(app.commands.values.flatMap { $0.vrCommands?.map { $0.lowercased() } ?? [] })
            if wanted.contains(where: used.contains) {
                respond(request, "DUPLICATE_NAME")  // without info, as core (add_command_request.cc; seen on 8.2)
                return
            }
        }
        app.commands[command.cmdID] = command
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// DeleteCommand: INVALID_ID for a cmdID the app never added.
    func deleteCommand(_ request: IncomingRequest, _ command: DeleteCommand) {
        guard apps[request.key]?.commands[command.cmdID] != nil else {
            respond(request, "INVALID_ID")  // without info, as core (seen on 8.2)
            return
        }
        apps[request.key]?.commands[command.cmdID] = nil
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// AddSubMenu: INVALID_ID for a used menuID or an unknown parentID (core's
    /// AddSubMenuRequest). Two submenus may share a name: since SDL-0180 only voice commands
    /// must be unique, and core 8.2 accepts the second one.
    func addSubMenu(_ request: IncomingRequest, _ submenu: AddSubMenu) {
        guard var app = apps[request.key] else { return }
        let parent = submenu.parentID ?? 0
        if app.submenus[submenu.menuID] != nil {
            respond(request, "INVALID_ID")
            return
        }
        if parent != 0, app.submenus[parent] == nil {
            respond(request, "INVALID_ID", info: "Parent ID doesn't exist")  // add_command/add_sub_menu_request.cc
            return
        }
        app.submenus[submenu.menuID] = submenu
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// DeleteSubMenu: INVALID_ID when unknown; its commands and nested submenus go with it.
    func deleteSubMenu(_ request: IncomingRequest, _ deletion: DeleteSubMenu) {
        guard var app = apps[request.key] else { return }
        guard app.submenus[deletion.menuID] != nil else {
            respond(request, "INVALID_ID")
            return
        }
        var doomed: Set<Int> = [deletion.menuID]
        var grew = true
        while grew {
            let before = doomed.count
            for (id, menu) in app.submenus where doomed.contains(menu.parentID ?? 0) { doomed.insert(id) }
            grew = doomed.count != before
        }
        for id in doomed { app.submenus[id] = nil }
        app.commands = app.commands.filter { !doomed.contains($0.value.menuParams?.parentID ?? 0) }
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// CreateInteractionChoiceSet: INVALID_ID for a used set id or a choiceID repeated in
    /// the set; DUPLICATE_NAME for VR commands repeated in the set.
    func createChoiceSet(_ request: IncomingRequest, _ set: CreateInteractionChoiceSet) {
        guard var app = apps[request.key] else { return }
        if app.choiceSets[set.interactionChoiceSetID] != nil {
            respond(request, "INVALID_ID")
            return
        }
        guard !set.choiceSet.isEmpty else {
            respond(request, "INVALID_DATA", info: "a choice set needs 1…100 choices")
            return
        }
        let ids = set.choiceSet.map(\.choiceID)
        if Set(ids).count != ids.count {
            respond(request, "INVALID_ID")  // create_interaction_choice_set_request.cc, without info
            return
        }
        let vr = set.choiceSet.flatMap { $0.vrCommands?.map { $0.lowercased() } ?? [] }
        if Set(vr).count != vr.count {
            respond(request, "DUPLICATE_NAME")
            return
        }
        app.choiceSets[set.interactionChoiceSetID] = set
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// DeleteInteractionChoiceSet: INVALID_ID when unknown, IN_USE while a PerformInteraction shows it.
    func deleteChoiceSet(_ request: IncomingRequest, _ deletion: DeleteInteractionChoiceSet) {
        guard let app = apps[request.key] else { return }
        let setID = deletion.interactionChoiceSetID
        guard app.choiceSets[setID] != nil else {
            respond(request, "INVALID_ID")
            return
        }
        if let modal = app.modal, modal.kind == .interaction, modal.choiceSetIDs.contains(setID) {
            respond(request, "IN_USE")
            return
        }
        apps[request.key]?.choiceSets[setID] = nil
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// The HMI asks the app to fill a submenu it is about to show (UI.OnUpdateSubMenu, passed
    /// on by core without a check: OnUpdateSubMenu).
    func requestSubMenuUpdate(_ menuID: Int, updateSubCells: Bool?, appID: String?) throws(EmulatorError) {
        let key = try resolve(appID)
        var parameters: JSONObject = ["menuID": .int(Int64(menuID))]
        if let updateSubCells { parameters["updateSubCells"] = .bool(updateSubCells) }
        if mayReceive(key, "OnUpdateSubMenu") { notify(key, "OnUpdateSubMenu", parameters) }
    }
}
