import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Tells `locker serve` that something in the vault's folders may have changed: Linux's inotify,
/// one watch per folder. Where there is none (macOS, or when the system refuses), the watcher
/// walks the vault on its own schedule.
///
/// It only says *that* a folder saw a change, never which file: the watcher then walks the vault
/// as before, and a walk decides whether anything a build reads changed. Names starting with a
/// dot (an editor's swap file, `.DS_Store`) are not counted.
final class VaultNotifier: @unchecked Sendable {
    #if os(Linux)
        private let descriptor: Int32
        /// The folders watched, by watch descriptor.
        private var watched: [Int32: String] = [:]
        /// Where events are read into: one allocation for the server's life, since the watcher
        /// reads 20 times a second (and only the watcher reads).
        private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        private let lock = NSLock()

        init?() {
            descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
        }

        deinit { close(descriptor) }

        /// Watches these folders (absolute paths), and no other: a folder watched already is not
        /// watched twice, and one no longer listed (moved out of the vault) is let go.
        /// `complete` is false when the system refused one (its limit of watches,
        /// `fs.inotify.max_user_watches`), or one was gone by now; `added` is true when a folder
        /// was not watched before (a file made in it before its watch sent no event).
        func watch(_ folders: [String]) -> (complete: Bool, added: Bool) {
            let events =
                UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_FROM)
                | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_DELETE_SELF)
                | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR)
            return lock.withLock {
                var complete = true
                var kept: [Int32: String] = [:]
                for folder in folders {
                    let watch = inotify_add_watch(descriptor, folder, events)
                    if watch >= 0 { kept[watch] = folder } else { complete = false }
                }
                for (watch, _) in watched where kept[watch] == nil { inotify_rm_watch(descriptor, watch) }
                let added = kept.keys.contains { watched[$0] == nil }
                watched = kept
                return (complete, added)
            }
        }

        /// Reads every event waiting, without blocking: whether any was about a name that does
        /// not start with a dot, or about a folder itself, or said events were lost. Only the
        /// watcher calls it, from one task: the buffer is not shared.
        func drain() -> Bool {
            var changed = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return changed }
                lock.withLock {
                    Self.forEachEvent(in: buffer[..<count]) { watch, mask, firstByte in
                        if mask & UInt32(IN_IGNORED) != 0 {
                            // The kernel dropped the watch: its folder was removed.
                            watched[watch] = nil
                        } else if mask & UInt32(IN_Q_OVERFLOW) != 0 || firstByte != UInt8(ascii: ".") {
                            changed = true
                        }
                    }
                }
            }
        }

        /// How many folders are watched.
        var count: Int { lock.withLock { watched.count } }

        /// Each event in `bytes`, as the kernel lays them out (`struct inotify_event`: descriptor,
        /// mask, cookie and name length, then the name padded with zeros): its descriptor, mask
        /// and the first byte of its name (nil for an event about the watched folder itself).
        private static func forEachEvent(in bytes: ArraySlice<UInt8>, _ body: (Int32, UInt32, UInt8?) -> Void) {
            bytes.withUnsafeBytes { raw in
                let header = MemoryLayout<inotify_event>.size
                var offset = 0
                while offset + header <= raw.count {
                    let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    guard offset + header + length <= raw.count else { return }
                    let first = length > 0 && raw[offset + header] != 0 ? raw[offset + header] : nil
                    body(watch, mask, first)
                    offset += header + length
                }
            }
        }
    #else
        init?() { return nil }
        func watch(_ folders: [String]) -> (complete: Bool, added: Bool) { (false, false) }
        func drain() -> Bool { true }
        var count: Int { 0 }
    #endif
}
