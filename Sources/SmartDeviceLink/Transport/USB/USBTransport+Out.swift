/// Bulk OUT: sends queue in order (``BulkOutQueue``), are cut into transfers and go out with
/// several in flight.
extension USBTransport {
    /// Queues `bytes` and returns once the device accepted all of them.
    public func send(_ bytes: [UInt8]) async throws(TransportError) {
        guard !bytes.isEmpty else {
            if let error = state.withLock({ $0.phase == .open ? nil : $0.closeError }) { throw error }
            return
        }
        let result: Result<Void, TransportError> = await withCheckedContinuation { c in
            let queued: Bool = state.withLock { s in
                guard s.phase == .open else {
                    c.resume(returning: .failure(s.closeError))
                    return false
                }
                s.out.append(bytes, c)
                return true
            }
            if queued { submitOut() }
        }
        try result.get()
    }

    /// Submits transfers from the queue until the link's limit is in flight or nothing is left.
    private func submitOut() {
        var failed: [(SendWaiter, TransportError)] = []
        state.withLock { s in
            guard s.phase == .open, let link = s.link else { return }
            while let chunk = s.out.nextTransfer(maxLength: link.outSize, limit: link.outLimit) {
                do throws(USBError) {
                    let box = TransferBox()
                    let transfer = try link.handle.submitBulk(
                        endpoint: link.outEndpoint, data: chunk, length: chunk.count, timeout: options.sendTimeout
                    ) { [weak self] result in
                        self?.outCompleted(box, result)
                    }
                    box.id = ObjectIdentifier(transfer)
                    s.outTransfers[ObjectIdentifier(transfer)] = transfer
                    s.outstanding += 1
                } catch {
                    let failure = error.transportError("bulk OUT submit", on: link.handle.device)
                    failed += s.out.dropNewestTransfer().map { ($0, failure) }
                }
            }
        }
        for (c, error) in failed { c.resume(returning: .failure(error)) }
    }

    private func outCompleted(_ box: TransferBox, _ result: USBTransferResult) {
        var finished: [(SendWaiter, Result<Void, TransportError>)] = []
        var fatal: TransportError?
        state.withLock { s in
            if let id = box.id { s.outTransfers[id] = nil }
            guard s.phase == .open else { return }
            switch result.status {
            case .completed:
                switch s.out.completeOldest(taking: result.actualLength) {
                case .progress(let done): finished = done.map { ($0, .success(())) }
                case .broken:
                    fatal = .io(operation: "bulk OUT on \(s.label)", code: -1,
                                message: "the device took part of a transfer while later ones were in flight")
                }
            case .timedOut:
                finished = s.out.failOldest(taking: result.actualLength).map { c, sent, total in
                    (c, .failure(.timedOut(operation: "USB bulk OUT to \(s.label) (\(sent) of \(total) bytes sent)",
                                           seconds: options.sendTimeout?.seconds ?? 0)))
                }
            case .cancelled:
                break
            case .noDevice:
                fatal = .closed("device unplugged")
            case .stall, .error, .overflow:
                fatal = .io(operation: "bulk OUT on \(s.label)", code: -1, message: "transfer ended with \(result.status)")
            }
        }
        for (c, r) in finished { c.resume(returning: r) }
        if let fatal { fail(fatal) } else { submitOut() }
        transferDone()
    }
}
