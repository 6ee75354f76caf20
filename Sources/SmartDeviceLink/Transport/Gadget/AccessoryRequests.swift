/// The phone's side of the Android Open Accessory handshake, as a head unit's USB host
/// drives it on ep0 (the requests sdl_core's usb_connection sends every Android device it
/// sees): GET_PROTOCOL, six SEND_STRINGs and START. No I/O: the gadget reads the SETUP
/// events, asks this what to do, and does it.
struct AccessoryRequests: Sendable {
    /// What the gadget does with one SETUP request.
    enum Reply: Equatable, Sendable {
        /// Send these bytes in the data stage (an IN request).
        case send([UInt8])
        /// Read the data stage's `length` bytes and hand them to ``received(_:for:)``.
        case receive(length: Int)
        /// Acknowledge the status stage of START: the head unit waits for the accessory.
        case start
        /// Refuse the request (a protocol stall), as a phone does with what it does not know.
        case stall
    }

    /// The accessory protocol version a phone answers: 2 (accessory plus audio and HID).
    static let protocolVersion: UInt16 = 2

    /// The strings the head unit sent, by index: 0 manufacturer, 1 model, 2 description,
    /// 3 version, 4 URI, 5 serial number.
    private(set) var strings: [UInt16: String] = [:]
    /// START came: the gadget re-enumerates with the accessory's identity.
    private(set) var started = false

    mutating func reply(to setup: FunctionFS.Setup) -> Reply {
        switch (setup.requestType, setup.request) {
        case (0xC0, 51):  // ACCESSORY_GET_PROTOCOL
            return .send(Self.protocolVersion.littleEndianBytes)
        case (0x40, 52) where setup.length > 0:  // ACCESSORY_SEND_STRING
            return .receive(length: Int(setup.length))
        case (0x40, 53):  // ACCESSORY_START
            started = true
            return .start
        default:
            return .stall
        }
    }

    /// The data stage of a SEND_STRING: the string, without its NUL.
    mutating func received(_ data: [UInt8], for setup: FunctionFS.Setup) {
        let text = data.prefix { $0 != 0 }
        strings[setup.index] = String(decoding: text, as: UTF8.self)
    }

    /// Who switched the board, from the strings the head unit sent: "SDL Core 1.0
    /// (SmartDeviceLink Core Component USB)" for sdl_core.
    var headUnit: String {
        let name = [strings[0], strings[1], strings[3]].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        guard !name.isEmpty else { return "a head unit that sent no accessory strings" }
        return strings[2].map { $0.isEmpty ? name : "\(name) (\($0))" } ?? name
    }
}
