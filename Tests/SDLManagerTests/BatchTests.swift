import SDLEmulator
import SmartDeviceLink
import Testing

@Suite("Batch sending")
struct BatchTests {
    func commands(_ ids: [Int]) -> [AddCommand] {
        ids.map { AddCommand(cmdID: $0, menuParams: MenuParams(menuName: "Item \($0)")) }
    }

    @Test("concurrently: every request gets its own result, in order, failures included")
    func concurrent() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "batch-1"))
        try await manager.start()
        try await emulator.activateApp("batch-1")
        _ = await manager.firstNonNoneHMILevel()
        // 3 is sent twice: exactly one of the two gets INVALID_ID (core: duplicate cmdID).
        let results = await manager.sendConcurrently(commands([1, 2, 3, 3, 5]))
        #expect(results.map(\.index) == [0, 1, 2, 3, 4])
        #expect(results.filter(\.succeeded).count == 4)
        let codes = results.compactMap { try? $0.outcome.get().resultCode }
        #expect(codes.filter { $0 == .invalidId }.count == 1)
        await manager.stop()
    }

    @Test("sequentially: progress after each, stop on the first failure when asked, or by the progress callback")
    func sequential() async throws {
        let emulator = HeadUnitEmulator()
        let manager = SDLManager(configuration: configuration(emulator, appID: "batch-2"))
        try await manager.start()
        try await emulator.activateApp("batch-2")
        _ = await manager.firstNonNoneHMILevel()
        let seen = Recorder<Int>()
        let all = await manager.sendSequentially(commands([10, 11, 10, 12]), stopOnFailure: true) { done, _ in
            Task { await seen.add(done) }
            return true
        }
        #expect(all.count == 3, "stopped at the duplicate")
        #expect(all.last?.succeeded == false)
        await seen.waitFor(3)
        #expect(await seen.values.sorted() == [1, 2, 3])
        let cancelled = await manager.sendSequentially(commands([20, 21, 22])) { done, _ in done < 2 }
        #expect(cancelled.count == 2, "the progress callback stopped it after two")
        await manager.stop()
    }
}
