import Foundation
import SDLEmulator
@testable import SmartDeviceLink
import Testing

@Suite("Lock screen: sdl_ios's status, the display modes and dismissal, and the head unit's icon")
struct LockScreenTests {
    /// sdl_ios's SDLLockScreenStatusManager, written out as a table rather than computed:
    /// (HMI level, user selected, driver distraction: nil none yet / true / false) → status.
    static let truthTable: [(HMILevel, Bool, Bool?, LockScreenStatus)] = [
        (.none, false, nil, .off), (.none, false, true, .off), (.none, false, false, .off),
        (.none, true, nil, .off), (.none, true, true, .off), (.none, true, false, .off),
        (.background, false, nil, .off), (.background, false, true, .off), (.background, false, false, .off),
        (.background, true, nil, .required), (.background, true, true, .required), (.background, true, false, .optional),
        (.limited, false, nil, .required), (.limited, false, true, .required), (.limited, false, false, .optional),
        (.limited, true, nil, .required), (.limited, true, true, .required), (.limited, true, false, .optional),
        (.full, false, nil, .required), (.full, false, true, .required), (.full, false, false, .optional),
        (.full, true, nil, .required), (.full, true, true, .required), (.full, true, false, .optional),
    ]

    @Test("every combination of HMI level, user choice and distraction gives sdl_ios's status")
    func truthTableHolds() {
        #expect(Self.truthTable.count == 4 * 2 * 3)
        for (level, selected, distracted, expected) in Self.truthTable {
            #expect(LockScreenStatus.of(hmiLevel: level, userSelected: selected, driverDistracted: distracted) == expected,
                    "\(level.rawValue), selected \(selected), distracted \(String(describing: distracted))")
        }
    }

    static func distraction(_ on: Bool, dismissible: Bool? = nil, warning: String? = nil) -> OnDriverDistraction {
        var notification = OnDriverDistraction(state: on ? .ddOn : .ddOff)
        notification.lockScreenDismissalEnabled = dismissible
        notification.lockScreenDismissalWarning = warning
        return notification
    }

    @Test("the user's choice lasts from FULL or LIMITED until NONE: BACKGROUND after FULL still locks, after NONE does not")
    func userSelection() async {
        let manager = LockScreenManager(configuration: .disabled)
        await manager.registered()
        await manager.update(Self.distraction(true))
        await manager.update(hmiLevel: .background)
        #expect(await manager.state.status == .off, "never chosen")
        await manager.update(hmiLevel: .full)
        await manager.update(hmiLevel: .background)
        var state = await manager.state
        #expect(state.status == .required && state.userSelected)
        await manager.update(hmiLevel: .none)
        await manager.update(hmiLevel: .background)
        state = await manager.state
        #expect(state.status == .off && !state.userSelected)
    }

    @Test("the display modes: shown while REQUIRED, also OPTIONAL, always, never")
    func displayModes() async {
        func shown(_ mode: LockScreenConfiguration.DisplayMode, distracted: Bool) async -> Bool {
            let manager = LockScreenManager(configuration: LockScreenConfiguration(displayMode: mode, fetchIcon: false))
            await manager.registered()
            await manager.update(hmiLevel: .full)
            await manager.update(Self.distraction(distracted))
            return await manager.state.isShown
        }
        #expect(await shown(.requiredOnly, distracted: true))
        #expect(await shown(.requiredOnly, distracted: false) == false)
        #expect(await shown(.optionalOrRequired, distracted: true))
        #expect(await shown(.optionalOrRequired, distracted: false))
        #expect(await shown(.always, distracted: false))
        #expect(await shown(.never, distracted: true) == false)
        let always = LockScreenManager(configuration: .always)
        #expect(await always.state.isShown == false, "not before the app is on a head unit")
    }

    @Test("dismissal: only where the head unit and the configuration allow it; it holds until a distraction may not be dismissed")
    func dismissal() async {
        let manager = LockScreenManager(configuration: LockScreenConfiguration(fetchIcon: false))
        await manager.registered()
        await manager.update(hmiLevel: .full)
        await manager.update(Self.distraction(true, dismissible: false))
        #expect(await manager.dismiss() == false, "the head unit does not allow it")
        await manager.update(Self.distraction(true, dismissible: true, warning: "Not the driver?"))
        let state = await manager.state
        #expect(state.isShown && state.isDismissible && state.dismissalWarning == "Not the driver?")
        #expect(await manager.dismiss() == true)
        let dismissed = await manager.state
        #expect(dismissed.isShown == false && dismissed.status == .required, "dismissed, still required")
        await manager.update(Self.distraction(true, dismissible: true, warning: "Not the driver?"))
        #expect(await manager.state.isShown == false, "a dismissal holds while dismissal is allowed")
        await manager.update(Self.distraction(true, dismissible: false))
        #expect(await manager.state.isShown == true, "a distraction that may not be dismissed brings it back")

        let strict = LockScreenManager(configuration: LockScreenConfiguration(enableDismissGesture: false, fetchIcon: false))
        await strict.registered()
        await strict.update(hmiLevel: .full)
        await strict.update(Self.distraction(true, dismissible: true, warning: "w"))
        let strictState = await strict.state
        #expect(strictState.isDismissible == false && strictState.dismissalWarning == nil)
        #expect(await strict.dismiss() == false)
    }

    @Test("the states stream starts with the current state and sends each change once; a lost link is OFF")
    func stream() async {
        let manager = LockScreenManager(configuration: LockScreenConfiguration(fetchIcon: false))
        var states = await manager.states().makeAsyncIterator()
        #expect(await states.next()?.status == .off)
        await manager.registered()
        await manager.update(hmiLevel: .full)
        #expect(await states.next()?.status == .required, "no distraction known yet counts as distracted")
        await manager.update(Self.distraction(false))
        #expect(await states.next()?.status == .optional)
        await manager.update(hmiLevel: .full)  // no change, nothing sent
        await manager.disconnected()
        let last = await states.next()
        #expect(last?.status == .off && last?.userSelected == false && last?.driverDistracted == nil)
    }

    // MARK: - The icon

    static func fetch(_ url: String, timeout: Duration = .seconds(5), limit: Int = 1 << 20) async -> LockScreenIconEvent {
        let manager = LockScreenManager(configuration: LockScreenConfiguration(iconTimeout: timeout, iconSizeLimit: limit))
        var icons = await manager.icons().makeAsyncIterator()
        await manager.iconOffered(at: url)
        return await icons.next() ?? .failed(url: url, reason: "no outcome")
    }

    @Test("the icon is fetched over HTTP with its bytes and type; a server that names no type is read from the bytes")
    func iconFetched() async throws {
        let server = try IconServer()
        #expect(await Self.fetch(server.url("/icon.png")) == .fetched(LockScreenIcon(url: server.url("/icon.png"), bytes: IconServer.png, mimeType: "image/png")))
        guard case .fetched(let untyped) = await Self.fetch(server.url("/untyped")) else { Issue.record("untyped icon not fetched"); return }
        #expect(untyped.mimeType == "image/png")
    }

    @Test("a 404, a huge body, a slow server, a page that is no image and a file URL are each a one-line failure",
          arguments: [("/missing", "HTTP 404"), ("/huge", "larger than the 65536-byte limit"), ("/slow", "no complete answer in time"),
                      ("/page", "is not an image (text/html"), ("file:///etc/passwd", "is not an http(s) URL")])
    func iconFailures(path: String, reason: String) async throws {
        let server = try IconServer()
        let url = path.hasPrefix("/") ? server.url(path) : path
        let outcome = await Self.fetch(url, timeout: .seconds(1), limit: 65536)
        guard case .failed(let failedURL, let why) = outcome else { Issue.record("\(path) was fetched"); return }
        #expect(failedURL == url)
        #expect(why.contains(reason), "\(why)")
        #expect(!why.contains("\n"))
    }

    @Test("a fetch cancelled at any moment, even as its answer arrives, ends once: the icon or a failure, never a crash",
          .timeLimit(.minutes(1)))
    func cancelledAnyTime() async throws {
        let server = try IconServer()
        let url = try #require(URL(string: server.url("/icon.png")))
        for round in 0..<400 {
            let fetch = Task { try await HTTPLockScreenIconFetcher().get(url, timeout: .seconds(5), limit: 65536) }
            // From at once to about the time an answer takes on loopback, so that some cancels
            // meet the answer on its way in.
            try await Task.sleep(for: .microseconds(round % 40 * 50))
            fetch.cancel()
            switch await fetch.result {
            case .success(let answer): #expect(answer.status == 200 && answer.body == IconServer.png)
            case .failure(let error): #expect(!"\(error)".contains("\n"))
            }
        }
    }

    @Test("through SDLManager: the emulator's LOCK_SCREEN_ICON_URL is fetched, and its driver steps move the status")
    func throughTheManager() async throws {
        let server = try IconServer()
        var headUnitConfiguration = EmulatorConfiguration.standard
        headUnitConfiguration.lockScreen.iconURL = server.url("/icon.png")
        let emulator = HeadUnitEmulator(configuration: headUnitConfiguration)
        let manager = SDLManager(configuration: configuration(emulator, appID: "lock-1") { $0.lockScreen = .enabled })
        var icons = await manager.lockScreenManager.icons().makeAsyncIterator()
        try await manager.start()
        guard case .fetched(let icon)? = await icons.next() else { Issue.record("no icon"); return }
        #expect(icon.bytes == IconServer.png)
        var states = await manager.lockScreenManager.states().makeAsyncIterator()
        try await emulator.activateApp("lock-1")
        while let state = await states.next(), state.status != .optional {}
        await emulator.setDriverDistraction(true)
        while let state = await states.next(), state.status != .required {}
        #expect(await manager.lockScreenManager.state.isDismissible, "core's default policy allows dismissal")
        await manager.stop()
        #expect(await manager.lockScreenManager.state.status == .off)
    }
}
