import SmartDeviceLink

/// Parameter checks that turn out-of-spec requests into INVALID_DATA, as core's schema
/// validation does: every request is checked against the RPC spec (mandatory parameters,
/// JSON kinds, numeric ranges, string lengths, array sizes, enum values, unknown names).
enum ParameterCheck {
    /// Why the request's parameters break the spec, or nil.
    static func problem(in request: IncomingRequest) -> String? {
        problem(function: request.name, parameters: request.parameters)
    }

    static func problem(function: String, parameters: JSONObject) -> String? {
        do {
            // Strict, as for an outgoing message: core rejects unknown enum values and names too.
            try RPCSpec.validate(function: function, messageType: .request, parameters: parameters)
            return nil
        } catch {
            return error.description
        }
    }
}
