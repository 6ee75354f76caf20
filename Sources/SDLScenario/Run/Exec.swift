import Foundation
import SmartDeviceLink
#if canImport(Glibc)
import Glibc
#endif

extension RunContext {
    /// Runs an `exec` step's command on this machine and waits for it (at most its timeout),
    /// keeping what it printed for the report. Its exit code decides the step.
    /// - Parameter environment: variables the command gets besides this process's.
    func exec(_ step: ExecStep, environment: [String: String] = [:]) async throws(StepFailure) -> String {
        let finished: LocalCommand.Outcome
        do {
            finished = try await LocalCommand.run(step.arguments, timeout: .milliseconds(step.timeoutMS), environment: environment)
        } catch {
            throw StepFailure(message: "cannot run \(step.display): \(error)")
        }
        let output = String(finished.output.suffix(65_536))
        if !output.isEmpty { reporter?.progress(output.trimmingCharacters(in: .newlines)) }
        if finished.timedOut {
            throw StepFailure(message: "\(step.display) did not finish within \(Double(step.timeoutMS) / 1000) s and was stopped",
                              output: output)
        }
        guard finished.status == step.expectedExitCode else {
            let last = output.split(separator: "\n").last.map { ": \($0)" } ?? ""
            let how = finished.status < 0 ? "was killed by signal \(-finished.status)" : "exited with \(finished.status)"
            throw StepFailure(message: "\(step.display) \(how) (expected \(step.expectedExitCode))\(last)", output: output)
        }
        return output
    }
}

/// A command run in a process group of its own with no signal blocked, so a timeout stops
/// it and everything it started (`sh -c "sleep 9"` leaves no `sleep` behind), whatever
/// signal mask this process runs with (Foundation's Process passes a dispatch thread's on).
enum LocalCommand {
    struct Outcome {
        /// The exit status, or minus the signal that ended it.
        var status: Int32
        var output: String
        var timedOut: Bool
    }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// - Parameter environment: variables added to this process's environment for the command.
    static func run(_ arguments: [String], timeout: Duration, environment: [String: String] = [:]) async throws(SpawnError) -> Outcome {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw SpawnError(description: String(cString: strerror(errno))) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, added in added }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw SpawnError(description: "\(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        let reader = pipeEnds[0], child = pid
        let exitedAt = Locked<ContinuousClock.Instant?>(nil)
        // read and waitpid block: each gets a thread of its own, never one of the pool's. A
        // command that leaves something running in the background (which keeps the pipe
        // open) gets its output read for one more second after it exits, not forever.
        async let collected: Data = onThread {
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var descriptor = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            while true {
                if let exited = exitedAt.withLock({ $0 }), ContinuousClock.now - exited > .seconds(1) { break }
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let count = read(reader, &buffer, buffer.count)
                if count <= 0 { break }
                data.append(contentsOf: buffer[0..<count])
            }
            close(reader)
            return data
        }
        let watchdog = Task.detached { () -> Bool in
            do { try await Task.sleep(for: timeout) } catch { return false }
            kill(-child, SIGTERM)
            try? await Task.sleep(for: .seconds(2))
            kill(-child, SIGKILL)
            return true
        }
        // A stopped run (see RunStop) ends the command too: it is in a process group of its
        // own, which Ctrl-C on the terminal does not reach.
        let status = await withTaskCancellationHandler {
            await onThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
                exitedAt.withLock { $0 = ContinuousClock.now }
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : -signal
            }
        } onCancel: {
            kill(-child, SIGTERM)
        }
        watchdog.cancel()
        let timedOut = await watchdog.value
        let output = await collected
        return Outcome(status: status, output: String(decoding: output, as: UTF8.self), timedOut: timedOut)
    }
}

/// Runs a blocking `body` on a new thread and returns its result: a blocking call on the
/// cooperative pool (or the main actor) would stall every task waiting for that thread.
package func onThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
