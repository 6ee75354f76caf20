public import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension StreamingMediaManager {
    /// Streams H.264 Annex-B from a pipe or any readable handle (an encoder's stdout, a
    /// FIFO): access units are sent as they complete, no faster than `fps`, until the
    /// writer closes its end. Reading waits while eight 64 KiB reads are not yet sent, so a
    /// slow link slows the writer down (the pipe fills) instead of growing memory.
    public func streamVideo(from handle: FileHandle, fps: Double = 30) async throws(ManagerError) -> VideoStreamReport {
        guard fps > 0 else { throw .invalid("fps must be above 0") }
        let room = DispatchSemaphore(value: 8)
        let chunks = AsyncStream<[UInt8]> { continuation in
            Thread.detachNewThread {
                while true {
                    room.wait()
                    let data = handle.readData(ofLength: 65_536)
                    if data.isEmpty { break }
                    continuation.yield([UInt8](data))
                }
                continuation.finish()
            }
        }
        // libdispatch traps when a semaphore goes with a value below its start: give back the
        // read that met the end (or, after an error, let the reader run to the end).
        defer { for _ in 0...8 { room.signal() } }
        var reader = H264.AccessUnitReader()
        var report = VideoStreamReport()
        let interval = Duration.seconds(1 / fps)
        let start = clock.now
        for await chunk in chunks {
            for unit in reader.push(chunk) {
                let time = interval * (report.framesSent + report.framesDropped)
                try await sendPaced(unit, at: time, from: start, into: &report)
            }
            room.signal()
        }
        if let last = reader.finish() {
            let time = interval * (report.framesSent + report.framesDropped)
            try await sendPaced(last, at: time, from: start, into: &report)
        }
        return report
    }

    /// Sends an access unit at its time from `start` (at once when it is late), counting it.
    func sendPaced(_ unit: [UInt8], at time: Duration, from start: ContinuousClock.Instant,
                   into report: inout VideoStreamReport) async throws(ManagerError) {
        if clock.now < start + time { try? await clock.sleep(until: start + time) }
        if try await sendVideo(unit, at: time) {
            report.framesSent += 1
            report.bytesSent += unit.count
        } else {
            report.framesDropped += 1
        }
    }

    /// Whether `path` is a pipe (a FIFO) rather than a file read to its end.
    static func isPipe(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
    }
}
