import Foundation
import SmartDeviceLink

/// A navigation app on the head unit: it streams its map as H.264 video (a file, or the
/// built-in test pattern, looped), reports the driver's touches on it, and guides along a
/// short route turn by turn (ShowConstantTBT, UpdateTurnList, AlertManeuver), one maneuver
/// further at each tap, as a simulated drive.
///
/// Everything the app does is said in one line through `say` (the terminal, or a test).
public actor NavigationApp {
    /// The route: each maneuver and the distance to it.
    public static let route = [
        Maneuver(text: "Turn left onto Main St", distance: "200 m", distanceToManeuver: 200, distanceToManeuverScale: 1),
        Maneuver(text: "Turn right onto 2nd Ave", distance: "1.2 km", distanceToManeuver: 1200, distanceToManeuverScale: 1),
        Maneuver(text: "Arrive at the destination", distance: "50 m", distanceToManeuver: 50, distanceToManeuverScale: 1,
                 spoken: "You have arrived"),
    ]

    /// The connection to the head unit and its managers.
    public nonisolated let manager: SDLManager
    private let say: @Sendable (String) -> Void
    private let video: String
    private var step = 0
    private var tasks: [Task<Void, Never>] = []
    private var stopping = false

    /// A navigation app named "SDL Maps" that connects over `link` and streams `video` (an
    /// H.264 Annex-B file; nil: the built-in test pattern).
    public init(link: TransportChoice, video: String? = nil, say: @escaping @Sendable (String) -> Void) {
        manager = SDLManager(configuration: SDLConfiguration(
            appName: "SDL Maps", appID: "sdl-maps-0001", shortName: "Maps", appTypes: [.navigation], transports: [link]))
        self.video = video ?? Bundle.module.url(forResource: "pattern", withExtension: "h264")!.path
        self.say = say
    }

    /// Connects and registers, and returns; video starts once the driver opens the app.
    /// Throws why it could not register.
    public func start() async throws(SDLError) {
        try await manager.start()
        say("registered as SDL Maps")
        let streaming = manager.streamingMediaManager
        let (states, gestures) = (await streaming.videoStates(), await manager.touchManager.gestures())
        tasks.append(Task { [say] in
            for await state in states { say("video: \(state)") }
        })
        tasks.append(Task { [weak self] in
            for await gesture in gestures { await self?.touched(gesture) }
        })
        tasks.append(Task { await self.stream() })
        tasks.append(Task { await self.guide() })
    }

    /// Stops the video, unregisters and closes the link.
    public func stop() async {
        stopping = true
        for task in tasks { task.cancel() }
        await manager.streamingMediaManager.stopVideo()
        await manager.stop()
        say("stopped")
    }

    /// Says a line of what the app does; nothing once it is stopping, when what was still
    /// waiting for the head unit ends empty or as "not connected".
    private func tell(_ line: String) {
        guard !stopping else { return }
        say(line)
    }

    private func failed(_ what: String, _ error: any Error) {
        tell("\(what) failed: \(error)")
    }

    /// Streams the clip, looped, at 30 frames a second while the app streams. Each pass starts
    /// at the clip's beginning once video streams, so the head unit's decoder gets the
    /// parameter sets and a key frame first.
    private func stream() async {
        let streaming = manager.streamingMediaManager
        await streaming.startVideo()
        while !Task.isCancelled {
            do {
                guard case .streaming = await streaming.videoState else {
                    try await Task.sleep(for: .milliseconds(100))
                    continue
                }
                _ = try await streaming.streamVideo(file: video, fps: 30)
            } catch is CancellationError {
                return
            } catch {
                failed("video", error)
                return
            }
        }
    }

    /// The first maneuver and the turns ahead, once the driver opened the app.
    private func guide() async {
        _ = await manager.firstNonNoneHMILevel()
        await showManeuver()
    }

    private func showManeuver() async {
        let maneuver = Self.route[step]
        do {
            try await manager.navigationManager.show(maneuver)
            try await manager.navigationManager.updateTurnList(Self.route[step...].map(\.text))
            tell("maneuver: \(maneuver.text) in \(maneuver.distance ?? "?")")
            if step == Self.route.count - 1 {
                try await manager.navigationManager.alert(maneuver)
                tell("spoken: \(maneuver.spoken ?? maneuver.text)")
            }
        } catch {
            failed("turn-by-turn", error)
        }
    }

    /// A touch on the map: reported, and a tap moves the drive one maneuver on.
    private func touched(_ gesture: TouchGesture) async {
        switch gesture {
        case .tap(let point):
            tell("tap at \(point)")
            guard step < Self.route.count - 1 else { return }
            step += 1
            await showManeuver()
        case .doubleTap(let point): tell("double tap at \(point)")
        case .panMoved(let from, let to): tell("pan from \(from) to \(to)")
        case .pinchMoved(let center, let scale): tell("pinch at \(center), scale \(scale)")
        case .panStarted, .panEnded, .pinchStarted, .pinchEnded, .cancelled: break
        }
    }
}
