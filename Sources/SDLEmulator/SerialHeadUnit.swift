public import SmartDeviceLink

/// A head unit on a serial line (`sdl-run emulate --serial`): the port is always there, so it
/// is served as long as it opens, and opened again when it went down.
extension HeadUnitEmulator {
    /// Opens the serial port `options` names and serves it (throwing when it cannot be
    /// opened), then keeps it served: when the link goes down (the device unplugged, a pty's
    /// other end closed, the carrier dropped) the port is opened again every `interval`. With
    /// carrier detection, no carrier at first is no error: the port is served once it comes.
    /// Cancel the returned task to stop.
    public func serveSerial(_ options: SerialPortOptions, interval: Duration = .milliseconds(500)) async throws(TransportError) -> Task<Void, Never> {
        let first = SerialTransport(options)
        var served: Int?, said: String?
        do {
            try await first.open()
            served = await serve(first, as: .serial)
        } catch .noCarrier(let path) {
            let reason = TransportError.noCarrier(path: path).description
            emit(.connectionClosed(connection: 0, reason: reason))
            said = reason
        }
        return Task { [served, said] in await self.keepServing(options, connection: served, interval: interval, lastFailure: said) }
    }

    /// `lastFailure`: what was said already, not to be said again in the same outage.
    private func keepServing(_ options: SerialPortOptions, connection: Int?, interval: Duration, lastFailure: String?) async {
        var connection = connection
        var lastFailure = lastFailure
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
                // The port named once: most errors name it themselves.
                let reason = error.description.contains(options.path) ? error.description : "\(options.path): \(error)"
                if lastFailure != error.description { emit(.connectionClosed(connection: connection ?? 0, reason: reason)) }
                lastFailure = error.description
            }
        }
    }
}
