extension SDLManager {
    /// Asks the head unit to call `number` on the paired phone. The PHONE_CALL capability
    /// is checked first, so a head unit without a phone gives a clear error instead of a
    /// refused request.
    ///
    /// - Throws: ``ManagerError/unsupported(_:)`` when the head unit cannot dial,
    ///   ``ManagerError/invalid(_:)`` for a number without digits,
    ///   ``ManagerError/refused(function:resultCode:info:)`` when it refuses.
    public func dialNumber(_ number: String) async throws(ManagerError) {
        guard number.contains(where: \.isNumber) else { throw .invalid("\"\(number)\" has no digits to dial") }
        let capability = try await capability(.phoneCall)
        let listed = await systemCapabilityManager.isCapabilitySupported(.phoneCall)
        guard capability?.phoneCapability?.dialNumberEnabled ?? listed else {
            throw .unsupported("the head unit cannot dial (no PHONE_CALL capability with dialNumberEnabled)")
        }
        try await expectSuccess(DialNumber(number: number))
    }

    /// Sends a destination to the head unit's navigation, after checking the NAVIGATION
    /// capability says it takes one.
    public func sendLocation(_ location: SendLocation) async throws(ManagerError) {
        guard (location.latitudeDegrees != nil && location.longitudeDegrees != nil) || location.address != nil
            || !(location.addressLines?.isEmpty ?? true) else {
            throw .invalid("a location needs latitude and longitude, or an address")
        }
        let capability = try await capability(.navigation)
        let listed = await systemCapabilityManager.isCapabilitySupported(.navigation)
        guard capability?.navigationCapability?.sendLocationEnabled ?? listed else {
            throw .unsupported("the head unit takes no destinations (no NAVIGATION capability with sendLocationEnabled)")
        }
        try await expectSuccess(location)
    }

    private func capability(_ type: SystemCapabilityType) async throws(ManagerError) -> SystemCapability? {
        do {
            return try await systemCapabilityManager.capability(type)
        } catch {
            throw ManagerError(error)
        }
    }

    private func expectSuccess<Request: RPCRequest>(_ request: Request) async throws(ManagerError) {
        try await (self as any RPCChannel).expectSuccess(request)
    }
}
