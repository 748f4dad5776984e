import Foundation
import Hummingbird
import LockerCore
import ServiceLifecycle

/// Watches the vault and rebuilds when its fingerprint changes; a service of the application, so
/// it stops with the server and closes the pages' event streams on the way.
///
/// With a ``VaultNotifier`` (inotify, on Linux) it looks at the notifier every 50 ms, and walks
/// the vault once a folder saw a change and a look finds no newer one (an editor's save is often
/// a write then a rename; it waits `pollInterval` at most). It also walks on its own, for what no
/// event reports (a network file system, a note edited through a hard link from outside the
/// vault, a folder made between a walk and its watch): every `pollInterval` while a walk is
/// quick, less often as the vault grows, so that these walks keep to about 1 % of a core, and
/// every 5 s at least: walking a large vault several times a second cost a noticeable share of a
/// core. Without a notifier (macOS), or when a folder cannot be watched (the system's limit of
/// watches), it walks every `pollInterval`, as before.
struct VaultWatcher: Service {
    var options: PreviewServer.Options
    var builder: PreviewBuilder
    var state: PreviewState
    var initial: BuildFingerprint
    var log: @Sendable (String) -> Void

    /// How long the walks on its own wait, at least, as a multiple of the last walk's time; and
    /// at most (a walk slowed once, by a cold cache or a laptop's sleep, must not stop them).
    static let idleWalkFactor = 100
    static let idleWalkLimit = Duration.seconds(5)

    func run() async throws {
        let state = self.state
        await withGracefulShutdownHandler {
            var fingerprint = initial
            let notifier = VaultNotifier()
            var watching = notifier?.watch(initial.folders).complete ?? false
            let clock = ContinuousClock()
            var lastWalk = clock.now
            var walkTime = Duration.zero
            // When the notifier first told of a change not walked yet.
            var changedSince: ContinuousClock.Instant?
            let interval = max(options.pollInterval, .milliseconds(10))
            let tick = notifier == nil ? interval : min(interval, .milliseconds(50))
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                do {
                    try await Task.sleep(for: tick)
                } catch {
                    return
                }
                if let notifier, watching {
                    if notifier.drain() {
                        let first = changedSince ?? clock.now
                        changedSince = first
                        // More is happening: walk once it is quiet, or `pollInterval` after the first.
                        if first.duration(to: clock.now) < interval { continue }
                    }
                    let idle = min(max(interval, walkTime * Self.idleWalkFactor), max(interval, Self.idleWalkLimit))
                    let due = lastWalk.duration(to: clock.now) >= idle
                    guard changedSince != nil || due else { continue }
                } else if lastWalk.duration(to: clock.now) < interval {
                    continue
                }
                changedSince = nil
                let start = clock.now
                let now = BuildFingerprint.files(in: options.vault)
                lastWalk = clock.now
                walkTime = start.duration(to: lastWalk)
                if let notifier {
                    let watched = notifier.watch(now.folders)
                    watching = watched.complete
                    // A file made in a new folder before its watch: walk again next time.
                    if watched.added { changedSince = clock.now }
                }
                guard now != fingerprint else { continue }
                fingerprint = now
                let (site, report) = builder.build(previous: await state.site, taking: now)
                await state.publish(site)
                log(report)
            }
        } onGracefulShutdown: {
            Task { await state.closeAll() }
        }
    }
}
