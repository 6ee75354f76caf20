/// Function id → name, for messages handled in their dynamic form.
enum RPCFunctionNames {
    static func name(for functionID: UInt32) -> String? {
        RPCRegistry.functionNamesByID[functionID]
    }
}
