import SmartDeviceLink

/// The vehicle's diagnostics as sdl_core 8.2 passes them to its HMI and sdl_hmi answers
/// (measured): every DID reads "0", an ECU lists three trouble codes, a diagnostic message is
/// answered with 200. EncodedSyncPData is a request core no longer knows.
extension HeadUnitEmulator {
    func readDID(_ request: IncomingRequest, _ read: ReadDID) {
        let results: [JSONValue] = read.didLocation.map { ["resultCode": "SUCCESS", "didLocation": .int(Int64($0)), "data": "0"] }
        respond(request, "SUCCESS", ["didResult": .array(results)])
    }

    func getDTCs(_ request: IncomingRequest, _ dtcs: GetDTCs) {
        respond(request, "SUCCESS", ["ecuHeader": .int(Int64(dtcs.ecuName)), "dtc": ["line 0", "line 1", "line 2"]])
    }

    func diagnosticMessage(_ request: IncomingRequest) {
        respond(request, "SUCCESS", ["messageDataResult": [200]])
    }

    func encodedSyncPData(_ request: IncomingRequest) {
        respond(request, "UNSUPPORTED_REQUEST", info: "Module does not recognize this function id")
    }
}
