import Foundation
import Testing

@testable import LockerCore

@Suite struct FileBytesTests {
    @Test(arguments: [0, 1, 4095, 4096, 70_000])
    func readsAFileOfAnySize(size: Int) throws {
        let vault = try TestVault([:])
        defer { vault.remove() }
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try vault.write("f.bin", Data(bytes))
        #expect(try FileBytes.contents(of: vault.root.appendingPathComponent("f.bin").path) == bytes)
    }

    /// A file whose size says 0 but that has content, as Linux's /proc files do, is read whole.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
    func readsPastASizeOfZero() throws {
        let bytes = try FileBytes.contents(of: "/proc/self/status")
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("Name:"))
        #expect(bytes.count > 100)
    }

    @Test func aMissingFileOrAFolderIsAFailureThatSaysWhy() throws {
        let vault = try TestVault([:])
        defer { vault.remove() }
        #expect(throws: FileBytes.Failure(description: "No such file or directory")) {
            try FileBytes.contents(of: vault.root.appendingPathComponent("nowhere.md").path)
        }
        #expect(throws: FileBytes.Failure(description: "not a regular file")) {
            try FileBytes.contents(of: vault.root.path)
        }
    }
}
