import SmartDeviceLink

extension HeadUnitEmulator {
    /// AddCommand, as core's AddCommandRequest: INVALID_ID for a used cmdID or an unknown
    /// parentID, DUPLICATE_NAME for VR commands the app already uses; the same menuName
    /// twice is allowed (SDL-0180).
    func addCommand(_ request: IncomingRequest) {
        guard var app = apps[request.key] else { return }
        let p = request.parameters
        let cmdID = Int(p["cmdID"]!.intValue!)
        let menu = p["menuParams"]?.objectValue
        let vr = p["vrCommands"]?.arrayValue?.compactMap(\.stringValue)
        guard menu != nil || vr != nil else {
            respond(request, "INVALID_DATA", info: "AddCommand needs menuParams or vrCommands")
            return
        }
        if let menu, menu["menuName"]?.stringValue?.isEmpty != false {
            respond(request, "INVALID_DATA", info: "menuParams.menuName is mandatory")
            return
        }
        if app.commands[cmdID] != nil {
            respond(request, "INVALID_ID", info: "cmdID \(cmdID) is already used")
            return
        }
        if let parent = menu?["parentID"]?.intValue, parent != 0, app.submenus[Int(parent)] == nil {
            respond(request, "INVALID_ID", info: "no submenu with menuID \(parent)")
            return
        }
        if let vr {
            let wanted = vr.map { $0.lowercased() }
            if Set(wanted).count != wanted.count {
                respond(request, "DUPLICATE_NAME", info: "vrCommands repeat a name")
                return
            }
            let used = Set(app.commands.values.flatMap { $0["vrCommands"]?.arrayValue?.compactMap { $0.stringValue?.lowercased() } ?? [] })
            if let clash = wanted.first(where: used.contains) {
                respond(request, "DUPLICATE_NAME", info: "the VR command \"\(clash)\" is already used by another command")
                return
            }
        }
        app.commands[cmdID] = p
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// DeleteCommand: INVALID_ID for a cmdID the app never added.
    func deleteCommand(_ request: IncomingRequest) {
        let cmdID = Int(request.parameters["cmdID"]!.intValue!)
        guard apps[request.key]?.commands[cmdID] != nil else {
            respond(request, "INVALID_ID", info: "no command with cmdID \(cmdID)")
            return
        }
        apps[request.key]?.commands[cmdID] = nil
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// AddSubMenu: INVALID_ID for a used menuID or an unknown parentID, DUPLICATE_NAME for
    /// a menuName already used in the same parent (core's AddSubMenuRequest).
    func addSubMenu(_ request: IncomingRequest) {
        guard var app = apps[request.key] else { return }
        let p = request.parameters
        let menuID = Int(p["menuID"]!.intValue!)
        let parent = Int(p["parentID"]?.intValue ?? 0)
        let name = p["menuName"]!.stringValue!
        if app.submenus[menuID] != nil {
            respond(request, "INVALID_ID", info: "menuID \(menuID) is already used")
            return
        }
        if parent != 0, app.submenus[parent] == nil {
            respond(request, "INVALID_ID", info: "no submenu with menuID \(parent)")
            return
        }
        if app.submenus.values.contains(where: { Int($0["parentID"]?.intValue ?? 0) == parent && $0["menuName"]?.stringValue == name }) {
            respond(request, "DUPLICATE_NAME", info: "a submenu named \"\(name)\" already exists here")
            return
        }
        app.submenus[menuID] = p
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// DeleteSubMenu: INVALID_ID when unknown; its commands and nested submenus go with it.
    func deleteSubMenu(_ request: IncomingRequest) {
        guard var app = apps[request.key] else { return }
        let menuID = Int(request.parameters["menuID"]!.intValue!)
        guard app.submenus[menuID] != nil else {
            respond(request, "INVALID_ID", info: "no submenu with menuID \(menuID)")
            return
        }
        var doomed: Set<Int> = [menuID]
        var grew = true
        while grew {
            let before = doomed.count
            for (id, menu) in app.submenus where doomed.contains(Int(menu["parentID"]?.intValue ?? 0)) { doomed.insert(id) }
            grew = doomed.count != before
        }
        for id in doomed { app.submenus[id] = nil }
        app.commands = app.commands.filter { !doomed.contains(Int($0.value["menuParams"]?["parentID"]?.intValue ?? 0)) }
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// CreateInteractionChoiceSet: INVALID_ID for a used set id or a choiceID repeated in
    /// the set; DUPLICATE_NAME for VR commands repeated in the set.
    func createChoiceSet(_ request: IncomingRequest) {
        guard var app = apps[request.key] else { return }
        let p = request.parameters
        let setID = Int(p["interactionChoiceSetID"]!.intValue!)
        if app.choiceSets[setID] != nil {
            respond(request, "INVALID_ID", info: "interactionChoiceSetID \(setID) is already used")
            return
        }
        let choices = p["choiceSet"]!.arrayValue!
        guard !choices.isEmpty, choices.allSatisfy({ $0["choiceID"]?.intValue != nil && $0["menuName"]?.stringValue != nil }) else {
            respond(request, "INVALID_DATA", info: "every choice needs choiceID and menuName (1…100 choices)")
            return
        }
        let ids = choices.compactMap { $0["choiceID"]?.intValue }
        if Set(ids).count != ids.count {
            respond(request, "INVALID_ID", info: "a choiceID repeats within the set")
            return
        }
        let vr = choices.flatMap { $0["vrCommands"]?.arrayValue?.compactMap { $0.stringValue?.lowercased() } ?? [] }
        if Set(vr).count != vr.count {
            respond(request, "DUPLICATE_NAME", info: "a VR command repeats within the set")
            return
        }
        app.choiceSets[setID] = p
        apps[request.key] = app
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }

    /// DeleteInteractionChoiceSet: INVALID_ID when unknown, IN_USE while a PerformInteraction shows it.
    func deleteChoiceSet(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        let setID = Int(request.parameters["interactionChoiceSetID"]!.intValue!)
        guard app.choiceSets[setID] != nil else {
            respond(request, "INVALID_ID", info: "no choice set \(setID)")
            return
        }
        if let modal = app.modal, modal.kind == .interaction,
           modal.request.parameters["interactionChoiceSetIDList"]?.arrayValue?.contains(where: { $0.intValue == Int64(setID) }) == true {
            respond(request, "IN_USE", info: "choice set \(setID) is shown by a PerformInteraction")
            return
        }
        apps[request.key]?.choiceSets[setID] = nil
        respond(request, "SUCCESS")
        hashChanged(request.key)
    }
}
