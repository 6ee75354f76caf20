import Foundation
import SmartDeviceLink
import Testing

/// Whether these tests run under `Tests/USB/fake_usb.py` (umockdev), and what it saw.
///
/// The harness sets `SDL_UMOCKDEV_SCENARIO` (and umockdev's `UMOCKDEV_DIR`); a plain
/// `swift test` has neither, and the umockdev tests are skipped.
enum UMockdevEnvironment {
    static var scenario: String? {
        let env = ProcessInfo.processInfo.environment
        guard env["UMOCKDEV_DIR"] != nil, let s = env["SDL_UMOCKDEV_SCENARIO"], !s.isEmpty else { return nil }
        return s
    }

    static var isActive: Bool { scenario != nil }

    /// `fake_usb.py --scenario devices`: the phone, the TDKs, the mouse...
    static var hasFakeDevices: Bool { scenario == "devices" }

    /// `--bridge HOST:PORT`, if given.
    static var bridge: (host: String, port: UInt16)? {
        guard let value = ProcessInfo.processInfo.environment["SDL_FAKE_USB_BRIDGE"],
              let address = try? HostPort(parsing: value) else { return nil }
        return (address.host, address.port)
    }

    /// Plugs in a TDK-LATE at bus 1 address `address` (fake_usb.py watches for the file).
    static func plugLateTDK(at address: Int) throws {
        let directory = try #require(ProcessInfo.processInfo.environment["SDL_FAKE_USB_PLUG_DIR"], "fake_usb.py sets SDL_FAKE_USB_PLUG_DIR")
        #expect(FileManager.default.createFile(atPath: directory + "/plug-\(address)", contents: nil))
    }

    /// What the fake devices recorded (one JSON object per line), e.g. the AOA strings.
    static func records(device: String) -> [[String: Any]] {
        guard let path = ProcessInfo.processInfo.environment["SDL_FAKE_USB_RECORD"],
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["device"] as? String == device }
    }
}

/// The error `body` threw, or nil.
func transportError(_ body: () async throws -> Void) async -> TransportError? {
    do {
        try await body()
        return nil
    } catch let error as TransportError {
        return error
    } catch {
        Issue.record("expected a TransportError, got \(error)")
        return nil
    }
}

/// Reads `incoming` until `count` bytes arrived, it ended, or `limit` passed.
func readIncoming(_ transport: USBTransport, count: Int, within limit: Duration) async -> (bytes: [UInt8], error: (any Error)?) {
    await withTaskGroup(of: ([UInt8], (any Error)?)?.self) { group in
        group.addTask {
            var bytes: [UInt8] = []
            do {
                for try await chunk in transport.incoming {
                    bytes += chunk
                    if bytes.count >= count { break }
                }
                return (bytes, nil)
            } catch {
                return (bytes, error)
            }
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? ([], TransportError.timedOut(operation: "test read", seconds: limit.seconds))
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
