import Foundation

/// Turns a file's bytes into ``SourceText``, or into the diagnostic that explains why it cannot.
struct SourceDecoder: Sendable {
    /// Files larger than this are not read as notes.
    var maxBytes: Int
    /// What to do about a file over `maxBytes`.
    var sizeHint = "split the note, or raise maxFileSize in locker.yml"

    /// The decoded text (nil when the file cannot be used) and what was noticed on the way.
    func decode(_ raw: [UInt8], file: String) -> (SourceText?, [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        if raw.count > maxBytes {
            let message = "file is \(raw.count) bytes, over the limit of \(maxBytes)"
            return (nil, [Diagnostic(.error, .fileTooLarge, message, file: file, hint: sizeHint)])
        }
        var bytes = raw[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            bytes = bytes.dropFirst(3)
            diagnostics.append(Diagnostic(.note, .fileBOM, "byte order mark removed", file: file))
        }
        if let nul = Self.firstIndex(of: 0, in: bytes) {
            let position = Self.roughPosition(of: nul, in: bytes)
            let diagnostic = Diagnostic(
                .error, .fileBinary, "file holds NUL bytes: binary data, not a note", file: file, at: position)
            return (nil, diagnostics + [diagnostic])
        }
        var normalized = bytes
        if Self.firstIndex(of: 0x0D, in: bytes) != nil {
            normalized = Self.normalizingLineEndings(bytes)[...]
            diagnostics.append(Diagnostic(.note, .fileCRLF, "CRLF line endings read as LF", file: file))
        }
        guard let text = Self.validated(normalized) else {
            let position = Self.roughPosition(of: Self.firstInvalidUTF8(bytes) ?? bytes.startIndex, in: bytes)
            let diagnostic = Diagnostic(
                .error, .fileInvalidUTF8, "file is not valid UTF-8", file: file, at: position,
                hint: "save the file as UTF-8")
            return (nil, diagnostics.filter { $0.code != .fileCRLF } + [diagnostic])
        }
        if text.allSatisfy(\.isWhitespace) {
            diagnostics.append(Diagnostic(.warning, .fileEmpty, "note is empty", file: file))
        }
        return (SourceText(text, bytes: Array(normalized)), diagnostics)
    }

    /// The index of the first `byte` in `bytes`, found by the C library's vectorised scan.
    private static func firstIndex(of byte: UInt8, in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, let found = memchr(base, Int32(byte), buffer.count) else { return nil }
            return bytes.startIndex + base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The text, or nil when the bytes are not valid UTF-8.
    private static func validated(_ bytes: ArraySlice<UInt8>) -> String? {
        if #available(macOS 15, iOS 18, *) { return String(validating: bytes, as: UTF8.self) }
        return firstInvalidUTF8(bytes) == nil ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// CR and CRLF line endings as LF.
    private static func normalizingLineEndings(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var normalized = [UInt8]()
        normalized.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x0D {
                normalized.append(0x0A)
                if index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A { index += 1 }
            } else {
                normalized.append(byte)
            }
            index += 1
        }
        return normalized
    }

    /// Where a byte offset sits: lines end at LF, CR or CRLF, as the text is read once decoded;
    /// columns count the bytes that start a UTF-8 sequence (the text may not be valid UTF-8).
    private static func roughPosition(of offset: Int, in bytes: ArraySlice<UInt8>) -> SourcePosition {
        var line = 1
        var lineStart = bytes.startIndex
        for index in bytes.startIndex..<offset {
            let byte = bytes[index]
            // A CR followed by LF ends its line at the LF.
            guard byte == 0x0A || (byte == 0x0D && (index + 1 == bytes.endIndex || bytes[index + 1] != 0x0A)) else {
                continue
            }
            line += 1
            lineStart = index + 1
        }
        let scalars = bytes[lineStart..<offset].reduce(0) { $0 + (($1 & 0xC0) == 0x80 ? 0 : 1) }
        return SourcePosition(line: line, column: scalars + 1)
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = bytes.startIndex
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
            case .emptyInput:
                return nil
            case .error:
                return offset
            }
        }
    }
}
