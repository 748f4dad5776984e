import Foundation
import LockerKit
import Testing

/// ``ContentUpdater`` keeping some locales (``Manifest/files(forLocales:)``), and installing a
/// seed bundle.
@Suite struct ContentUpdaterLocaleTests {
    /// What a reader of English needs of ``TestContent/sailing(edition:)``: the English indexes
    /// and documents, the Russian-only `harbour`, and the asset.
    static func englishReader(_ content: TestContent) -> Set<String> {
        content.paths { $0.locale == "en" || $0.locale == nil || $0.id == "harbour" }
    }

    // MARK: - Manifest.files(forLocales:)

    @Test func filesForLocalesKeepEachDocumentsBestVersionTheIndexesAndTheAssets() throws {
        let content = try TestContent.sailing()
        let manifest = try TestPublisher.publish(content, version: 1).manifest
        func paths(_ locales: [String]?) -> Set<String> { Set(manifest.files(forLocales: locales).map(\.path)) }

        #expect(manifest.files(forLocales: nil) == manifest.files)
        #expect(paths(["en", "ru"]) == content.paths())
        #expect(paths(["en"]) == Self.englishReader(content))
        // Russian readers get the English-only deck.
        #expect(paths(["ru"]) == content.paths { $0.locale == "ru" || $0.locale == nil || $0.id == "flags" })
        #expect(paths([]) == content.paths { $0.locale == nil })
        // The order is the manifest's.
        #expect(manifest.files(forLocales: ["en"]) == manifest.files.filter { paths(["en"]).contains($0.path) })
    }

    /// A reader of a locale the bundle lacks reads the default locale's documents, and
    /// ``ContentBundle/index(of:locale:)`` gives it the default locale's index when it has
    /// every file; keeping the files of that locale alone keeps that index too.
    @Test func filesForALocaleTheBundleLacksKeepTheIndexesItsReaderIsGiven() throws {
        let content = try TestContent.sailing()
        let manifest = try TestPublisher.publish(content, version: 1).manifest
        let kept = Set(manifest.files(forLocales: ["de"]).map(\.path))

        #expect(kept.isSuperset(of: content.paths { $0.locale == "ru" && $0.kind != "index" }))
        #expect(kept.isSuperset(of: content.paths { $0.locale == "ru" && $0.kind == "index" }))
        #expect(!kept.contains { $0.hasPrefix("guide/en/index") }, "the indexes of the default locale only")
    }

    // MARK: - Locales

    @Test func anUpdaterKeepingEnglishDownloadsWhatAnEnglishReaderNeeds() async throws {
        let fixture = try UpdaterFixture()
        let content = try TestContent.sailing()
        let published = try TestPublisher.publish(content, version: 1)
        fixture.transport.publish(published)
        let updater = try fixture.updater(locales: ["en"])

        _ = try await updater.update()

        let wanted = Self.englishReader(content)
        #expect(Set(fixture.transport.requested) == wanted.union(["manifest.json", published.signaturePath]))
        #expect(fixture.storedFiles == wanted.union(["manifest.json", published.signaturePath]))
        let bundle = try #require(try updater.activeBundle())
        #expect(bundle.openedLocales == ["en"])
        #expect(try bundle.guide(id: "briefing", locale: "en").locale == "en")
        #expect(try bundle.guide(id: "harbour", locale: "en").locale == "ru")
        #expect(try bundle.index(of: .guide, locale: "en")?.locale == "en")
        #expect(try bundle.checklists(locale: "en").map(\.locale) == ["en"])
        #expect(try bundle.asset(at: try #require(content.paths { $0.kind == "asset" }.first)) == HandBundle.asset)
    }

    @Test func keepingEveryLocaleLaterDownloadsTheRestOfAnUnchangedManifest() async throws {
        let fixture = try UpdaterFixture()
        let content = try TestContent.sailing()
        let published = try TestPublisher.publish(content, version: 1)
        fixture.transport.publish(published)
        _ = try await fixture.updater(locales: ["en"]).update()
        fixture.transport.clearLog()
        let rest = content.paths().subtracting(Self.englishReader(content))
        let updater = try fixture.updater(locales: nil)

        let result = try await updater.update()

        #expect(
            result
                == .updated(
                    from: 1, to: 1, files: rest.count, bytes: ContentUpdaterTests.bytes(of: rest, in: published)))
        let log = fixture.transport.log
        #expect(log.first?.request.headers["If-None-Match"] == nil, "the active manifest is fetched whole")
        #expect(Set(log.map(\.path)) == rest.union(["manifest.json", published.signaturePath]))
        #expect(fixture.storedFiles == ContentUpdaterTests.stored(published))
        let bundle = try #require(try updater.activeBundle())
        #expect(bundle.openedLocales == nil)
        #expect(try bundle.guide(id: "briefing", locale: "ru").locale == "ru")
        // And the next update is a 304 again.
        #expect(try await updater.update() == .upToDate)
    }

    @Test func narrowingTheLocalesKeptFreesTheOthersAtTheUpdateAfterNext() async throws {
        let fixture = try UpdaterFixture()
        let content = try TestContent.sailing()
        let v1 = try TestPublisher.publish(content, version: 1)
        fixture.transport.publish(v1)
        _ = try await fixture.updater(locales: nil).update()
        let english = try fixture.updater(locales: ["en"])

        // The same manifest, fetched again for the new locales: the previous set (every locale)
        // is still whole for a reader that opened it.
        _ = try await english.update()
        #expect(fixture.storedFiles == ContentUpdaterTests.stored(v1))

        // The next set goes, and with it the other locales' files.
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        fixture.transport.publish(v2)
        _ = try await english.update()
        let englishFiles = Set(v2.manifest.files(forLocales: ["en"]).map(\.path))
        #expect(
            fixture.storedFiles
                == englishFiles.union(["manifest.json", v2.signaturePath]).union(
                    Self.englishReader(content)
                ).union([v1.signaturePath]))
        #expect(!fixture.storedFiles.contains { $0.hasPrefix("checklist/ru/") && !englishFiles.contains($0) })
    }

    // MARK: - Seeds

    @Test func aSeedIsInstalledOnFirstUseWithoutTheNetwork() async throws {
        let fixture = try UpdaterFixture()
        let seeded = try TestPublisher.publish(TestContent.sailing(), version: 1)
        let updater = try fixture.updater(seed: fixture.seed(seeded))

        #expect(try await updater.installSeed())

        #expect(fixture.transport.requested.isEmpty)
        #expect(fixture.storedFiles == ContentUpdaterTests.stored(seeded))
        #expect(try updater.activeBundle()?.manifest == seeded.manifest)
        // Installed once: a second call finds it active.
        #expect(try await !updater.installSeed())
    }

    @Test func anUpdateInstallsTheSeedBeforeAskingTheServer() async throws {
        let fixture = try UpdaterFixture()
        let seeded = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.fail(.notConnectedToInternet, at: "manifest.json")
        let updater = try fixture.updater(seed: fixture.seed(seeded))

        #expect(await failure(of: updater)?.name == "network")

        #expect(fixture.transport.requested == ["manifest.json"])
        #expect(try updater.activeBundle()?.manifest == seeded.manifest)
    }

    @Test func aSeedIsNotInstalledOverANewerSet() async throws {
        let fixture = try UpdaterFixture()
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        fixture.transport.publish(v2)
        _ = try await fixture.updater().update()
        let seed = try fixture.seed(TestPublisher.publish(TestContent.sailing(edition: 1), version: 1))
        let before = fixture.storedFiles
        let updater = try fixture.updater(seed: seed)

        #expect(try await !updater.installSeed())
        #expect(try await updater.update() == .upToDate)

        #expect(fixture.activeManifest == v2.manifestBytes)
        #expect(fixture.storedFiles == before)
    }

    @Test func aSeedIsInstalledOverAnOlderSet() async throws {
        let fixture = try UpdaterFixture()
        let v1 = try TestPublisher.publish(TestContent.sailing(edition: 1), version: 1)
        fixture.transport.publish(v1)
        _ = try await fixture.updater().update()
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        let updater = try fixture.updater(seed: fixture.seed(v2))
        fixture.transport.clearLog()

        #expect(try await updater.installSeed())

        #expect(fixture.transport.requested.isEmpty)
        #expect(fixture.activeManifest == v2.manifestBytes)
        #expect(try updater.activeBundle()?.manifest == v2.manifest)
        // The set it replaced is kept as the previous one.
        #expect(fixture.storedFiles == ContentUpdaterTests.stored(v1).union(ContentUpdaterTests.stored(v2)))
    }

    /// An app that opened its bundle before `update()` opens it again on `.updated`: an update
    /// that installed the seed says so, even when the server has nothing newer.
    @Test func anUpdateThatInstallsTheSeedSaysItUpdated() async throws {
        let fixture = try UpdaterFixture()
        let seeded = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(seeded)
        let updater = try fixture.updater(seed: fixture.seed(seeded))

        #expect(try await updater.update() == .updated(from: nil, to: 1, files: 0, bytes: 0))
        #expect(try await updater.update() == .upToDate)
    }

    @Test func aSeedKeepsOnlyTheLocalesKept() async throws {
        let fixture = try UpdaterFixture()
        let content = try TestContent.sailing()
        let seeded = try TestPublisher.publish(content, version: 1)
        let updater = try fixture.updater(locales: ["en"], seed: fixture.seed(seeded))

        #expect(try await updater.installSeed())

        #expect(fixture.storedFiles == Self.englishReader(content).union(["manifest.json", seeded.signaturePath]))
        #expect(try updater.activeBundle()?.openedLocales == ["en"])
    }
}
