import Foundation
import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("Vehicle data and audio pass-thru against the emulator", .serialized)
struct VehicleDataManagerTests {
    @Test("one-time read: typed values; an unavailable item is listed as missing; unknown names are refused with a hint")
    func get() async throws {
        let rig = try await ScreenRig.start("vd-get")
        let vehicle = VehicleDataManager(channel: rig.channel)
        let reading = try await vehicle.get([.speed, .rpm, .gps])
        #expect(reading.values.speed == 0.0 && reading.values.rpm == 800)
        #expect(reading.values.gps?.latitudeDegrees == 52.52)
        #expect(reading.missing.isEmpty && reading.resultCode == .success)

        try await rig.emulator.setVehicleDataUnavailable("rpm")
        let partial = try await vehicle.get([.speed, .rpm])
        #expect(partial.missing == [.rpm] && partial.values.speed == 0.0)
        #expect(partial.resultCode == .dataNotAvailable)
        await #expect {
            _ = try await vehicle.get([.rpm])
        } throws: { error in
            guard case ManagerError.refused("GetVehicleData", .vehicleDataNotAvailable, _) = error else { return false }
            return true
        }
        let mark = await rig.channel.sent.count
        await #expect(throws: ManagerError.invalid("\"sped\" is not a vehicle data item of the spec; did you mean \"speed\"?")) {
            _ = try await vehicle.get(["sped"])
        }
        #expect(await rig.channel.names(since: mark).isEmpty)
        await rig.stop()
    }

    @Test("subscriptions: results per item, values on the stream, nothing resent, unsubscribe")
    func subscribe() async throws {
        let rig = try await ScreenRig.start("vd-sub")
        let vehicle = VehicleDataManager(channel: rig.channel)
        try await rig.emulator.setVehicleDataUnavailable("fuelLevel")
        let speeds = await vehicle.values(of: \.speed)
        let results = try await vehicle.subscribe([.speed, .rpm, .fuelLevel])
        #expect(results == [.speed: .success, .rpm: .success, .fuelLevel: .vehicleDataNotAvailable])
        #expect(await vehicle.subscribed == [.speed, .rpm])
        #expect(await rig.app().vehicleSubscriptions == ["speed", "rpm"])

        try await rig.emulator.setVehicleData("speed", 88.5)
        var iterator = speeds.makeAsyncIterator()
        #expect(await iterator.next() == 88.5)

        let again = try await vehicle.subscribe([.speed])
        #expect(again == [.speed: .success])
        #expect(await rig.channel.requests("SubscribeVehicleData").count == 1, "an item already subscribed is not sent again")
        await #expect(throws: ManagerError.invalid("vin can be read with get but not subscribed")) {
            _ = try await vehicle.subscribe([.vin])
        }

        let removed = try await vehicle.unsubscribe([.speed, .fuelLevel])
        #expect(removed == [.speed: .success], "fuelLevel was never subscribed, so it is not sent")
        #expect(await rig.app().vehicleSubscriptions == ["rpm"])
        await rig.stop()
    }

    func audioRig(_ appID: String) async throws -> (ScreenRig, AudioPassThruManager) {
        let rig = try await ScreenRig.start(appID)
        return (rig, AudioPassThruManager(channel: rig.channel))
    }

    @Test("a recording to its maximum duration: the PCM streams in and the WAV file holds every byte")
    func recordToWAV() async throws {
        let (rig, audio) = try await audioRig("apt-full")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apt-\(UUID()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = await audio.start(AudioPassThruOptions(prompt: "Speak now", text1: "Recording", maxDuration: .milliseconds(2500)))
        let writer = try WAVWriter(path: path, samplingRate: ._16khz, bitsPerSample: ._16Bit)
        var chunks = 0
        for await pcm in recording.chunks {
            try writer.write(pcm)
            chunks += 1
        }
        try writer.finish()
        let result = try await recording.result
        #expect(result.outcome == .completed && result.resultCode == .success)
        #expect(result.bytes == 64_000, "the 2 full seconds before the end: 16 kHz 16-bit mono")
        #expect(chunks == 2)
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(file.count == 44 + 64_000)
        #expect(Array(file[0..<4]) == Array("RIFF".utf8) && Array(file[8..<12]) == Array("WAVE".utf8))
        func le32(_ at: Int) -> Int { Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16 | Int(file[at + 3]) << 24 }
        #expect(le32(4) == 36 + 64_000 && le32(40) == 64_000 && le32(24) == 16_000)
        await rig.stop()
    }

    @Test("the user cancels: ABORTED surfaced as cancelled and the chunk stream ends; the app ends early: SUCCESS")
    func cancelAndFinish() async throws {
        let (rig, audio) = try await audioRig("apt-cancel")
        let cancelled = await audio.start(AudioPassThruOptions(maxDuration: .seconds(60)))
        var iterator = cancelled.chunks.makeAsyncIterator()
        #expect(await iterator.next() != nil, "recording runs")
        try await rig.emulator.cancelAudioPassThru()
        while await iterator.next() != nil {}
        let result = try await cancelled.result
        #expect(result.outcome == .cancelled && result.resultCode == .aborted)

        let ended = await audio.start(AudioPassThruOptions(maxDuration: .seconds(60)))
        var endedChunks = ended.chunks.makeAsyncIterator()
        #expect(await endedChunks.next() != nil)
        try await audio.finish()
        #expect(try await ended.result.outcome == .completed)
        await rig.stop()
    }

    @Test("the head unit refuses a second recording while one runs, and the first goes on")
    func refusals() async throws {
        let (rig, audio) = try await audioRig("apt-refused")
        let first = await audio.start(AudioPassThruOptions(maxDuration: .seconds(60)))
        var chunks = first.chunks.makeAsyncIterator()
        #expect(await chunks.next() != nil)
        await #expect {
            _ = try await audio.start(AudioPassThruOptions()).result
        } throws: { error in
            guard case ManagerError.refused("PerformAudioPassThru", .rejected, _) = error else { return false }
            return true
        }
        #expect(await chunks.next() != nil, "the first recording goes on")
        try await audio.finish()
        #expect(try await first.result.outcome == .completed)
        await rig.stop()
    }
}
