import SmartDeviceLink

/// The remote-control requests, answered as sdl_core 8.2 answers them with sdl_hmi 5.8.0 as its
/// HMI (measured): the texts are core's, the data and what a button does are sdl_hmi's.
extension HeadUnitEmulator {
    func getInteriorVehicleData(_ request: IncomingRequest) {
        let type = request.parameters["moduleType"]?.stringValue ?? ""
        guard passesRCChecks(request, type: type), let app = apps[request.key] else { return }
        let module = rcModule(type, id: request.parameters["moduleId"]?.stringValue)
        guard rcModuleExists(module) else {
            respond(request, "UNSUPPORTED_RESOURCE", info: "Accessing not supported module data")
            return
        }
        var response: JSONObject = ["moduleData": moduleData(module, readable(module))]
        var resultCode = "SUCCESS", info: String?
        if let subscribe = request.parameters["subscribe"]?.boolValue {
            let subscribed = app.interiorSubscriptions.contains(module)
            if subscribe && subscribed {
                (resultCode, info) = ("WARNINGS", "App is already subscribed to the provided module")
            } else if subscribe != subscribed {
                if subscribe { apps[request.key]?.interiorSubscriptions.insert(module) } else { apps[request.key]?.interiorSubscriptions.remove(module) }
                hashChanged(request.key)
            }
            response["isSubscribed"] = .bool(subscribe)
        }
        respond(request, resultCode, info: info, response)
    }

    func setInteriorVehicleData(_ request: IncomingRequest) {
        guard let data = request.parameters["moduleData"]?.objectValue, let type = data["moduleType"]?.stringValue else { return }
        guard passesRCChecks(request, type: type) else { return }
        let module = rcModule(type, id: data["moduleId"]?.stringValue)
        acquire(request, module) { unit in
            // core drops the data of other module types, and needs the one of this type.
            guard let dataKey = RCModel.dataKey(type), var values = data[dataKey]?.objectValue else {
                unit.respond(request, "INVALID_DATA", info: "Request module type & data mismatch!")
                return
            }
            guard unit.rcModuleExists(module) else {
                unit.respond(request, "UNSUPPORTED_RESOURCE", info: "Accessing not supported module data")
                return
            }
            let readOnly = RCModel.readOnly[type] ?? []
            guard !values.keys.allSatisfy(readOnly.contains) else {
                unit.respond(request, "READ_ONLY", info: "All request params in module type are READ ONLY!")
                return
            }
            for key in readOnly { values[key] = nil }  // core cuts them off and goes on
            // sdl_hmi tells core what changed before it answers; the app holds the module after.
            unit.interiorDataChanged(module, values)
            let allocated = unit.allocate(module, to: request.key)
            unit.respond(request, "SUCCESS", ["moduleData": unit.moduleData(module, values)])
            if allocated { unit.sendRCStatus() }
        }
    }

    func buttonPress(_ request: IncomingRequest) {
        let type = request.parameters["moduleType"]?.stringValue ?? "", button = request.parameters["buttonName"]?.stringValue ?? ""
        guard passesRCChecks(request, type: type) else { return }
        let module = rcModule(type, id: request.parameters["moduleId"]?.stringValue)
        acquire(request, module) { unit in
            guard RCModel.buttons[type]?.contains(button) == true else {
                unit.respond(request, "INVALID_DATA", info: "Request module type and button name mismatch!")
                return
            }
            let buttons = unit.configuration.remoteControl.capability?["buttonCapabilities"]?.arrayValue ?? []
            guard unit.rcModuleExists(module), buttons.contains(where: { $0["name"]?.stringValue == button }) else {
                unit.respond(request, "UNSUPPORTED_RESOURCE", info: "Requested button or module does not exist in capabilities!")
                return
            }
            let effect = RCModel.press(button, climate: unit.rcData(module.type == "CLIMATE" ? module : unit.rcModule("CLIMATE", id: nil)),
                                       audio: unit.rcData(unit.rcModule("AUDIO", id: nil)))
            unit.interiorDataChanged(effect.type == module.type ? module : unit.rcModule(effect.type, id: nil), effect.changes)
            let allocated = unit.allocate(module, to: request.key)
            unit.respond(request, "SUCCESS")
            if allocated { unit.sendRCStatus() }
        }
    }

    func getInteriorVehicleDataConsent(_ request: IncomingRequest) {
        let type = request.parameters["moduleType"]?.stringValue ?? ""
        guard passesRCChecks(request, type: type) else { return }
        guard let ids = request.parameters["moduleIds"]?.arrayValue else {
            respond(request, "INVALID_DATA", info: "ModuleIds collection is absent in request message")
            return
        }
        let modules = ids.isEmpty ? [rcModule(type, id: nil)] : ids.map { rcModule(type, id: $0.stringValue) }
        guard modules.allSatisfy(rcModuleExists) else {
            respond(request, "UNSUPPORTED_RESOURCE", info: "Accessing not supported module data")
            return
        }
        let appID = apps[request.key]?.appID ?? ""
        let known = modules.map { module -> Bool? in
            let free = access(module, for: request.key)
            guard allowsMultipleAccess(module) else { return free == .allowed }
            switch rc.accessMode {
            case "AUTO_ALLOW": return true
            case "AUTO_DENY": return free == .allowed
            default: return rc.consents[appID]?[module] ?? (free == .allowed ? true : free == .rejected ? false : nil)
            }
        }
        if known.allSatisfy({ $0 != nil }) {
            respond(request, "SUCCESS", ["allowed": .array(known.map { .bool($0!) })])
        } else {
            rc.question = ConsentQuestion(request: request, modules: modules, known: known, then: nil)
        }
    }

    func releaseInteriorVehicleDataModule(_ request: IncomingRequest) {
        let type = request.parameters["moduleType"]?.stringValue ?? ""
        guard passesRCChecks(request, type: type) else { return }
        let module = rcModule(type, id: request.parameters["moduleId"]?.stringValue)
        guard rcModuleExists(module) else {
            respond(request, "UNSUPPORTED_RESOURCE", info: "Accessing not supported module")
            return
        }
        switch rc.holders[module] {
        case request.key?:
            rc.holders[module] = nil
            sendRCStatus()
            respond(request, "SUCCESS", info: "Module [\(module.label)] is released successfully.")
        case nil: respond(request, "IGNORED", info: "Module [\(module.label)] is not allocated to any application.")
        default: respond(request, "REJECTED", info: "Module [\(module.label)] is allocated to a different application.")
        }
    }

    /// A ModuleData of the module with `values` as its type's data.
    func moduleData(_ module: RCModule, _ values: JSONObject) -> JSONValue {
        var data: JSONObject = ["moduleType": .string(module.type), "moduleId": .string(module.id)]
        if let key = RCModel.dataKey(module.type) { data[key] = .object(values) }
        return .object(data)
    }

    /// What a read of the module shows: a radio switched off shows only that, an HD radio
    /// switched off none of its HD data (core's FilterDisabledModuleData).
    private func readable(_ module: RCModule) -> JSONObject {
        var data = rcData(module)
        if module.type == "RADIO" {
            if data["radioEnable"]?.boolValue == false { return ["radioEnable": false] }
            if data["hdRadioEnable"]?.boolValue == false {
                for key in ["hdChannel", "availableHDs", "availableHdChannels", "sisData"] { data[key] = nil }
            }
        }
        return data
    }
}
