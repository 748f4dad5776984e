import Foundation
import LockerCore
import LockerKit
import ZIPFoundation

extension AnkiPackage {
    /// The package's bytes: a zip of `collection.anki2`, `media` (JSON: `{"0": "locker-….png"}`)
    /// and the images as `0`, `1`, …, every entry dated with the content's time.
    public func data() throws -> Data {
        let collection = try collectionData()
        var names: [String: JSONValue] = [:]
        for (number, file) in media.enumerated() { names[String(number)] = .string(file.name) }
        var mediaMap = CanonicalJSON.data(for: .object(names), layout: .compact)
        if mediaMap.last == 0x0A { mediaMap.removeLast() }
        // Zip dates start in 1980: ZIPFoundation writes an earlier time as 1980.
        let date = Date(timeIntervalSince1970: TimeInterval(contentTime))
        do {
            let archive = try Archive(data: Data(), accessMode: .create)
            func add(_ path: String, _ data: Data, compressed: Bool) throws {
                try archive.addEntry(
                    with: path, type: .file, uncompressedSize: Int64(data.count), modificationDate: date,
                    permissions: 0o644, compressionMethod: compressed ? .deflate : .none
                ) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            try add("collection.anki2", collection, compressed: true)
            try add("media", mediaMap, compressed: true)
            // Images are compressed already.
            for (number, file) in media.enumerated() { try add(String(number), file.data, compressed: false) }
            guard let data = archive.data else { throw LockerError.io("the Anki package was not made") }
            return data
        } catch let error as LockerError {
            throw error
        } catch {
            throw LockerError.io("cannot make the Anki package: \(error)")
        }
    }

    /// Writes the package to `url` atomically: into a temporary file beside it, renamed over it.
    public func write(to url: URL) throws {
        let data = try data()
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw LockerError.io("\(url.path): cannot write the Anki package: \(error.localizedDescription)")
        }
    }
}
