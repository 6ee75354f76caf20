import Foundation
import SmartDeviceLink

/// A music player on the head unit, with the features of sdl_ios's example app: the track
/// and its artwork on screen, the media clock, play/pause and track soft buttons, a menu
/// with a submenu and voice commands, a choice set, alerts, the vehicle's speed, a voice
/// note recorded from the car's microphone, a template switch, and the lock screen's state.
///
/// Everything the app does is said in one line through `say` (the terminal, or a test).
public actor MediaApp {
    /// A song of the built-in playlist.
    public struct Track: Sendable, Hashable {
        public var title: String
        public var artist: String
        public var seconds: Int
    }

    public static let playlist = [
        Track(title: "Open Road", artist: "The Lanes", seconds: 214),
        Track(title: "Night Drive", artist: "Headlights", seconds: 187),
        Track(title: "Rest Stop", artist: "Mile Marker", seconds: 241),
    ]

    /// The connection to the head unit and its managers.
    public nonisolated let manager: SDLManager
    private let say: @Sendable (String) -> Void
    private let cover: SDLFile
    private var track = MediaApp.playlist[0]
    private var isPlaying = false
    private var template = "MEDIA"
    private var watchers: [Task<Void, Never>] = []
    private var stopping = false

    /// A media app named "SDL Music" that connects over `link`.
    public init(link: TransportChoice, say: @escaping @Sendable (String) -> Void) {
        manager = SDLManager(configuration: SDLConfiguration(
            appName: "SDL Music", appID: "sdl-music-0001", shortName: "Music", isMedia: true,
            voiceRecognitionSynonyms: ["SDL Music", "Music"], transports: [link]))
        self.say = say
        let artwork = Bundle.module.url(forResource: "cover", withExtension: "png")!.path
        cover = SDLFile(name: "cover.png", source: .path(artwork), fileType: .graphicPng, isPersistent: true)
    }

    /// Connects and registers, and returns; the player goes on the head unit's screen once
    /// the driver opens the app (the screen managers wait for it). Throws why it could not register.
    public func start() async throws(SDLError) {
        try await manager.start()
        say("registered as SDL Music")
        watch()
        watchers.append(Task {
            await showTrack()
            await setSoftButtons()
            await setMenu()
            await subscribeToSpeed()
        })
    }

    /// Unregisters and closes the link.
    public func stop() async {
        stopping = true
        for watcher in watchers { watcher.cancel() }
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

    // MARK: - The screen

    private func showTrack() async {
        let (track, cover) = (self.track, self.cover)
        let position = "\(Self.playlist.firstIndex(of: track)! + 1) of \(Self.playlist.count)"
        do {
            _ = try await manager.screenManager.textAndGraphics.update { screen in
                screen.textField1 = track.title
                screen.textField2 = track.artist
                screen.mediaTrack = position
                screen.primaryGraphic = cover
            }
            tell("showing \"\(track.title)\" by \(track.artist)")
        } catch {
            failed("showing the track", error)
        }
    }

    private func setSoftButtons() async {
        let playPause = SoftButtonObject(name: "playPause", states: [
            SoftButtonState(name: "play", text: "Play"),
            SoftButtonState(name: "pause", text: "Pause", isHighlighted: true),
        ]) { [weak self] _ in Task { await self?.togglePlayback() } }
        let tracks = SoftButtonObject(name: "tracks", text: "Tracks") { [weak self] _ in Task { await self?.pickTrack() } }
        do {
            _ = try await manager.screenManager.softButtons.setSoftButtons([playPause, tracks])
        } catch {
            failed("the soft buttons", error)
        }
    }

    private func setMenu() async {
        let tracks = Self.playlist.map { track in
            MenuCell(title: track.title, secondaryText: track.artist, voiceCommands: [track.title]) { [weak self] source in
                Task { await self?.play(track, pickedBy: "the menu (\(source.rawValue))") }
            }
        }
        let menu = [
            MenuCell(title: "Tracks", subCells: tracks),
            MenuCell(title: "Record a voice note", voiceCommands: ["Voice note"]) { [weak self] _ in
                Task { await self?.recordVoiceNote() }
            },
            MenuCell(title: "Speed", voiceCommands: ["Speed"]) { [weak self] _ in Task { await self?.alertSpeed() } },
            MenuCell(title: "Switch template", voiceCommands: ["Switch template"]) { [weak self] _ in
                Task { await self?.switchTemplate() }
            },
        ]
        do {
            let report = try await manager.screenManager.menu.setMenu(menu)
            tell("menu: \(report.added) cells")
        } catch {
            failed("the menu", error)
        }
    }

    // MARK: - Playback

    private func togglePlayback() async {
        isPlaying.toggle()
        do {
            _ = try await manager.screenManager.softButtons.transition("playPause", to: isPlaying ? "pause" : "play")
            // The media clock counts up through the track while it plays and stands while paused.
            let clock = isPlaying
                ? SetMediaClockTimer(updateMode: .countup, startTime: StartTime(hours: 0, minutes: 0, seconds: 0),
                                     endTime: StartTime(hours: 0, minutes: track.seconds / 60, seconds: track.seconds % 60),
                                     audioStreamingIndicator: .pause)
                : SetMediaClockTimer(updateMode: .pause, audioStreamingIndicator: .play)
            let answer = try await manager.send(clock, timeout: nil)
            guard answer.success else { return tell("the media clock was refused: \(answer.resultCode.rawValue)") }
            tell(isPlaying ? "playing \"\(track.title)\"" : "paused")
        } catch {
            failed("play/pause", error)
        }
    }

    private func play(_ next: Track, pickedBy: String) async {
        tell("\"\(next.title)\" picked from \(pickedBy)")
        track = next
        isPlaying = false
        await showTrack()
        await togglePlayback()
    }

    /// The playlist as a choice set, as sdl_ios's example presents its choices.
    private func pickTrack() async {
        let cells = Self.playlist.map { ChoiceCell(text: $0.title, secondaryText: $0.artist, voiceCommands: [$0.title]) }
        do {
            switch try await manager.screenManager.choiceSets.present(ChoiceSet(title: "Pick a track", cells: cells), style: .both) {
            case .selected(let cell, let source):
                guard let picked = Self.playlist.first(where: { $0.title == cell.text }) else { return }
                await play(picked, pickedBy: "the choice set (\(source.rawValue))")
            case .timedOut: tell("nobody picked a track")
            case .aborted: tell("picking a track was cancelled")
            case .entered(let text): tell("typed \"\(text)\"")
            }
        } catch {
            failed("the choice set", error)
        }
    }

    // MARK: - The car

    private func subscribeToSpeed() async {
        let vehicle = manager.vehicleDataManager
        do {
            let results = try await vehicle.subscribe(["speed"])
            tell("speed: subscribed (\(results["speed"]?.rawValue ?? "?"))")
        } catch {
            failed("subscribing to the speed", error)
            return
        }
        let speeds = await vehicle.values(of: \.speed)
        watchers.append(Task { [weak self] in
            for await speed in speeds { await self?.show(speed: speed) }
        })
    }

    private func show(speed: Double) async {
        tell("speed: \(Int(speed.rounded())) km/h")
        let text = "\(Int(speed.rounded())) km/h"
        _ = try? await manager.screenManager.textAndGraphics.update { $0.textField3 = text }
    }

    private func alertSpeed() async {
        do {
            let speed = try await manager.vehicleDataManager.get(["speed"]).values.speed
            let text = speed.map { "\(Int($0.rounded())) km/h" } ?? "unknown"
            let result = try await manager.screenManager.alerts.present(AlertView(
                text: "Speed", secondaryText: text, speech: ["The speed is \(text)"],
                softButtons: [SoftButtonObject(name: "ok", text: "OK")]))
            tell("alert \"Speed \(text)\": \(result.resultCode.rawValue)")
        } catch {
            failed("the speed alert", error)
        }
    }

    /// Records from the car's microphone until the driver ends it or three seconds pass.
    private func recordVoiceNote() async {
        let recording = await manager.audioPassThruManager.start(AudioPassThruOptions(
            prompt: "Speak your note", text1: "Recording a voice note", maxDuration: .seconds(3)))
        var bytes = 0
        for await chunk in recording.chunks { bytes += chunk.count }
        do {
            let result = try await recording.result
            tell("voice note: \(bytes) bytes of 16 kHz PCM (\(result.resultCode.rawValue))")
        } catch {
            failed("the voice note", error)
        }
    }

    private func switchTemplate() async {
        template = template == "MEDIA" ? "NON-MEDIA" : "MEDIA"
        do {
            _ = try await manager.screenManager.textAndGraphics.changeTemplate(template)
            tell("template: \(template)")
        } catch {
            failed("switching to \(template)", error)
        }
    }

    // MARK: - What the app follows

    private func watch() {
        let manager = self.manager
        let say = self.say
        watchers.append(Task {
            for await change in await manager.hmiChanges() where change.hmiLevelChanged {
                say("HMI level: \(change.new.hmiLevel.rawValue)")
            }
        })
        // The lock screen, which an app on a phone would show over its own UI while driving.
        watchers.append(Task {
            for await lock in await manager.lockScreenManager.states() {
                say("lock screen: \(lock.status.rawValue)\(lock.isShown ? ", shown" : "")")
            }
        })
    }
}
