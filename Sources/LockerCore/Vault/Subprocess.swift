import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs another program and takes its output: `git` for the content's time (``LastCommit``) and
/// for what changed since a commit (``VaultChanges``), `tar` to unpack a commit's vault.
///
/// The program is started with `posix_spawnp` and waited for with `waitpid`. Foundation's
/// `Process` took far longer than `git` itself to start it and see it end on Linux, a large part
/// of a rebuild of an unchanged vault.
enum Subprocess {
    /// The standard output of the program `arguments[0]`, found on `PATH`, when it exits with
    /// status 0; its standard input and error are `/dev/null`.
    static func output(of arguments: [String]) -> [UInt8]? {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // Not inherited by a program another thread starts meanwhile: its copy of the write end
        // would keep this one's output open.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
        #else
            var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        // The program starts with no signal blocked or ignored, whatever this process holds
        // back (an interrupt, while a build commits).
        #if canImport(Glibc)
            var attributes = posix_spawnattr_t()
        #else
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        #if canImport(Darwin)
            let environment = _NSGetEnviron().pointee
        #else
            let environment = environ
        #endif
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environment)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            return nil
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            if count > 0 {
                output += buffer[..<count]
            } else if count < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(readEnd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // Exited (no signal), with status 0.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { return nil }
        return output
    }
}
