import Foundation
import LockerKit

/// What a built result was made from, checked before it is reused.
struct BuildTrace: Sendable {
    /// Every note it read, by its place in the vault's notes, with its content hash. Places
    /// name the same notes while the ``LinkSurface`` is the same: it lists every note in order.
    var notes: [(place: Int, sha256: String)]
    /// Every vault file it embeds, with how, and its content hash or why it could not be read.
    var assets: [AssetUse]

    /// Whether nothing it was made from changed, given each note's content hash by its place.
    /// Assets are looked up again, which also counts them as used by this build.
    func holds(hashes: [String], assets catalog: AssetCatalog) -> Bool {
        for (place, sha256) in notes where place >= hashes.count || hashes[place] != sha256 { return false }
        return Self.holds(assets, in: catalog)
    }

    /// Whether every vault file in `uses` has the state it had: each is looked up again, which
    /// also counts it as used by this build.
    static func holds(_ uses: [AssetUse], in catalog: AssetCatalog) -> Bool {
        uses.allSatisfy { catalog.use($0.path, bundled: $0.bundled) == $0.state }
    }
}

/// A vault file a document embeds: in the bundle, or on its page alone.
struct AssetUse: Sendable, Hashable {
    var path: String
    var bundled: Bool
    /// The content hash, or why the file could not be read.
    var state: String
}
