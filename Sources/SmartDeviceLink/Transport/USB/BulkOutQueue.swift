/// What a USB transport has to send on its bulk OUT endpoint: the sends in order, cut into
/// transfers of at most `maxLength` bytes, up to `limit` of them in flight at once.
///
/// Several transfers in flight keep the bus busy while the last one's completion travels
/// back through libusb's event thread; they are safe because transfers on one endpoint
/// complete in the order they were submitted (the host controller's queue). Small sends
/// queued behind one another go out together in one transfer, as a socket's writes do: a
/// video stream's frames, one USB request per frame, would each pay a whole request's trip.
/// A send is done when the device took its last byte. Not thread-safe: the transport holds
/// it under its lock.
struct BulkOutQueue<Waiter> {
    private struct Send {
        let id: Int
        let bytes: [UInt8]
        /// Bytes handed out in transfers so far.
        var submitted = 0
        /// Bytes the device took.
        var sent = 0
        let waiter: Waiter
    }

    /// A send's bytes in one transfer.
    private struct Piece {
        let send: Int
        let length: Int
    }

    /// What the oldest transfer's completion means.
    enum Completion {
        /// The sends the device took the last byte of (none while more is to come).
        case progress(finished: [Waiter])
        /// The device took less than the transfer held while later bytes were in flight
        /// behind it: the stream has a hole, and the link cannot go on.
        case broken
    }

    private var sends: [Send] = []
    /// Transfers in flight, oldest first, each as the pieces of sends it carries.
    private var inFlight: [[Piece]] = []
    private var nextID = 0
    /// Queued bytes the device has not taken yet.
    var pendingBytes: Int { sends.reduce(0) { $0 + $1.bytes.count - $1.sent } }

    var isEmpty: Bool { sends.isEmpty }
    var transfersInFlight: Int { inFlight.count }

    mutating func append(_ bytes: [UInt8], _ waiter: Waiter) {
        sends.append(Send(id: nextID, bytes: bytes, waiter: waiter))
        nextID += 1
    }

    /// The bytes of the next transfer, counted in flight from now on; nil when every queued
    /// byte is in flight already, or `limit` transfers are. A transfer holds one send's bytes
    /// as they are (no copy) unless small sends behind it fit too.
    mutating func nextTransfer(maxLength: Int, limit: Int) -> ArraySlice<UInt8>? {
        guard inFlight.count < limit, var index = sends.firstIndex(where: { $0.submitted < $0.bytes.count }) else { return nil }
        let room = max(1, maxLength)
        let first = take(from: index, upTo: room)
        var pieces = [Piece(send: sends[index].id, length: first.count)]
        index += 1
        guard first.count < room, index < sends.count else {
            inFlight.append(pieces)
            return first
        }
        var bytes = Array(first)
        bytes.reserveCapacity(min(room, sends[index...].reduce(first.count) { $0 + $1.bytes.count }))
        while index < sends.count, bytes.count < room {
            let piece = take(from: index, upTo: room - bytes.count)
            bytes.append(contentsOf: piece)
            pieces.append(Piece(send: sends[index].id, length: piece.count))
            index += 1
        }
        inFlight.append(pieces)
        return bytes[...]
    }

    /// Up to `count` of the send's bytes not handed out yet, now handed out.
    private mutating func take(from index: Int, upTo count: Int) -> ArraySlice<UInt8> {
        let start = sends[index].submitted
        let end = min(sends[index].bytes.count, start + count)
        sends[index].submitted = end
        return sends[index].bytes[start..<end]
    }

    /// The transfer `nextTransfer` just handed out could not be submitted: the sends in it
    /// fail, and their transfers already in flight will be ignored when they complete.
    mutating func dropNewestTransfer() -> [Waiter] {
        guard let pieces = inFlight.popLast() else { return [] }
        return pieces.compactMap { removeSend($0.send)?.waiter }
    }

    /// The oldest transfer in flight completed and the device took `taken` bytes of it.
    mutating func completeOldest(taking taken: Int) -> Completion {
        guard !inFlight.isEmpty else { return .progress(finished: []) }
        let pieces = inFlight.removeFirst()
        var left = taken
        for piece in pieces {
            let got = min(left, piece.length)
            left -= got
            guard let index = sends.firstIndex(where: { $0.id == piece.send }) else { continue }
            sends[index].sent += got
        }
        if taken < pieces.reduce(0, { $0 + $1.length }) {
            // Nothing behind it on the wire: what the device did not take goes again, next.
            // (A device that takes 4 KB a transfer; on a real kernel a bulk OUT ends short
            // only with an error.)
            guard inFlight.isEmpty else { return .broken }
            for index in sends.indices { sends[index].submitted = sends[index].sent }
        }
        var finished: [Waiter] = []
        while let first = sends.first, first.sent == first.bytes.count {
            finished.append(sends.removeFirst().waiter)
        }
        return .progress(finished: finished)
    }

    /// The oldest transfer in flight ended without the device taking it all (a timeout): the
    /// sends in it fail, each with how many of its bytes the device took and how many it had.
    mutating func failOldest(taking taken: Int) -> [(waiter: Waiter, sent: Int, total: Int)] {
        guard !inFlight.isEmpty else { return [] }
        var left = taken
        return inFlight.removeFirst().compactMap { piece in
            let got = min(left, piece.length)
            left -= got
            return removeSend(piece.send).map { ($0.waiter, $0.sent + got, $0.bytes.count) }
        }
    }

    /// Every send still queued, in order, and the queue emptied (the link is closing).
    mutating func removeAll() -> [Waiter] {
        defer { sends = []; inFlight = [] }
        return sends.map(\.waiter)
    }

    private mutating func removeSend(_ id: Int) -> Send? {
        sends.firstIndex(where: { $0.id == id }).map { sends.remove(at: $0) }
    }
}
