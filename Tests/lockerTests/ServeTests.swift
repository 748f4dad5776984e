import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `locker serve` as an author uses it: the real binary on a free port, real HTTP, a real browser.
@Suite(.serialized) struct ServeTests {
    /// A running `locker serve`, stopped by ``stop()``.
    final class Server: @unchecked Sendable {
        let process = Process()
        let address: URL
        private let errors = Pipe()

        init(vault: String, in folder: URL) throws {
            let output = Pipe()
            process.executableURL = LockerRun.binary
            process.arguments = ["serve", vault, "--port", "0"]
            process.currentDirectoryURL = folder
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // The first line names the address: "Serving vault at http://127.0.0.1:PORT/ (Ctrl-C stops)".
            var line = Data()
            let deadline = Date().addingTimeInterval(60)
            while !line.contains(0x0A), Date() < deadline, process.isRunning {
                line += output.fileHandleForReading.availableData
            }
            let text = String(decoding: line, as: UTF8.self)
            guard let range = text.range(of: #"http://[0-9.]+:[0-9]+/"#, options: .regularExpression),
                let url = URL(string: String(text[range]))
            else {
                process.terminate()
                throw ServeError.noAddress(text)
            }
            address = url
        }

        func stop() -> String {
            process.terminate()
            process.waitUntilExit()
            return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    enum ServeError: Error { case noAddress(String) }

    /// One request; the status, headers and body.
    static func get(_ url: URL, headers: [String: String] = [:]) throws -> (Int, [String: String], Data) {
        var request = URLRequest(url: url)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, [String: String], Data)?
        nonisolated(unsafe) var failure: (any Error)?
        let session = URLSession(configuration: .ephemeral)
        session.dataTask(with: request) { data, response, error in
            if let response = response as? HTTPURLResponse {
                var fields: [String: String] = [:]
                for (name, value) in response.allHeaderFields {
                    fields[String(describing: name).lowercased()] = String(describing: value)
                }
                result = (response.statusCode, fields, data ?? Data())
            }
            failure = error
            done.signal()
        }.resume()
        done.wait()
        if let failure { throw failure }
        return try #require(result)
    }

    @Test func servesTheSiteAndBundlesWithETagsAndRebuildsOnSave() throws {
        let workspace = try Workspace([
            "anchoring.md": "---\ntitle: Anchoring\n---\nLet go in [[mooring]].\n",
            "mooring.md": "---\ntitle: Mooring\n---\nStern-to.\n",
        ])
        defer { workspace.remove() }
        let server = try Server(vault: "vault", in: workspace.root)
        var log = ""
        defer { if server.process.isRunning { log = server.stop() } }

        let (status, headers, body) = try Self.get(server.address.appendingPathComponent("guides/anchoring/"))
        #expect(status == 200)
        #expect(headers["content-type"] == "text/html; charset=utf-8")
        #expect(String(decoding: body, as: UTF8.self).contains("<h1>Anchoring</h1>"))
        #expect(String(decoding: body, as: UTF8.self).contains("/_locker/reload.js"))

        let manifestURL = server.address.appendingPathComponent("bundles/v1/manifest.json")
        let (_, manifestHeaders, _) = try Self.get(manifestURL)
        let etag = try #require(manifestHeaders["etag"])
        #expect(etag.hasPrefix("\"sha256-"))
        #expect(manifestHeaders["cache-control"] == "no-cache")
        #expect(try Self.get(manifestURL, headers: ["If-None-Match": etag]).0 == 304)
        #expect(try Self.get(manifestURL, headers: ["If-None-Match": "\"sha256-other\""]).0 == 200)

        // A save: rebuilt in memory, served, and nothing written into the vault.
        try Data("---\ntitle: Anchoring at night\n---\nShow the [[nowhere]] light.\n".utf8)
            .write(to: workspace.root.appendingPathComponent("vault/anchoring.md"))
        var page = ""
        for _ in 0..<100 where !page.contains("<h1>Anchoring at night</h1>") {
            Thread.sleep(forTimeInterval: 0.1)
            page = String(
                decoding: try Self.get(server.address.appendingPathComponent("guides/anchoring/")).2, as: UTF8.self)
        }
        #expect(page.contains("<h1>Anchoring at night</h1>"))
        #expect(page.contains("no note named &#39;nowhere&#39;") || page.contains("no note named 'nowhere'"))
        #expect(try Self.get(manifestURL, headers: ["If-None-Match": etag]).0 == 200, "the manifest changed")
        let contents = try FileManager.default.subpathsOfDirectory(
            atPath: workspace.root.appendingPathComponent("vault").path)
        #expect(contents.sorted() == ["anchoring.md", "mooring.md"])

        log = server.stop()
        #expect(log.contains("vault/anchoring.md:4:10: warning: no note named 'nowhere' [link.broken]"))
    }

    /// What the watcher must see: a note in a folder made while serving (watched only once a walk
    /// has listed it), a note rewritten in place with the same size, a folder removed; each
    /// within a few seconds.
    @Test func notesInNewFoldersAndInPlaceEditsAreBuilt() throws {
        let workspace = try Workspace(["anchoring.md": "---\ntitle: Anchoring\n---\nLet go.\n"])
        defer { workspace.remove() }
        let server = try Server(vault: "vault", in: workspace.root)
        defer { if server.process.isRunning { _ = server.stop() } }
        let vault = workspace.root.appendingPathComponent("vault")
        func page(_ path: String, until done: (Int, String) -> Bool) throws -> (Int, String) {
            var last = (0, "")
            for _ in 0..<100 {
                let (status, _, body) = try Self.get(server.address.appendingPathComponent(path))
                last = (status, String(decoding: body, as: UTF8.self))
                if done(last.0, last.1) { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return last
        }
        #expect(try page("guides/anchoring/") { status, _ in status == 200 }.0 == 200)

        try FileManager.default.createDirectory(
            at: vault.appendingPathComponent("night/lights"), withIntermediateDirectories: true)
        try Data("---\ntitle: Lights\n---\nMasthead.\n".utf8)
            .write(to: vault.appendingPathComponent("night/lights/lights.md"))
        #expect(try page("guides/night/lights/lights/") { status, _ in status == 200 }.1.contains("<h1>Lights</h1>"))

        // The same size, written in place (no new inode).
        let handle = try FileHandle(forWritingTo: vault.appendingPathComponent("night/lights/lights.md"))
        try handle.seek(toOffset: 11)
        try handle.write(contentsOf: Data("Beacon".utf8))
        try handle.close()
        let edited = try page("guides/night/lights/lights/") { _, body in body.contains("<h1>Beacon</h1>") }
        #expect(edited.1.contains("<h1>Beacon</h1>"))

        try FileManager.default.removeItem(at: vault.appendingPathComponent("night"))
        #expect(try page("guides/night/lights/lights/") { status, _ in status == 404 }.0 == 404)
    }

    /// A folder renamed to a name that says checklists is pointed out by the build the rename
    /// starts, as `locker build` would.
    @Test func aFolderRenamedForAKindIsPointedOutByTheNextBuild() throws {
        let workspace = try Workspace(["procedures/fire.md": "# Fire\n\n1. Raise the alarm.\n"])
        defer { workspace.remove() }
        let server = try Server(vault: "vault", in: workspace.root)
        defer { if server.process.isRunning { _ = server.stop() } }
        let vault = workspace.root.appendingPathComponent("vault")
        try FileManager.default.moveItem(
            at: vault.appendingPathComponent("procedures"), to: vault.appendingPathComponent("checklists"))
        var status = 0
        for _ in 0..<100 where status != 200 {
            Thread.sleep(forTimeInterval: 0.1)
            status = try Self.get(server.address.appendingPathComponent("guides/checklists/fire/")).0
        }
        #expect(status == 200)
        let log = server.stop()
        let note =
            "vault/checklists/fire.md:1:1: note: checklists/ is named for checklists, but 1 note in it is built as a guide [config.kind-folder]"
        #expect(log.components(separatedBy: note).count == 2, "once, after the rename: \(log)")
    }

    @Test func badUsageExitsWithTwoBeforeServing() throws {
        let workspace = try Workspace(["a.md": "Hello.\n"])
        defer { workspace.remove() }
        let missing = try LockerRun(["serve", "nowhere", "--port", "0"], in: workspace.root)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no vault folder at nowhere"))
        let badURL = try LockerRun(["serve", "vault", "--port", "0", "--base-url", "ftp://x"], in: workspace.root)
        #expect(badURL.status == 2)
        #expect(badURL.stderr.contains("--base-url must be an http:// or https:// URL"))
        #expect(try LockerRun(["serve", "vault", "--port", "70000"], in: workspace.root).status == 2)
    }

    /// The reload script exists only in `serve`: a build's pages never carry it.
    @Test func builtPagesHaveNoReloadScript() throws {
        let workspace = try Workspace(["a.md": "Hello.\n"])
        defer { workspace.remove() }
        #expect(try LockerRun(["build", "vault", "--out", "out"], in: workspace.root).status == 0)
        let page = String(decoding: try workspace.read("out/site/guides/a/index.html"), as: UTF8.self)
        #expect(page.contains("Hello."))
        #expect(!page.contains("_locker"))
    }

    /// Headless Chromium keeps a page open while the note behind it is saved: the page reloads
    /// by itself and shows the edit.
    @Test func anOpenPageReloadsInChromiumWhenItsNoteIsSaved() throws {
        let workspace = try Workspace(["anchoring.md": "---\ntitle: Anchoring\n---\nLet go.\n"])
        defer { workspace.remove() }
        let server = try Server(vault: "vault", in: workspace.root)
        defer { _ = server.stop() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("browser/check_reload.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", script.path, server.address.appendingPathComponent("guides/anchoring/").absoluteString,
            workspace.root.appendingPathComponent("vault/anchoring.md").path,
            "---\ntitle: Anchoring, revised\n---\nLet go and back down.\n", "Anchoring, revised",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("\"reloaded\": true"), "\(output)")
    }
}
