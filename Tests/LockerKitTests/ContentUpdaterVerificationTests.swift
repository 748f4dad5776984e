import Foundation
import LockerKit
import Testing

/// What ``ContentUpdater`` refuses: manifests that are unsigned, badly signed, old, expired, of
/// another schema, or listing paths it must not write. Each refusal leaves the store as it was.
@Suite struct ContentUpdaterVerificationTests {
    /// A store with version 1 of the sailing content active, and the server's first answer
    /// forgotten.
    static func activeFixture() async throws -> (UpdaterFixture, Publication) {
        let fixture = try UpdaterFixture()
        let v1 = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(v1)
        _ = try await fixture.updater().update()
        fixture.transport.clearLog()
        return (fixture, v1)
    }

    /// Checks that nothing was downloaded and the store holds what it held.
    static func expectUnchanged(
        _ fixture: UpdaterFixture, active: Publication?, requested: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(fixture.transport.requested == requested, sourceLocation: sourceLocation)
        #expect(fixture.activeManifest == active?.manifestBytes, sourceLocation: sourceLocation)
        #expect(
            fixture.storedFiles == active.map(ContentUpdaterTests.stored) ?? [], sourceLocation: sourceLocation)
    }

    // MARK: - Versions and expiry

    @Test func aLowerVersionIsARollback() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        fixture.transport.publish(v2)
        _ = try await fixture.updater().update()
        let old = try TestPublisher.publish(TestContent.sailing(edition: 1), version: 1)
        #expect(old.manifestBytes == v1.manifestBytes)
        fixture.transport.publish(old)
        fixture.transport.clearLog()
        let before = fixture.storedFiles

        #expect(await failure(of: try fixture.updater()) == .rollback(active: 2, offered: 1))

        #expect(fixture.transport.requested == ["manifest.json", old.signaturePath])
        #expect(fixture.activeManifest == v2.manifestBytes)
        #expect(fixture.storedFiles == before)
    }

    @Test func anEqualVersionWithOtherContentIsARollback() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        let other = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 1)
        fixture.transport.publish(other)

        #expect(await failure(of: try fixture.updater()) == .rollback(active: 1, offered: 1))

        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json", other.signaturePath])
    }

    /// The rotation of docs/bundle-format.md: content signed by the old and the new key, then
    /// signed again by the new key alone, in a build of the same commit (same version, same
    /// files). Nothing to download, and no rollback.
    @Test func theSameContentSignedAgainIsNotARollback() async throws {
        let fixture = try UpdaterFixture()
        let both = try TestPublisher.publish(
            TestContent.sailing(), version: 1, signers: [TestPublisher.key, TestPublisher.nextKey])
        let again = try TestPublisher.publish(TestContent.sailing(), version: 1, signers: [TestPublisher.nextKey])
        #expect(again.manifestBytes != both.manifestBytes)
        let trusted = try [TestPublisher.trusted(TestPublisher.key), TestPublisher.trusted(TestPublisher.nextKey)]
        let updater = try fixture.updater(trusting: trusted)
        fixture.transport.publish(both)
        _ = try await updater.update()
        fixture.transport.publish(again)
        fixture.transport.clearLog()

        #expect(try await updater.update() == .updated(from: 1, to: 1, files: 0, bytes: 0))

        #expect(fixture.transport.requested == ["manifest.json", again.signaturePath])
        #expect(fixture.activeManifest == again.manifestBytes)
        // The next update asks with the new manifest's ETag.
        fixture.transport.clearLog()
        #expect(try await updater.update() == .upToDate)
        #expect(fixture.transport.log.first?.request.headers["If-None-Match"] == again.etag)
    }

    @Test func anExpiredManifestIsRefused() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(published)
        fixture.clock.date = try #require(ISO8601DateFormatter().date(from: TestPublisher.expires))

        #expect(await failure(of: try fixture.updater()) == .expired(expires: TestPublisher.expires))

        Self.expectUnchanged(fixture, active: nil, requested: ["manifest.json", published.signaturePath])
    }

    @Test(arguments: [true, false])
    func anExpiredActiveManifestIsExpiredWhenTheServerHasNothingNewer(notModified: Bool) async throws {
        let (fixture, v1) = try await Self.activeFixture()
        fixture.transport.answersNotModified = notModified
        fixture.clock.date = try #require(ISO8601DateFormatter().date(from: TestPublisher.expires)) + 1

        #expect(await failure(of: try fixture.updater()) == .expired(expires: TestPublisher.expires))

        // A 304 for an expired manifest is checked with the manifest fetched whole.
        #expect(fixture.transport.log.map(\.status) == (notModified ? [304, 200] : [200]))
        if notModified { #expect(fixture.transport.log.last?.request.headers["If-None-Match"] == nil) }
        Self.expectUnchanged(
            fixture, active: v1, requested: notModified ? ["manifest.json", "manifest.json"] : ["manifest.json"])
    }

    /// A host whose ETag is weak (nginx's: the time and the size) may answer 304 for a new
    /// manifest of the same size published within the second; past the old one's expiry the
    /// updater asks again without `If-None-Match`, and finds it.
    @Test func aStale304IsFoundOutWhenTheActiveManifestExpires() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2, expires: "2026-09-01T00:00:00Z")
        fixture.transport.publish(v2)
        fixture.transport.serve(v2.manifestBytes, at: "manifest.json", etag: v1.etag)
        let updater = try fixture.updater()
        #expect(try await updater.update() == .upToDate, "before the expiry, the 304 is believed")

        fixture.clock.date = try #require(ISO8601DateFormatter().date(from: TestPublisher.expires)) + 1
        guard case .updated(from: 1, to: 2, _, _) = try await updater.update() else {
            Issue.record("the new manifest was not taken")
            return
        }
        #expect(fixture.activeManifest == v2.manifestBytes)
    }

    @Test func anUnsupportedSchemaMajorIsRefused() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        fixture.transport.publish(try TestPublisher.publish(TestContent.sailing(), version: 2, schemaVersion: "2.0"))

        #expect(await failure(of: try fixture.updater()) == .unsupportedSchema(version: "2.0"))

        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json"])
    }

    // MARK: - Signatures

    @Test func anUnsignedManifestIsRefusedUnlessAllowed() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(TestContent.sailing(), version: 1, signers: [])
        fixture.transport.publish(published)

        #expect(await failure(of: try fixture.updater())?.name == "signature")
        Self.expectUnchanged(fixture, active: nil, requested: ["manifest.json"])

        fixture.transport.clearLog()
        let result = try await fixture.updater(allowUnsigned: true).update()
        #expect(
            result
                == .updated(
                    from: nil, to: 1, files: published.files.count,
                    bytes: published.bytes))
        #expect(fixture.storedFiles == Set(published.files.keys).union(["manifest.json"]))
    }

    /// `allowUnsigned` is for development servers: it does not let a server strip the signature
    /// of a store that holds a signed set.
    @Test func anUnsignedManifestDoesNotReplaceASignedSetEvenWhenAllowed() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        fixture.transport.publish(try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2, signers: []))

        let error = await failure(of: try fixture.updater(allowUnsigned: true))

        #expect(error?.name == "signature", "\(String(describing: error))")
        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json"])
    }

    @Test func aManifestSignedByAnUntrustedKeyIsRefused() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(
            TestContent.sailing(), version: 1, signers: [TestPublisher.strangerKey])
        fixture.transport.publish(published)

        #expect(await failure(of: try fixture.updater())?.name == "signature")

        Self.expectUnchanged(fixture, active: nil, requested: ["manifest.json", published.signaturePath])
    }

    @Test func anAlteredManifestIsRefused() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        // One byte of the title changed, and the signature copied to where the altered
        // manifest's would be.
        var altered = v2.manifestBytes
        let title = try #require(altered.range(of: Data(#""title":"Sailing""#.utf8)))
        altered[title.upperBound - 2] = UInt8(ascii: "n")
        let path = ManifestSignature.path(forManifest: altered)
        fixture.transport.publish(v2)
        fixture.transport.serve(altered, at: "manifest.json", etag: "\"altered\"")
        fixture.transport.serve(try #require(v2.signature), at: path)

        #expect(await failure(of: try fixture.updater())?.name == "signature")

        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json", path])
    }

    @Test func aMissingSignatureFileIsASignatureFailure() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        fixture.transport.publish(v2)
        fixture.transport.remove(v2.signaturePath)

        #expect(await failure(of: try fixture.updater())?.name == "signature")

        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json", v2.signaturePath])
    }

    @Test func anUnreadableSignatureFileIsASignatureFailure() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        fixture.transport.publish(v2)
        fixture.transport.serve(Data("<html>Not found</html>".utf8), at: v2.signaturePath)

        #expect(await failure(of: try fixture.updater())?.name == "signature")

        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json", v2.signaturePath])
    }

    @Test func aRotatedKeyIsTrustedThroughTheManifestSignedByBoth() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(
            TestContent.sailing(), version: 1, signers: [TestPublisher.key, TestPublisher.nextKey])
        fixture.transport.publish(published)
        let updater = try fixture.updater(trusting: [TestPublisher.trusted(TestPublisher.nextKey)])

        #expect(
            try await updater.update()
                == .updated(
                    from: nil, to: 1, files: published.files.count,
                    bytes: published.bytes))
        #expect(try updater.activeBundle()?.manifest.signedBy?.count == 2)
    }

    @Test func aSignatureByATrustedKeyTheManifestDoesNotNameIsRefused() async throws {
        let fixture = try UpdaterFixture()
        // The signature file holds both keys' signatures; the manifest names only the old key.
        let published = try TestPublisher.publish(
            TestContent.sailing(), version: 1, signers: [TestPublisher.key, TestPublisher.nextKey],
            signedBy: [TestPublisher.id(of: TestPublisher.key)])
        fixture.transport.publish(published)
        let updater = try fixture.updater(trusting: [TestPublisher.trusted(TestPublisher.nextKey)])

        #expect(await failure(of: updater)?.name == "signature")

        Self.expectUnchanged(fixture, active: nil, requested: ["manifest.json", published.signaturePath])
    }

    @Test func aSignedManifestWithoutAVersionOrExpiryIsInvalid() async throws {
        let fixture = try UpdaterFixture()
        fixture.transport.publish(try TestPublisher.publish(TestContent.sailing(), version: nil, expires: nil))

        #expect(await failure(of: try fixture.updater())?.name == "invalidManifest")

        #expect(fixture.activeManifest == nil)
    }

    // MARK: - Paths

    @Test(arguments: [
        "../x", "manifest.json", "signatures/x.json", ".locker-sync/state.json", "guide//x.json", "Manifest.json",
        "SIGNATURES/x.json",
    ])
    func aManifestListingAPathTheStoreMustNotWriteIsInvalid(path: String) async throws {
        let (fixture, v1) = try await Self.activeFixture()
        let state = fixture.state
        let everything = fixture.everything
        var content = try TestContent.sailing(edition: 2)
        content.entries.append(.init(path: path, kind: "asset", locale: nil, id: nil, lists: nil, data: Data("x".utf8)))
        let v2 = try TestPublisher.publish(content, version: 2)
        fixture.transport.publish(v2)

        let error = await failure(of: try fixture.updater())

        #expect(error?.name == "invalidManifest", "\(String(describing: error))")
        // The signature is checked first; the paths when the files are decoded.
        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json", v2.signaturePath])
        #expect(fixture.everything == everything, "nothing written in the store or beside it")
        #expect(fixture.state == state)
    }

    @Test func aManifestListingAPathTwiceWithDifferentHashesIsInvalid() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        var content = try TestContent.sailing(edition: 2)
        for text in ["one", "two"] {
            content.entries.append(
                .init(path: "assets/twice.png", kind: "asset", locale: nil, id: nil, lists: nil, data: Data(text.utf8)))
        }
        let v2 = try TestPublisher.publish(content, version: 2)
        fixture.transport.publish(v2)

        #expect(await failure(of: try fixture.updater())?.name == "invalidManifest")

        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json", v2.signaturePath])
    }

    /// A manifest that lists a path of the active set with other bytes would have the file
    /// written over before the new set is whole: refused, and the active set stays whole.
    @Test func aManifestChangingTheBytesOfAnActivePathIsInvalid() async throws {
        let (fixture, v1) = try await Self.activeFixture()
        var content = try TestContent.sailing(edition: 2)
        let asset = try #require(content.entries.firstIndex { $0.kind == "asset" })
        content.entries[asset].data = Data("other bytes".utf8)
        let v2 = try TestPublisher.publish(content, version: 2)
        fixture.transport.publish(v2)

        let error = await failure(of: try fixture.updater())

        #expect(error?.name == "invalidManifest", "\(String(describing: error))")
        Self.expectUnchanged(fixture, active: v1, requested: ["manifest.json", v2.signaturePath])
        #expect(try fixture.updater().activeBundle() != nil, "the active set still verifies")
    }

    /// A set signed by a key the app no longer trusts (stolen, and rotated out by an app
    /// release) is no floor for versions: a trusted manifest of a lower version replaces it.
    @Test func aSetSignedByAKeyNoLongerTrustedIsReplacedWhateverItsVersion() async throws {
        let fixture = try UpdaterFixture()
        let stolen = try TestPublisher.publish(
            TestContent.sailing(edition: 2), version: 9_999_999_999, signers: [TestPublisher.strangerKey])
        fixture.transport.publish(stolen)
        let before = try [TestPublisher.trusted(TestPublisher.key), TestPublisher.trusted(TestPublisher.strangerKey)]
        _ = try await fixture.updater(trusting: before).update()
        #expect(fixture.activeManifest == stolen.manifestBytes)
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 3), version: 2)
        fixture.transport.publish(v2)

        let result = try await fixture.updater().update()

        guard case .updated(from: 9_999_999_999, to: 2, _, _) = result else {
            Issue.record("expected an update from the distrusted set, got \(result)")
            return
        }
        #expect(fixture.activeManifest == v2.manifestBytes)
    }
}
