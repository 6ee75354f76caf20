import Glibc

/// The byte formats of Linux's FunctionFS (`include/uapi/linux/usb/functionfs.h`): what the
/// gadget writes to ep0 before it binds, and the events ep0 reads back.
enum FunctionFS {
    /// The descriptors of one vendor interface (class 0xFF) with a bulk IN endpoint 0x81 and a
    /// bulk OUT endpoint 0x02, at full and high speed: what an Android phone's accessory
    /// function offers and sdl_core's USB transport claims (its first IN and first OUT).
    ///
    /// Format v2 with `FUNCTIONFS_ALL_CTRL_RECIP`, so that control requests addressed to the
    /// device (the Android Open Accessory requests are vendor requests to the device, not to
    /// an interface) reach ep0 as SETUP events instead of being stalled by the kernel.
    static func descriptors() -> [UInt8] {
        let interface: [UInt8] = [9, 4, 0, 0, 2, 0xFF, 0xFF, 0, 1]  // bLength, INTERFACE, #0, alt 0, 2 endpoints, vendor, iInterface 1
        func bulk(_ address: UInt8, maxPacket: UInt16) -> [UInt8] {
            [7, 5, address, 2] + maxPacket.littleEndianBytes + [0]
        }
        let fullSpeed = interface + bulk(0x81, maxPacket: 64) + bulk(0x02, maxPacket: 64)
        let highSpeed = interface + bulk(0x81, maxPacket: 512) + bulk(0x02, maxPacket: 512)
        let flags: UInt32 = 1 | 2 | 64  // HAS_FS_DESC | HAS_HS_DESC | ALL_CTRL_RECIP
        let body = flags.littleEndianBytes + UInt32(3).littleEndianBytes + UInt32(3).littleEndianBytes + fullSpeed + highSpeed
        return UInt32(3).littleEndianBytes + UInt32(8 + body.count).littleEndianBytes + body  // DESCRIPTORS_MAGIC_V2, length
    }

    /// Whether an ep0 read or write failed only because the host cancelled the SETUP it
    /// concerned: FunctionFS says so once, with EIDRM, when a new event (a re-enumeration, a
    /// reset) overtakes a pending request. The next read has the events; nothing is lost.
    static func setupCancelled(_ code: Int32) -> Bool { code == EIDRM }

    /// The string table: one language (en-US) with the interface's name.
    static func strings(interfaceName: String = "SDL") -> [UInt8] {
        let text: [UInt8] = UInt16(0x0409).littleEndianBytes + Array(interfaceName.utf8) + [0]
        // STRINGS_MAGIC, length, one string, one language
        return UInt32(2).littleEndianBytes + UInt32(16 + text.count).littleEndianBytes
            + UInt32(1).littleEndianBytes + UInt32(1).littleEndianBytes + text
    }

    /// A SETUP packet as ep0 hands it over (`struct usb_ctrlrequest`).
    struct Setup: Equatable, Sendable {
        var requestType: UInt8
        var request: UInt8
        var value: UInt16
        var index: UInt16
        var length: UInt16
        /// Data flows from the device to the host (bit 7 of bmRequestType).
        var isIn: Bool { requestType & 0x80 != 0 }
    }

    /// One event read from ep0 (`struct usb_functionfs_event`, 12 bytes).
    enum Event: Equatable, Sendable {
        case bind, unbind, enable, disable, suspend, resume
        case setup(Setup)
        case unknown(UInt8)

        static let size = 12

        /// Every whole event in `bytes`; a read returns one or more.
        static func parse(_ bytes: ArraySlice<UInt8>) -> [Event] {
            stride(from: bytes.startIndex, to: bytes.endIndex - size + 1, by: size).map { start in
                let b = bytes[start..<start + size]
                func word(_ at: Int) -> UInt16 { UInt16(b[start + at]) | UInt16(b[start + at + 1]) << 8 }
                switch b[start + 8] {
                case 0: return .bind
                case 1: return .unbind
                case 2: return .enable
                case 3: return .disable
                case 4: return .setup(Setup(requestType: b[start], request: b[start + 1], value: word(2), index: word(4), length: word(6)))
                case 5: return .suspend
                case 6: return .resume
                case let other: return .unknown(other)
                }
            }
        }
    }
}

extension FixedWidthInteger {
    /// The value's bytes, least significant first.
    var littleEndianBytes: [UInt8] {
        withUnsafeBytes(of: littleEndian) { Array($0) }
    }
}
