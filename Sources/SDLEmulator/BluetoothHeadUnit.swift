public import SmartDeviceLink

extension HeadUnitEmulator {
    /// Serves phones over Bluetooth the way sdl_core's Bluetooth adapter does: it is the
    /// RFCOMM client. Each round it takes the phones it was given (or, given none, the
    /// devices an inquiry finds), asks each one's SDP server for the SDL service, connects
    /// to the RFCOMM channel the record names and serves the link; a phone whose link ended
    /// is connected again on a later round. Runs until the task is cancelled.
    ///
    /// - Parameters:
    ///   - phones: the phones' addresses; nil looks for them by inquiry each round.
    ///   - connector: the Bluetooth seam (BlueZ on the default adapter unless told otherwise).
    ///   - interval: the pause between rounds.
    /// - Throws: a one-line `TransportError` when this machine has no Bluetooth, or the
    ///   adapter asked for does not exist; failures with one phone are events
    ///   (``EmulatorEvent/bluetoothDeviceFailed(device:reason:)``), said once until they change.
    public func serveBluetooth(phones: [String]?, connector: any RFCOMMConnector = BlueZConnector(),
                               interval: Duration = .seconds(2)) async throws(TransportError) {
        var links = BluetoothLinks()
        var lastInquiry: ContinuousClock.Instant?
        while !Task.isCancelled {
            if let phones {
                await connect(phones, links: &links, connector: connector)
            } else {
                // A phone whose link dropped is tried again at once, without an inquiry
                // (seconds long), as core reconnects a phone it knows.
                await connect(links.connections.keys.sorted(), links: &links, connector: connector)
                let anyLinked = links.connections.values.contains { isOpen(connection: $0) }
                let inquiryDue = lastInquiry.map { $0.duration(to: .now) > .seconds(30) } ?? true
                if !anyLinked || inquiryDue {
                    do {
                        let found = try await connector.discover(seconds: 4)
                        lastInquiry = .now
                        await connect(found, links: &links, connector: connector)
                    } catch {
                        // No Bluetooth at all, or no such adapter, is worth stopping for at once.
                        if lastInquiry == nil, case .unsupported = error { throw error }
                        if lastInquiry == nil, case .noDevice = error { throw error }
                        lastInquiry = .now
                        failed("inquiry", error.description, links: &links)
                    }
                }
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Connects to each of `targets` that has no open link and serves it.
    private func connect(_ targets: [String], links: inout BluetoothLinks, connector: any RFCOMMConnector) async {
        for address in targets where !Task.isCancelled {
            if let id = links.connections[address], isOpen(connection: id) { continue }
            let descriptor: Int32
            do {
                descriptor = try await connector.connect(address: address, channel: nil, timeout: .seconds(5))
            } catch {
                failed(address, error.description, links: &links)
                continue
            }
            links.lastFailure[address] = nil
            links.connections[address] = await serve(StreamSocketTransport(
                connectedDescriptor: descriptor, description: "Bluetooth RFCOMM \(address)", kind: .bluetooth, readSize: 4096))
        }
    }

    /// Says a failure with one device, once until it changes: a phone out of range is
    /// tried every round.
    private func failed(_ device: String, _ reason: String, links: inout BluetoothLinks) {
        guard links.lastFailure[device] != reason else { return }
        links.lastFailure[device] = reason
        emit(.bluetoothDeviceFailed(device: device, reason: reason))
    }
}

/// What the Bluetooth role remembers between rounds.
struct BluetoothLinks {
    /// Each phone's last connection number.
    var connections: [String: Int] = [:]
    /// The last failure said for each device.
    var lastFailure: [String: String] = [:]
}
