public import SmartDeviceLink

/// A head unit on a serial line (`sdl-run emulate --serial`): the port is always there, so it
/// is served as long as it opens, and opened again when it went down.
extension HeadUnitEmulator {
    /// Opens the serial port `options` names and serves it (throwing when it cannot be
    /// opened), then keeps it served: when the link goes down (the device unplugged, a pty's
    /// other end closed) the port is opened again every `interval`. Cancel the returned task to stop.
    public func serveSerial(_ options: SerialPortOptions, interval: Duration = .milliseconds(500)) async throws(TransportError) -> Task<Void, Never> {
        let first = SerialTransport(options)
        try await first.open()
        let served = await serve(first, as: .serial)
        return Task { await self.keepServing(options, connection: served, interval: interval) }
    }

    private func keepServing(_ options: SerialPortOptions, connection: Int?, interval: Duration) async {
        var connection = connection
        var lastFailure: String?
        while !Task.isCancelled && !stopped {
            do { try await Task.sleep(for: interval) } catch { return }
            if let id = connection, isOpen(connection: id) { continue }
            let link = SerialTransport(options)
            do {
                try await link.open()
                connection = await serve(link, as: .serial)
                lastFailure = nil
            } catch {
                // Said once per outage, not at every try.
                if lastFailure != error.description { emit(.connectionClosed(connection: connection ?? 0, reason: "\(options.path): \(error)")) }
                lastFailure = error.description
            }
        }
    }
}
