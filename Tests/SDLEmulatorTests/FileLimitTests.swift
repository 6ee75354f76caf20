@testable import SDLEmulator
import Foundation
import SmartDeviceLink
import Testing

@Suite("File requests in HMI level NONE; the storage folder; the configuration file")
struct FileLimitTests {
    /// core's smartDeviceLink.ini [FILESYSTEM RESTRICTIONS]: PutFileRequest, DeleteFileRequest and
    /// ListFilesRequest = 5; the checks are in PutFileRequest, DeleteFileRequest and
    /// ListFilesRequest::Run, the counts grow in every level (core-checked: the sixth DeleteFile
    /// in NONE is REJECTED).
    @Test("in NONE the sixth new file, listing and deletion are REJECTED; the counts run in every level; FULL has no limit")
    func noneLimits() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        _ = try await app.register()
        func put(_ name: String) async throws -> RPCEnvelope {
            try await app.request("PutFile", ["syncFileName": .string(name), "fileType": "BINARY"], bulkData: [1, 2, 3])
        }
        for name in ["a", "b", "c", "d", "a", "e"] {
            let answer = try await put(name)
            #expect(answer.resultCode == "SUCCESS", "writing a again adds none")
            #expect(answer["info"] == "File was downloaded", "core's info on every stored PutFile")
        }
        #expect(try await put("a").resultCode == "REJECTED", "core checks the count before it looks at the file")
        let sixth = try await put("f")
        #expect(sixth.resultCode == "REJECTED" && sixth["info"] == "Too many requests from the app with HMILevel HMI_NONE")
        #expect(sixth["spaceAvailable"] != nil)
        for _ in 1...5 { #expect(try await app.request("ListFiles").resultCode == "SUCCESS") }
        #expect(try await app.request("ListFiles").resultCode == "REJECTED")

        try await headUnit.activateApp("app-1")
        #expect(try await put("f").resultCode == "SUCCESS", "no limit in FULL")
        #expect(try await app.request("ListFiles").resultCode == "SUCCESS")
        for name in ["a", "b", "c", "d", "e"] {
            #expect(try await app.request("DeleteFile", ["syncFileName": .string(name)]).resultCode == "SUCCESS")
        }
        try await headUnit.exitApp("app-1")
        let refused = try await app.request("DeleteFile", ["syncFileName": "f"])
        #expect(refused.resultCode == "REJECTED" && refused["info"] == nil, "five deletions in FULL count in NONE too")
        #expect(await headUnit.snapshot().apps[0].files == ["f"])
        await headUnit.stop()
    }

    @Test("a PutFile without data is INVALID_DATA in core's words, stores nothing, and SetAppIcon of that name fails")
    func putFileWithoutData() async throws {
        let headUnit = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await TestApp.connect(headUnit)
        _ = try await app.register()
        let empty = try await app.request("PutFile", ["syncFileName": "icon.png", "fileType": "GRAPHIC_PNG"])
        #expect(empty.resultCode == "INVALID_DATA" && empty["info"] == "Binary data empty", "\(empty.parameters)")
        #expect(await headUnit.snapshot().apps[0].files.isEmpty)
        #expect(try await app.request("SetAppIcon", ["syncFileName": "icon.png"]).resultCode == "INVALID_DATA")
        await headUnit.stop()
    }

    @Test("the limits come from the configuration, as core's ini")
    func configuredLimits() throws {
        let configuration = try EmulatorConfiguration(json: ["storage": ["inNone": ["putFile": 1, "listFiles": 0]]])
        #expect(configuration.inNoneLimits == FileRequestCounts(putFile: 1, deleteFile: 5, listFiles: 0))
        #expect(throws: EmulatorConfigurationError.self) { try EmulatorConfiguration(json: ["storage": ["inNone": ["putFiles": 1]]]) }
    }

    @Test("a storage folder the emulator made goes when it stops; a configured one stays")
    func storageCleanup() async throws {
        let own = HeadUnitEmulator(configuration: fastConfiguration())
        let app = try await activeApp(own)
        _ = try await app.request("PutFile", ["syncFileName": "x.bin", "fileType": "BINARY"], bulkData: [1])
        #expect(FileManager.default.fileExists(atPath: own.storageRoot))
        await own.stop()
        #expect(!FileManager.default.fileExists(atPath: own.storageRoot))

        let directory = NSTemporaryDirectory() + "sdl-emulator-kept-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kept = HeadUnitEmulator(configuration: fastConfiguration { $0.storageDirectory = directory })
        let other = try await activeApp(kept)
        _ = try await other.request("PutFile", ["syncFileName": "x.bin", "fileType": "BINARY", "persistentFile": true], bulkData: [1])
        await kept.stop()
        #expect(FileManager.default.fileExists(atPath: directory))
    }

    @Test("the example configuration loads, and the schema describes exactly the keys the loader takes")
    func exampleConfiguration() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/emulator").standardized
        let configuration = try EmulatorConfiguration.load(path: folder.appendingPathComponent("hu.json").path)
        #expect(configuration.systemHardwareVersion == "bench-hw 1" && configuration.vehicleTimeline.count == 2)
        let schema = try JSONValue.parse(Array(EmulatorConfigurationSchema.text.utf8))
        let keys = Set(schema["properties"]?.objectValue?.keys.map { $0 } ?? [])
        #expect(keys == Set(EmulatorConfiguration.topLevelKeys + ["$schema"]))
    }
}
