import SmartDeviceLink

extension HeadUnitEmulator {
    /// The vehicle data items a request names with `true`; nil when one is unknown.
    private func requestedItems(_ request: IncomingRequest) -> [String]? {
        var items: [String] = []
        for (name, value) in request.parameters {
            guard VehicleDataNames.dataTypes[name] != nil, value.boolValue != nil else { return nil }
            if value.boolValue == true { items.append(name) }
        }
        return items.sorted()
    }

    private func itemResult(_ name: String, _ code: String) -> JSONValue {
        ["dataType": .string(VehicleDataNames.dataTypes[name] ?? name), "resultCode": .string(code)]
    }

    /// SubscribeVehicleData, as core: a result per item (`dataType`, `resultCode`);
    /// DATA_ALREADY_SUBSCRIBED for items already subscribed, VEHICLE_DATA_NOT_AVAILABLE for
    /// items the car lacks; IGNORED overall when no item was subscribed.
    func subscribeVehicleData(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        guard let items = requestedItems(request), !items.isEmpty else {
            respond(request, "INVALID_DATA")  // core: nothing asked, no info
            return
        }
        var results: JSONObject = [:]
        var added: [String] = []
        var codes: Set<String> = []
        for name in items {
            let code: String
            if VehicleDataNames.readOnly.contains(name) {
                code = "INVALID_ID"
            } else if app.vehicleSubscriptions.contains(name) {
                code = "DATA_ALREADY_SUBSCRIBED"
            } else if unavailableVehicleData.contains(name) {
                code = "VEHICLE_DATA_NOT_AVAILABLE"
            } else {
                code = "SUCCESS"
                added.append(name)
            }
            codes.insert(code)
            results[name] = itemResult(name, code)
        }
        apps[request.key]?.vehicleSubscriptions.formUnion(added)
        if added.isEmpty {
            let code = codes == ["VEHICLE_DATA_NOT_AVAILABLE"] ? "VEHICLE_DATA_NOT_AVAILABLE" : "IGNORED"
            // core's words (subscribe_vehicle_data_request.cc; seen on 8.2)
            respond(request, code, info: "Already subscribed on provided VehicleData.", results)
        } else {
            respond(request, added.count == items.count ? "SUCCESS" : "WARNINGS",
                    info: added.count == items.count ? nil : "some items were not subscribed", results)
            hashChanged(request.key)
        }
    }

    /// UnsubscribeVehicleData: DATA_NOT_SUBSCRIBED per item not subscribed, IGNORED overall then.
    func unsubscribeVehicleData(_ request: IncomingRequest) {
        guard let app = apps[request.key] else { return }
        guard let items = requestedItems(request), !items.isEmpty else {
            respond(request, "INVALID_DATA")  // core: nothing asked, no info
            return
        }
        var results: JSONObject = [:]
        var removed: [String] = []
        for name in items {
            if app.vehicleSubscriptions.contains(name) {
                removed.append(name)
                results[name] = itemResult(name, "SUCCESS")
            } else {
                results[name] = itemResult(name, "DATA_NOT_SUBSCRIBED")
            }
        }
        apps[request.key]?.vehicleSubscriptions.subtract(removed)
        // core (UnsubscribeVehicleDataRequest): IGNORED with this info when any item was not
        // subscribed; success is false only when none was.
        if removed.count == items.count {
            respond(request, "SUCCESS", results)
        } else {
            respond(request, "IGNORED", success: !removed.isEmpty, info: "Some provided VehicleData was not subscribed.", results)
        }
        if !removed.isEmpty { hashChanged(request.key) }
    }

    /// GetVehicleData: the current values; VEHICLE_DATA_NOT_AVAILABLE when none of the items has one.
    func getVehicleData(_ request: IncomingRequest) {
        guard let items = requestedItems(request), !items.isEmpty else {
            respond(request, "INVALID_DATA")  // core: nothing asked, no info
            return
        }
        var values: JSONObject = [:]
        for name in items where !unavailableVehicleData.contains(name) {
            if let value = vehicleData[name] { values[name] = value }
        }
        if values.isEmpty {
            respond(request, unavailableAnswer.resultCode, info: unavailableAnswer.info ?? "no value for \(items.joined(separator: ", "))")
        } else if values.count < items.count {
            let missing = items.filter { values[$0] == nil }
            respond(request, "DATA_NOT_AVAILABLE", info: "no value for \(missing.joined(separator: ", "))", values)
        } else {
            respond(request, "SUCCESS", values)
        }
    }

    /// New values: OnVehicleData to every app subscribed to one of them (and allowed to
    /// receive it in its HMI level), with the subscribed items only.
    func updateVehicleData(_ values: JSONObject) {
        for (name, value) in values {
            vehicleData[name] = value
            unavailableVehicleData.remove(name)
        }
        for app in appsInOrder {
            let mine = values.filter { app.vehicleSubscriptions.contains($0.key) }
            guard !mine.isEmpty, mayReceive(app.key, "OnVehicleData") else { continue }
            notify(app.key, "OnVehicleData", mine)
        }
    }

    /// The configured timeline runs once, from the first registration on.
    func startVehicleTimelineIfNeeded() {
        guard !timelineStarted, !configuration.vehicleTimeline.isEmpty else { return }
        timelineStarted = true
        for point in configuration.vehicleTimeline {
            let values = point.values
            after(point.atMs) { $0.updateVehicleData(values) }
        }
    }
}
