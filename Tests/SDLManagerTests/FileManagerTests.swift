import Foundation
import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("SDLFileManager against the emulator", .serialized)
struct FileManagerTests {
    func storage() -> String {
        NSTemporaryDirectory() + "sdl-files-\(UUID().uuidString)"
    }

    func emulator(storage: String, quota: Int = 100 << 20) -> HeadUnitEmulator {
        var configuration = EmulatorConfiguration.standard
        configuration.storageDirectory = storage
        configuration.storageQuota = quota
        return HeadUnitEmulator(configuration: configuration)
    }

    @Test("a file streamed from disk arrives identical, in chunks, with progress; then listed and deleted")
    func uploadFromDisk() async throws {
        let directory = storage()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = emulator(storage: directory)
        let manager = SDLManager(configuration: configuration(headUnit, appID: "files-1"))
        try await manager.start()
        let local = NSTemporaryDirectory() + "upload-\(UUID().uuidString).bin"
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(content).write(to: URL(fileURLWithPath: local))
        defer { try? FileManager.default.removeItem(atPath: local) }
        let files = manager.fileManager
        await files.setChunkSize(64 * 1024)
        let (progress, task) = Recorder<Double>.recording(AsyncStream { continuation in
            Task {
                try await files.upload(SDLFile(name: "big.bin", source: .path(local), fileType: .binary)) { continuation.yield($0) }
                continuation.finish()
            }
        })
        await progress.waitFor(5)
        #expect(await progress.values.count == 5, "300,000 bytes in 64 KiB chunks is 5 PutFiles")
        #expect(await progress.values.last == 1)
        let stored = try Data(contentsOf: URL(fileURLWithPath: directory + "/files-1/big.bin"))
        #expect(Array(stored) == content)
        #expect(await files.hasUploaded("big.bin"))
        #expect(await files.bytesAvailable.map { $0 < 100 << 20 } == true)
        await files.forgetRemoteFiles()
        try await files.refresh()
        #expect(await files.hasUploaded("big.bin"), "ListFiles shows it")
        try await files.delete("big.bin")
        #expect(await !files.hasUploaded("big.bin"))
        await #expect(throws: FileUploadError.self) { try await files.delete("big.bin") }  // core: REJECTED
        await manager.stop()
        task.cancel()
    }

    @Test("the quota is a typed error with the head unit's result (OUT_OF_MEMORY)")
    func quota() async throws {
        let directory = storage()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = emulator(storage: directory, quota: 1000)
        let manager = SDLManager(configuration: configuration(headUnit, appID: "files-2"))
        try await manager.start()
        await #expect {
            try await manager.fileManager.upload(SDLFile(name: "x.bin", source: .data([UInt8](repeating: 1, count: 2000)), fileType: .binary))
        } throws: { error in
            "\(error)".hasPrefix("the head unit refused x.bin: OUT_OF_MEMORY")
        }
        await manager.stop()
    }

    @Test("a link that drops mid-upload: the upload waits for the reconnect, resumes, and the head unit's file is identical",
          arguments: [0.05, 0.29, 0.51, 0.85])
    func resumesAfterReconnect(cutAt: Double) async throws {
        let directory = storage()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = emulator(storage: directory)
        let manager = SDLManager(configuration: configuration(headUnit, appID: "files-3"))
        try await manager.start()
        let files = manager.fileManager
        await files.setChunkSize(10_000)
        let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let file = SDLFile(name: "resume.bin", source: .data(content), fileType: .binary, isPersistent: true)
        let (states, statesTask) = Recorder.recording(await manager.states())
        let dropped = Locked(false)
        // One call: the car drops the link once the given share is acknowledged.
        try await files.upload(file) { fraction in
            guard fraction >= cutAt, !dropped.withLock({ $0 }) else { return }
            dropped.withLock { $0 = true }
            Task { try? await headUnit.dropTransport(appID: "files-3") }
        }
        // The drop is a task of its own: near the end the last chunk may beat it.
        #expect(await states.waitUntil { $0.contains(.reconnecting(attempt: 1)) }, "the link did drop")
        let stored = try Data(contentsOf: URL(fileURLWithPath: directory + "/files-3/resume.bin"))
        #expect(stored.count == content.count)
        #expect(Array(stored) == content)
        #expect(await files.hasUploaded("resume.bin"))
        await manager.stop()
        statesTask.cancel()
    }

    @Test("when reconnecting gives up, the upload fails saying so, with what was acknowledged")
    func uploadFailsWhenReconnectGivesUp() async throws {
        let directory = storage()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = emulator(storage: directory)
        let manager = SDLManager(configuration: configuration(headUnit, appID: "files-4") {
            $0.reconnect = ReconnectPolicy(initialDelay: .milliseconds(20), maximumAttempts: 0)
        })
        try await manager.start()
        let files = manager.fileManager
        await files.setChunkSize(10_000)
        let content = [UInt8](repeating: 3, count: 100_000)
        let dropped = Locked(false)
        await #expect {
            try await files.upload(SDLFile(name: "lost.bin", source: .data(content), fileType: .binary)) { fraction in
                guard fraction >= 0.3, !dropped.withLock({ $0 }) else { return }
                dropped.withLock { $0 = true }
                Task { try? await headUnit.dropTransport(appID: "files-4") }
            }
        } throws: { error in
            guard case FileUploadError.interrupted(let name, let acknowledged, let reason) = error else { return false }
            let text = "\(error)"
            return name == "lost.bin" && acknowledged >= 30_000 && reason.contains("reconnecting is off")
                && text.components(separatedBy: "connection lost").count <= 2
        }
        await manager.stop()
    }

    @Test("artwork is named by its content; already on the head unit counts as uploaded")
    func artwork() async throws {
        let directory = storage()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let headUnit = emulator(storage: directory)
        let manager = SDLManager(configuration: configuration(headUnit, appID: "files-4"))
        try await manager.start()
        let icon = SDLFile.artwork([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        #expect(icon == SDLFile.artwork([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]))
        try await manager.fileManager.upload(icon)
        try await manager.fileManager.upload(icon)  // no second PutFile needed
        #expect(await manager.fileManager.hasUploaded(icon.name))
        await manager.stop()
    }
}

@Suite("SDLManager sets the app icon")
struct AppIconTests {
    @Test("the configured icon is uploaded and set once registered; several files deleted at once")
    func iconAndBatchDelete() async throws {
        let directory = NSTemporaryDirectory() + "sdl-icon-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var emulatorConfiguration = EmulatorConfiguration.standard
        emulatorConfiguration.storageDirectory = directory
        let headUnit = HeadUnitEmulator(configuration: emulatorConfiguration)
        let icon = SDLFile.artwork([0x89, 0x50, 0x4E, 0x47, 9, 9, 9])
        let manager = SDLManager(configuration: configuration(headUnit, appID: "icon-1") { $0.icon = icon })
        try await manager.start()
        #expect(await manager.fileManager.hasUploaded(icon.name))
        #expect(FileManager.default.fileExists(atPath: directory + "/icon-1/" + icon.name))
        let extra = SDLFile(name: "extra.bin", source: .data([1, 2, 3]), fileType: .binary)
        let uploads = await manager.fileManager.upload([extra], attempts: 2)
        #expect(uploads["extra.bin"].map { $0 == nil } == true)
        let deletions = await manager.fileManager.delete(["extra.bin", "missing.bin"])
        #expect(deletions["extra.bin"].map { $0 == nil } == true)
        #expect(deletions["missing.bin"].map { $0 != nil } == true, "core answers REJECTED for an unknown file")
        await manager.stop()
    }
}
