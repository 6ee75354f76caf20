/// Function id ⇄ name, for messages handled in their dynamic form.
enum RPCFunctionNames {
    static func name(for functionID: UInt32) -> String? {
        interim[functionID]
    }

    // Interim table until the generated registry provides every id.
    private static let interim: [UInt32: String] = [
        1: "RegisterAppInterface", 2: "UnregisterAppInterface", 13: "Show",
        32768: "OnHMIStatus", 32769: "OnAppInterfaceUnregistered", 32776: "OnPermissionsChange",
    ]
}
