import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal, for the interactive front-ends: whether standard input is one, single keys
/// without Enter, and lines. The one place the executable talks to C.
final class Terminal {
    /// Whether standard input is a terminal (otherwise the commands read a script, line by line).
    static var inputIsInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard output is a terminal (colour and screen clearing only then).
    static var outputIsInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

    private var saved = termios()
    private var raw = false

    /// A key pressed.
    enum Key: Equatable {
        case character(Character)
        case enter
        case escape
        /// Ctrl-C, Ctrl-D, or the end of input.
        case interrupt
        case up, down
    }

    /// Puts the terminal in raw mode: keys arrive one at a time, not echoed.
    func enterRawMode() {
        guard !raw, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var settings = saved
        settings.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        settings.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        if tcsetattr(STDIN_FILENO, TCSADRAIN, &settings) == 0 { raw = true }
    }

    /// Back to the mode the terminal was in.
    func leaveRawMode() {
        guard raw else { return }
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &saved)
        raw = false
    }

    deinit { leaveRawMode() }

    /// Waits for one key.
    func readKey() -> Key {
        guard let byte = readByte() else { return .interrupt }
        switch byte {
        case 3, 4: return .interrupt
        case 10, 13: return .enter
        case 27:
            // An escape sequence (arrows) or Escape alone.
            var pending = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&pending, 1, 30) > 0, readByte() == UInt8(ascii: "[") else { return .escape }
            switch readByte() {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            default: return .escape
            }
        default:
            // The first byte of a UTF-8 sequence: read the rest.
            var bytes = [byte]
            let extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : 0
            for _ in 0..<extra { if let next = readByte() { bytes.append(next) } }
            return String(decoding: bytes, as: UTF8.self).first.map(Key.character) ?? .escape
        }
    }

    /// Reads a line with the terminal's own editing, leaving raw mode for it.
    func readLine(prompt: String) -> String? {
        let wasRaw = raw
        leaveRawMode()
        write(prompt)
        let line = Swift.readLine()
        if wasRaw { enterRawMode() }
        return line
    }

    /// Writes text to standard output at once.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Clears the screen when standard output is a terminal.
    func clear() {
        if Self.outputIsInteractive { write("\u{1B}[2J\u{1B}[H") }
    }

    /// The terminal's width in columns, 80 when unknown.
    static var width: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }
}

/// Text styles for a terminal; plain when output is not one or `NO_COLOR` is set.
enum Style {
    static let enabled = Terminal.outputIsInteractive && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    static func bold(_ text: String) -> String { enabled ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    static func dim(_ text: String) -> String { enabled ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    static func green(_ text: String) -> String { enabled ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    static func red(_ text: String) -> String { enabled ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
}
