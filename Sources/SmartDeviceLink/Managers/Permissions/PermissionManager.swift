public import Foundation

/// How a group of RPCs stands at the current HMI level.
public enum PermissionGroupStatus: Sendable, Hashable {
    /// Every RPC of the group is allowed.
    case allowed
    /// None is allowed.
    case disallowed
    /// Some are allowed.
    case mixed
    /// No OnPermissionsChange arrived yet.
    case unknown
}

/// When a group observer is called.
public enum PermissionObserverMode: Sendable, Hashable {
    /// Whenever the status of any RPC of the group changes.
    case anyChange
    /// When the group becomes all allowed, and when it stops being all allowed.
    case allAllowed
}

/// What the head unit allows for one RPC, at the current HMI level.
public struct RPCPermissionStatus: Sendable, Hashable {
    /// The RPC's name (`Show`, `GetVehicleData`).
    public var rpcName: String
    /// Whether the app may send it at its current HMI level.
    public var isAllowed: Bool
    /// Parameters the policy allows for this RPC (nil: the head unit did not restrict them).
    public var allowedParameters: [String]?
    /// The RPC must be sent encrypted (SDL 6.0+ policies).
    public var requiresEncryption: Bool
}

/// Which RPCs the head unit allows, from OnPermissionsChange and the HMI level.
///
/// Observers are called once when added, with the current statuses, and then only when
/// their group really changes.
public actor PermissionManager {
    /// Called with the observed RPCs' statuses, by name, and their group's status.
    public typealias Observer = @Sendable (_ statuses: [String: RPCPermissionStatus], _ group: PermissionGroupStatus) -> Void

    private struct Subscription {
        var rpcs: [String]
        var mode: PermissionObserverMode
        var handler: Observer
        var lastStatuses: [String: RPCPermissionStatus]
        var lastGroup: PermissionGroupStatus
    }

    private var items: [String: PermissionItem]?
    private var hmiLevel = HMILevel.none
    private var subscriptions: [UUID: Subscription] = [:]

    /// A manager that allows nothing until the first OnPermissionsChange.
    public init() {}

    /// Whether `rpcName` may be sent now.
    public func isRPCAllowed(_ rpcName: String) -> Bool {
        status(of: rpcName).isAllowed
    }

    /// Whether `parameter` of `rpcName` may be sent now.
    public func isParameterAllowed(_ parameter: String, in rpcName: String) -> Bool {
        let status = status(of: rpcName)
        return status.isAllowed && (status.allowedParameters?.contains(parameter) ?? true)
    }

    /// Whether the policy requires `rpcName` to be encrypted.
    public func requiresEncryption(_ rpcName: String) -> Bool {
        status(of: rpcName).requiresEncryption
    }

    /// The status of one RPC.
    public func status(of rpcName: String) -> RPCPermissionStatus {
        guard let item = items?[rpcName] else {
            return RPCPermissionStatus(rpcName: rpcName, isAllowed: false, allowedParameters: nil, requiresEncryption: false)
        }
        let allowed = item.hmiPermissions.allowed.contains(hmiLevel) && !item.hmiPermissions.userDisallowed.contains(hmiLevel)
        let parameters = item.parameterPermissions.allowed.isEmpty && item.parameterPermissions.userDisallowed.isEmpty
            ? nil : item.parameterPermissions.allowed.filter { !item.parameterPermissions.userDisallowed.contains($0) }
        return RPCPermissionStatus(rpcName: rpcName, isAllowed: allowed, allowedParameters: parameters,
                                   requiresEncryption: item.requireEncryption ?? false)
    }

    /// The statuses of each RPC of a group.
    public func statuses(of rpcs: [String]) -> [String: RPCPermissionStatus] {
        Dictionary(uniqueKeysWithValues: rpcs.map { ($0, status(of: $0)) })
    }

    /// How a group stands as a whole.
    public func groupStatus(of rpcs: [String]) -> PermissionGroupStatus {
        guard items != nil else { return .unknown }
        let allowed = rpcs.filter(isRPCAllowed).count
        if allowed == rpcs.count { return .allowed }
        return allowed == 0 ? .disallowed : .mixed
    }

    /// Calls `handler` now and whenever the group changes as `mode` says; returns an id for
    /// ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(for rpcs: [String], mode: PermissionObserverMode = .anyChange,
                            handler: @escaping Observer) -> UUID {
        let id = UUID()
        let current = statuses(of: rpcs)
        let group = groupStatus(of: rpcs)
        subscriptions[id] = Subscription(rpcs: rpcs, mode: mode, handler: handler, lastStatuses: current, lastGroup: group)
        handler(current, group)
        return id
    }

    /// Stops calling the observer that ``addObserver(for:mode:handler:)`` returned `id` for.
    public func removeObserver(_ id: UUID) {
        subscriptions[id] = nil
    }

    // MARK: - Input (from SDLManager)

    func update(_ permissionItems: [PermissionItem]) {
        items = Dictionary(permissionItems.map { ($0.rpcName, $0) }, uniquingKeysWith: { _, last in last })
        notify()
    }

    func update(hmiLevel: HMILevel) {
        self.hmiLevel = hmiLevel
        notify()
    }

    private func notify() {
        for (id, var subscription) in subscriptions {
            let current = statuses(of: subscription.rpcs)
            let group = groupStatus(of: subscription.rpcs)
            let fire: Bool
            switch subscription.mode {
            case .anyChange: fire = current != subscription.lastStatuses
            case .allAllowed: fire = (group == .allowed) != (subscription.lastGroup == .allowed)
            }
            subscription.lastStatuses = current
            subscription.lastGroup = group
            subscriptions[id] = subscription
            if fire { subscription.handler(current, group) }
        }
    }
}
