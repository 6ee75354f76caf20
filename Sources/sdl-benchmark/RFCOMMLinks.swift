import CSDLShim
import Foundation
import SmartDeviceLink

/// The RFCOMM link of `sdl-benchmark link rfcomm`: the phone (the app, on hci1) listens on an
/// RFCOMM channel and the head unit (hci0) connects to it, as sdl_core's Bluetooth transport
/// connects to a phone's SDL service. In the lab both controllers are btvirt's, so the bytes
/// cross the kernel's RFCOMM, L2CAP and HCI layers and btvirt's virtual radio.
///
/// Ours is the stream transport ``BluetoothTransport`` reads and writes an RFCOMM socket with
/// (4 KiB reads), on each end; raw is the two sockets themselves.
enum RFCOMMLink {
    static let channel: UInt8 = 9

    /// A connected pair of RFCOMM sockets: the app's (accepted) and the head unit's.
    static func connect() async throws -> (app: Int32, unit: Int32) {
        let phone = try BluetoothAdapter.find("hci1")
        let listener = sdl_rfcomm_socket()
        guard listener >= 0 else { throw RawLinkError("socket(AF_BLUETOOTH)", code: errno) }
        defer { close(listener) }
        guard sdl_rfcomm_bind_listen(listener, channel) == 0 else { throw RawLinkError("listening on RFCOMM channel \(channel)", code: errno) }
        let accepted = Task {
            try await RealLinks.blocking { () throws -> Int32 in
                var peer = [CChar](repeating: 0, count: 18)
                let fd = sdl_rfcomm_accept(listener, &peer)
                guard fd >= 0 else { throw RawLinkError("accept on RFCOMM", code: errno) }
                return fd
            }
        }
        // The phone's RFCOMM refuses a channel while the last round's link on it is still
        // closing (seen once in five rounds): a moment later it takes it.
        for attempt in 1... {
            let unit: Int32
            do {
                unit = try await BlueZConnector(adapter: "hci0").connect(address: phone.address, channel: channel, timeout: .seconds(30))
            } catch {
                guard case .connectionRefused = error, attempt < 20 else { throw error }
                try await Task.sleep(for: .milliseconds(250))
                continue
            }
            return (try await accepted.value, unit)
        }
        fatalError("a range without end ended")
    }

    static func transports() async throws -> (app: any SDLTransport, unit: any SDLTransport) {
        let (app, unit) = try await connect()
        return (StreamSocketTransport(connectedDescriptor: app, description: "Bluetooth RFCOMM", kind: .bluetooth, readSize: 4096),
                StreamSocketTransport(connectedDescriptor: unit, description: "Bluetooth RFCOMM", kind: .bluetooth, readSize: 4096))
    }

    static func rawEnds() async throws -> (app: any RawEnd, unit: any RawEnd, close: @Sendable () -> Void) {
        let (app, unit) = try await connect()
        // The connector leaves its socket non-blocking (it connects with a time limit); the raw
        // ends block in their reads and writes.
        for fd in [app, unit] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        return (FileEnd(readFD: app, writeFD: app, largestWrite: 4096), FileEnd(readFD: unit, writeFD: unit, largestWrite: 4096),
                { close(app); close(unit) })
    }
}
