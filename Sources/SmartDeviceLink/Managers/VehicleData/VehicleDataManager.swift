/// A vehicle data item by its RPC parameter name (`speed`, `rpm`, `gps`...).
///
/// Every item of the spec's GetVehicleData is valid (``all``); the common ones have
/// constants. A name the spec does not know is refused with a suggestion before anything
/// is sent.
public struct VehicleDataItem: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The parameter name in GetVehicleData.
    public let rawValue: String
    /// An item by its parameter name; checked against the spec when used.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An item from a literal such as `"speed"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The parameter name.
    public var description: String { rawValue }

    /// Speed, km/h.
    public static let speed: VehicleDataItem = "speed"
    /// Engine revolutions per minute.
    public static let rpm: VehicleDataItem = "rpm"
    /// Fuel level, percent.
    public static let fuelLevel: VehicleDataItem = "fuelLevel"
    /// Position, heading and GPS speed.
    public static let gps: VehicleDataItem = "gps"
    /// Odometer, km.
    public static let odometer: VehicleDataItem = "odometer"
    /// The selected gear (PRNDL).
    public static let prndl: VehicleDataItem = "prndl"
    /// Low and high beams, ambient light.
    public static let headLampStatus: VehicleDataItem = "headLampStatus"
    /// Outside temperature, °C.
    public static let externalTemperature: VehicleDataItem = "externalTemperature"
    /// The vehicle identification number (read only).
    public static let vin: VehicleDataItem = "vin"

    /// Every item GetVehicleData names in the spec.
    public static let all: [VehicleDataItem] = RPCSpec.shared.function(named: "GetVehicleData", messageType: .request)?
        .params.map { VehicleDataItem(rawValue: $0.name) } ?? []

    /// Items that can be read but not subscribed (the VIN, for one).
    static let readOnly: Set<VehicleDataItem> = Set(all).subtracting(
        RPCSpec.shared.function(named: "SubscribeVehicleData", messageType: .request)?.params.map { VehicleDataItem(rawValue: $0.name) } ?? [])
}

/// What a one-time read returned.
public struct VehicleDataReading: Sendable {
    /// The typed values, as the head unit sent them.
    public let values: GetVehicleDataResponse
    /// Items asked for that came back without a value, with the head unit's result code.
    public let missing: [VehicleDataItem]
    /// SUCCESS, or DATA_NOT_AVAILABLE when some items are missing.
    public let resultCode: ResultCode
    /// The head unit's explanation, if any.
    public let info: String?
}

/// Reads vehicle data once, subscribes and unsubscribes, and streams updates.
///
/// Subscriptions are counted by item: an item already subscribed is not sent again, and
/// each item's own result (SUCCESS, DATA_ALREADY_SUBSCRIBED, VEHICLE_DATA_NOT_AVAILABLE,
/// USER_DISALLOWED...) is returned rather than folded into one code.
public actor VehicleDataManager {
    private let channel: any RPCChannel
    /// Items the head unit sends OnVehicleData for.
    public private(set) var subscribed: Set<VehicleDataItem> = []
    private let observers = Broadcast<OnVehicleData>()
    private var listening = false

    /// A manager over any channel (``SDLManager`` has one of its own).
    public init(channel: any RPCChannel) {
        self.channel = channel
    }

    private func startListening() async {
        guard !listening else { return }
        listening = true
        await channel.forEach(OnVehicleData.self, on: self) { await $0.deliver($1) }
    }

    /// Reads items once.
    ///
    /// - Returns: the values; items the head unit had no value for are in
    ///   ``VehicleDataReading/missing`` (a partial answer is not an error).
    /// - Throws: ``ManagerError/invalid(_:)`` for unknown names (nothing sent);
    ///   ``ManagerError/refused(function:resultCode:info:)`` when no item came back
    ///   (VEHICLE_DATA_NOT_AVAILABLE, DISALLOWED, USER_DISALLOWED...).
    public func get(_ items: Set<VehicleDataItem>) async throws(ManagerError) -> VehicleDataReading {
        let parameters = try Self.flags(items, allowed: Set(VehicleDataItem.all))
        let request: GetVehicleData
        do {
            request = try GetVehicleData(json: .object(parameters), path: "GetVehicleData")
        } catch {
            throw .invalid("\(error)")
        }
        let response = try await send(request)
        let values = response.json.objectValue ?? [:]
        let missing = items.filter { values[$0.rawValue] == nil }.sorted { $0.rawValue < $1.rawValue }
        guard missing.count < items.count else {
            throw .refused(function: "GetVehicleData", resultCode: response.resultCode, info: response.info)
        }
        return VehicleDataReading(values: response, missing: missing, resultCode: response.resultCode, info: response.info)
    }

    /// Subscribes to items and returns each item's result. Items already subscribed are
    /// not sent again (their result is SUCCESS).
    ///
    /// - Throws: ``ManagerError/invalid(_:)`` for unknown or read-only items (nothing
    ///   sent); ``ManagerError/refused(function:resultCode:info:)`` when the head unit
    ///   answers without per-item results (DISALLOWED, INVALID_DATA...).
    @discardableResult
    public func subscribe(_ items: Set<VehicleDataItem>) async throws(ManagerError) -> [VehicleDataItem: VehicleDataResultCode] {
        await startListening()
        let allowed = Set(VehicleDataItem.all).subtracting(VehicleDataItem.readOnly)
        _ = try Self.flags(items, allowed: allowed)
        var results = Dictionary(uniqueKeysWithValues: items.intersection(subscribed).map { ($0, VehicleDataResultCode.success) })
        let wanted = items.subtracting(subscribed)
        guard !wanted.isEmpty else { return results }
        let request: SubscribeVehicleData
        do {
            request = try SubscribeVehicleData(json: .object(try Self.flags(wanted, allowed: allowed)), path: "SubscribeVehicleData")
        } catch {
            throw .invalid("\(error)")
        }
        let response = try await send(request)
        let perItem = Self.itemResults(response.json, wanted)
        guard !perItem.isEmpty else {
            throw .refused(function: "SubscribeVehicleData", resultCode: response.resultCode, info: response.info)
        }
        for (item, code) in perItem {
            results[item] = code
            if code == .success || code == .dataAlreadySubscribed { subscribed.insert(item) }
        }
        return results
    }

    /// Unsubscribes from items this manager subscribed; others are left alone.
    @discardableResult
    public func unsubscribe(_ items: Set<VehicleDataItem>) async throws(ManagerError) -> [VehicleDataItem: VehicleDataResultCode] {
        let wanted = items.intersection(subscribed)
        guard !wanted.isEmpty else { return [:] }
        let request: UnsubscribeVehicleData
        do {
            request = try UnsubscribeVehicleData(json: .object(try Self.flags(wanted, allowed: Set(VehicleDataItem.all))), path: "UnsubscribeVehicleData")
        } catch {
            throw .invalid("\(error)")
        }
        let response = try await send(request)
        let perItem = Self.itemResults(response.json, wanted)
        guard !perItem.isEmpty else {
            throw .refused(function: "UnsubscribeVehicleData", resultCode: response.resultCode, info: response.info)
        }
        for (item, code) in perItem where code == .success || code == .dataNotSubscribed { subscribed.remove(item) }
        return perItem
    }

    /// Every OnVehicleData from now on.
    public func updates() async -> AsyncStream<OnVehicleData> {
        await startListening()
        return observers.subscribe()
    }

    /// The values of one item from now on, e.g. `values(of: \.speed)`.
    public func values<Value: Sendable>(of item: any KeyPath<OnVehicleData, Value?> & Sendable) async -> AsyncStream<Value> {
        let all = await updates()
        return AsyncStream { continuation in
            let task = Task {
                for await data in all {
                    if let value = data[keyPath: item] { continuation.yield(value) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A head unit that did not resume the app lost its subscriptions: subscribe again
    /// once the app leaves HMI level NONE (where the head unit refuses subscriptions).
    func headUnitForgot() async {
        let items = subscribed
        subscribed = []
        guard !items.isEmpty else { return }
        let statuses = await channel.notifications(OnHMIStatus.self)
        Task {
            for await status in statuses where status.hmiLevel != HMILevel.none {
                _ = try? await self.subscribe(items)
                break
            }
        }
    }

    // MARK: - Helpers

    private func send<Request: RPCRequest>(_ request: Request) async throws(ManagerError) -> Request.Response {
        try await channel.managedSend(request)
    }

    private func deliver(_ data: OnVehicleData) {
        observers.yield(data)
    }

    /// `{item: true}` for the request; unknown names are refused with the closest known one.
    static func flags(_ items: Set<VehicleDataItem>, allowed: Set<VehicleDataItem>) throws(ManagerError) -> JSONObject {
        guard !items.isEmpty else { throw .invalid("name at least one vehicle data item") }
        for item in items.sorted(by: { $0.rawValue < $1.rawValue }) where !allowed.contains(item) {
            if Set(all).contains(item) { throw .invalid("\(item) can be read with get but not subscribed") }
            let close = RPCSpec.didYouMean(item.rawValue, among: all.map(\.rawValue))
            throw .invalid("\"\(item)\" is not a vehicle data item of the spec\(close)")
        }
        return Dictionary(uniqueKeysWithValues: items.map { ($0.rawValue, JSONValue.bool(true)) })
    }

    private static var all: [VehicleDataItem] { VehicleDataItem.all }

    /// The per-item results of a (un)subscribe response.
    static func itemResults(_ json: JSONValue, _ items: Set<VehicleDataItem>) -> [VehicleDataItem: VehicleDataResultCode] {
        var results: [VehicleDataItem: VehicleDataResultCode] = [:]
        for item in items {
            if let code = json[item.rawValue]?["resultCode"]?.stringValue { results[item] = VehicleDataResultCode(rawValue: code) }
        }
        return results
    }
}
