import SmartDeviceLink

// RPC plumbing: a payload to a handled request, and answers and notifications back out.
extension HeadUnitEmulator {
    func handleRPC(_ payload: [UInt8], key: SessionKey, protected: Bool = false) {
        let packet: RPCPacket, parameters: JSONObject
        do {
            (packet, parameters) = try RPCEnvelope.parts(of: payload)
        } catch {
            guard let functionID = error.functionID, let correlationID = error.correlationID else {
                emit(.malformed(connection: key.connection, reason: error.description))
                return
            }
            // core: JSON it cannot read gets a GenericResponse INVALID_DATA.
            answerUnreadable(key: key, functionID: functionID, correlationID: correlationID, info: error.reason)
            return
        }
        switch packet.messageType {
        case .response:
            return providerAnswered(packet.correlationID, parameters, from: key)
        case .notification:
            if packet.functionID == OnAppServiceData.functionID { appServiceDataFromProvider(parameters, from: key) }
            return
        default:
            break
        }
        guard let name = RPCRegistry.functionName(forID: packet.functionID), name != "GenericResponse",
              packet.functionID < 0x8000 || packet.functionID >= 0x10000 else {
            // core: a function id it does not know gets a GenericResponse INVALID_DATA.
            answerUnreadable(key: key, functionID: packet.functionID, correlationID: packet.correlationID,
                             info: "unknown function id \(packet.functionID)")
            return
        }
        let request = IncomingRequest(key: key, name: name, functionID: packet.functionID, correlationID: packet.correlationID,
                                      parameters: parameters, bulkData: packet.bulkData, protected: protected)
        emit(.rpcReceived(appID: apps[key]?.appID, name: name, correlationID: packet.correlationID))
        dispatch(request)
    }

    private func answerUnreadable(key: SessionKey, functionID: UInt32, correlationID: Int32, info: String) {
        let request = IncomingRequest(key: key, name: "GenericResponse", functionID: 31, correlationID: correlationID,
                                      parameters: [:], bulkData: [])
        emit(.rpcReceived(appID: apps[key]?.appID, name: RPCRegistry.functionName(forID: functionID) ?? "Function\(functionID)",
                          correlationID: correlationID))
        respond(request, "INVALID_DATA", info: info)
    }

    private func dispatch(_ request: IncomingRequest) {
        // core checks a request against the spec before anything else, registration and
        // policy included (rpc_handler_impl.cc); what it drops on the way makes a WARNINGS.
        var request = request
        let check = CoreValidation(function: request.name, parameters: request.parameters)
        if let refusal = check.refusal {
            respond(request, "INVALID_DATA", info: refusal)
            return
        }
        request.parameters = check.parameters
        request.warnings = check.warnings
        if request.functionID == RegisterAppInterface.functionID {
            registerApp(request)
            return
        }
        guard let app = apps[request.key] else {
            respond(request, "APPLICATION_NOT_REGISTERED")
            return
        }
        // core's RPC encryption (rpc_service_impl.cc), before the policy's levels.
        if !request.protected, encryptionRequired(request.name, for: request.key) {
            respond(request, "ENCRYPTION_NEEDED")
            return
        }
        // Policies: an RPC outside the levels the app's table allows is DISALLOWED, with no side
        // effect; a Show to a widget is checked at the widget's level (command_impl.cc).
        guard let level = checkedLevel(of: request, app) else {
            respond(request, "INVALID_ID")
            return
        }
        guard policy.allows(request.name, appID: app.appID, hmiLevel: level) else {
            // core answers a policy refusal without info (seen on 8.2).
            respond(request, "DISALLOWED")
            return
        }
        guard let handle = Self.handlers[request.functionID] else {
            respond(request, "UNSUPPORTED_REQUEST", info: "the emulator does not model \(request.name)")
            return
        }
        guard forwardToHMI(request, app) else { return }
        subscribeSoftButtons(of: request)
        handle(self, request)
    }

    typealias Handler = @Sendable (isolated HeadUnitEmulator, IncomingRequest) -> Void

    /// Runs `handle` when the request has one of `keys`; INVALID_DATA without info otherwise.
    func needsAny(_ request: IncomingRequest, _ keys: String..., then handle: () -> Void) {
        if keys.contains(where: { request.parameters[$0] != nil }) { handle() } else { respond(request, "INVALID_DATA") }
    }

    /// The requests the emulator models, by function id, each to its handler, with the request
    /// decoded into its generated type for the handlers that read it. RegisterAppInterface
    /// comes before the registration and policy checks, so it is not here.
    static let handlers: [UInt32: Handler] = Dictionary(uniqueKeysWithValues: [
        reading(UnregisterAppInterface.self) { hu, request in hu.unregisterApp(request) },
        decoding(ChangeRegistration.self) { $0.changeRegistration($1, $2) },
        decoding(AddCommand.self) { $0.addCommand($1, $2) },
        decoding(DeleteCommand.self) { $0.deleteCommand($1, $2) },
        decoding(AddSubMenu.self) { $0.addSubMenu($1, $2) },
        decoding(DeleteSubMenu.self) { $0.deleteSubMenu($1, $2) },
        decoding(CreateInteractionChoiceSet.self) { $0.createChoiceSet($1, $2) },
        decoding(DeleteInteractionChoiceSet.self) { $0.deleteChoiceSet($1, $2) },
        decoding(PerformInteraction.self) { $0.performInteraction($1, $2) },
        decoding(Alert.self) { $0.alert($1, $2) },
        reading(Show.self) { hu, request in hu.show(request) },
        decoding(Speak.self) { $0.speak($1, $2) },
        reading(SetGlobalProperties.self) { hu, request in hu.setGlobalProperties(request) },
        decoding(ResetGlobalProperties.self) { $0.resetGlobalProperties($1, $2) },
        decoding(SetMediaClockTimer.self) { $0.setMediaClockTimer($1, $2) },
        decoding(ScrollableMessage.self) { $0.scrollableMessage($1, $2) },
        decoding(Slider.self) { $0.slider($1, $2) },
        decoding(SubscribeButton.self) { $0.subscribeButton($1, $2.buttonName) },
        decoding(UnsubscribeButton.self) { $0.unsubscribeButton($1, $2.buttonName) },
        reading(SubscribeVehicleData.self) { hu, request in hu.subscribeVehicleData(request) },
        reading(UnsubscribeVehicleData.self) { hu, request in hu.unsubscribeVehicleData(request) },
        reading(GetVehicleData.self) { hu, request in hu.getVehicleData(request) },
        decoding(PerformAudioPassThru.self) { $0.performAudioPassThru($1, $2) },
        reading(EndAudioPassThru.self) { hu, request in hu.endAudioPassThru(request) },
        decoding(PutFile.self) { $0.putFile($1, $2) },
        decoding(DeleteFile.self) { $0.deleteFile($1, name: $2.syncFileName) },
        reading(ListFiles.self) { hu, request in hu.listFiles(request) },
        decoding(SetAppIcon.self) { $0.setAppIcon($1, name: $2.syncFileName) },
        decoding(GetSystemCapability.self) { $0.getSystemCapability($1, $2) },
        decoding(SetDisplayLayout.self) { $0.setDisplayLayout($1, $2) },
        decoding(CreateWindow.self) { $0.createWindow($1, $2) },
        decoding(DeleteWindow.self) { $0.deleteWindow($1, $2) },
        decoding(ShowAppMenu.self) { $0.showAppMenu($1, menuID: $2.menuID) },
        decoding(CancelInteraction.self) { $0.cancelInteraction($1, $2) },
        decoding(DialNumber.self) { $0.dialNumber($1, number: $2.number) },
        decoding(SendLocation.self) { $0.sendLocation($1, $2) },
        decoding(SendHapticData.self) { $0.sendHapticData($1, $2) },
        reading(GetInteriorVehicleData.self) { hu, request in hu.getInteriorVehicleData(request) },
        reading(SetInteriorVehicleData.self) { hu, request in hu.setInteriorVehicleData(request) },
        reading(ButtonPress.self) { hu, request in hu.buttonPress(request) },
        reading(GetInteriorVehicleDataConsent.self) { hu, request in hu.getInteriorVehicleDataConsent(request) },
        reading(ReleaseInteriorVehicleDataModule.self) { hu, request in hu.releaseInteriorVehicleDataModule(request) },
        reading(PublishAppService.self) { hu, request in hu.publishAppService(request) },
        reading(UnpublishAppService.self) { hu, request in hu.unpublishAppService(request) },
        reading(GetAppServiceData.self) { hu, request in hu.getAppServiceData(request) },
        reading(PerformAppServiceInteraction.self) { hu, request in hu.performAppServiceInteraction(request) },
        decoding(SubtleAlert.self) { $0.subtleAlert($1, $2) },
        reading(CloseApplication.self) { hu, request in hu.closeApplication(request) },
        reading(GetWayPoints.self) { hu, request in hu.getWayPoints(request) },
        reading(SubscribeWayPoints.self) { hu, request in hu.subscribeWayPoints(request, subscribe: true) },
        reading(UnsubscribeWayPoints.self) { hu, request in hu.subscribeWayPoints(request, subscribe: false) },
        decoding(ReadDID.self) { $0.readDID($1, $2) },
        decoding(GetDTCs.self) { $0.getDTCs($1, $2) },
        reading(DiagnosticMessage.self) { hu, request in hu.diagnosticMessage(request) },
        reading(EncodedSyncPData.self) { hu, request in hu.encodedSyncPData(request) },
        decoding(GetFile.self) { $0.getFile($1, $2) },
        decoding(SystemRequest.self) { $0.systemRequest($1, $2) },
        decoding(GetCloudAppProperties.self) { $0.getCloudAppProperties($1, $2) },
        decoding(SetCloudAppProperties.self) { $0.setCloudAppProperties($1, $2) },
        reading(ShowConstantTBT.self) { hu, request in hu.navigationShown(request) },
        // core: with neither its list (or speech) nor soft buttons there is nothing to do.
        reading(UpdateTurnList.self) { hu, request in
            hu.needsAny(request, "turnList", "softButtons") { hu.navigationShown(request) }
        },
        reading(AlertManeuver.self) { hu, request in
            hu.needsAny(request, "ttsChunks", "softButtons") { hu.respond(request, "SUCCESS") }
        },
    ])

    /// A handler that gets the request as its generated type. The spec check ran first, so
    /// decoding fails only where the generator and the validator read the spec differently:
    /// that is answered INVALID_DATA, never a crash.
    private static func decoding<Request: RPCRequest>(
        _ type: Request.Type, _ body: @escaping @Sendable (isolated HeadUnitEmulator, IncomingRequest, Request) -> Void
    ) -> (UInt32, Handler) {
        (Request.functionID, { emulator, request in
            if let typed = emulator.decoded(Request.self, request) { body(emulator, request, typed) }
        })
    }

    /// A handler that reads the request's parameters as they came. The spec check ran first;
    /// decoding a value nobody reads was 3.5% of the emulator's reader thread for a Show.
    private static func reading<Request: RPCRequest>(_ type: Request.Type, _ body: @escaping Handler) -> (UInt32, Handler) {
        (Request.functionID, body)
    }

    /// The request as its generated type; nil after answering INVALID_DATA. Its bulk data stays
    /// in `request.bulkData`, a slice of the payload (a PutFile chunk is not copied).
    func decoded<Request: RPCRequest>(_ type: Request.Type, _ request: IncomingRequest) -> Request? {
        do throws(RPCDecodingError) {
            return try Request(json: .object(request.parameters), path: Request.functionName)
        } catch {
            respond(request, "INVALID_DATA", info: error.description)
            return nil
        }
    }

    /// Result codes for which sdl_core sets `success: true`. UNSUPPORTED_RESOURCE is not
    /// among them: core reports it as a success only when the rest of the request was
    /// done (a Show whose image cannot be shown), which the caller says with `success`.
    static let successfulCodes: Set<String> = [
        "SUCCESS", "WARNINGS", "WRONG_LANGUAGE", "RESUME_FAILED", "RETRY", "SAVED", "TRUNCATED_DATA",
    ]

    /// Answers a request; `success` overrides what the result code implies.
    func respond(_ request: IncomingRequest, _ resultCode: String, success: Bool? = nil, info: String? = nil, _ extra: JSONObject = [:],
                 bulkData: [UInt8] = []) {
        var parameters = extra, resultCode = resultCode, info = info
        if let warnings = request.warnings, resultCode == "SUCCESS" || resultCode == "WARNINGS" {
            // core: what its check dropped turns a success into WARNINGS (request_from_mobile_impl.cc).
            info = info.map { "\($0)\n\(warnings)" } ?? warnings
            resultCode = "WARNINGS"
        }
        parameters["success"] = .bool(success ?? Self.successfulCodes.contains(resultCode))
        parameters["resultCode"] = .string(resultCode)
        if let info { parameters["info"] = .string(info) }
        let packet = RPCPacket(messageType: .response, functionID: request.functionID, correlationID: request.correlationID,
                               json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData)
        send(packet, to: request.key, protected: request.protected)
        unsubscribeSoftButtons(after: request)
        answeredOnHMI(request, resultCode)
        emit(.rpcAnswered(appID: apps[request.key]?.appID, name: request.name, correlationID: request.correlationID, resultCode: resultCode))
    }

    /// Sends a request to an app (a consumer's, passed on to its provider).
    func sendRequest(_ name: String, functionID: UInt32, correlationID: Int32, _ parameters: JSONObject, to key: SessionKey) {
        let packet = RPCPacket(messageType: .request, functionID: functionID, correlationID: correlationID,
                               json: JSONValue.object(parameters).serializedBytes())
        send(packet, to: key, protected: isRPCProtected(key))
    }

    /// Sends a notification to an app.
    func notify(_ key: SessionKey, _ name: String, _ parameters: JSONObject, bulkData: [UInt8] = []) {
        // core writes 0xFFFFFFFF in a notification's correlation id field (observed on 8.2).
        // One the policy wants encrypted goes only to a protected RPC service (core drops it otherwise).
        let encrypted = encryptionRequired(name, for: key)
        if encrypted && !isRPCProtected(key) { return }
        let packet = RPCPacket(messageType: .notification, functionID: (RPCRegistry.functionID(forName: name) ?? 0), correlationID: -1,
                               json: JSONValue.object(parameters).serializedBytes(), bulkData: bulkData)
        send(packet, to: key, protected: encrypted)
        emit(.notificationSent(appID: apps[key]?.appID ?? "-", name: name, parameters: parameters))
    }

    private func send(_ packet: RPCPacket, to key: SessionKey, protected: Bool) {
        let now = clock.now
        guard let actions = try? connections.update(key.connection, { connection throws(ProtocolStateError) in
            try connection.machine.send(packet, sessionID: key.session, protected: protected, now: now)
        }) else { return }
        perform(actions, on: key.connection)
    }

    /// Whether the policy requires `function` encrypted for the app of `key` (core's
    /// CheckPolicyEncryptionFlag): the RPCs of its encryption_required groups, except that
    /// a few go unencrypted while the RPC service is not protected.
    func encryptionRequired(_ function: String, for key: SessionKey) -> Bool {
        guard let required = configuration.security?.encryptionRequired, required.contains(function) else { return false }
        return isRPCProtected(key) || !ConnectionProtection.exceptions.contains(function)
    }

    func isRPCProtected(_ key: SessionKey) -> Bool {
        connections[key.connection]?.machine.protectedServices(of: key.session).contains(.rpc) ?? false
    }
}
