import Foundation
import Testing

/// A vault as a new user brings it: a repository's folder of notes with no `locker.yml`, a
/// README that links to a project beside it, checklists in a folder named for them.
@Suite struct ZeroConfigVaultTests {
    static let handbook = [
        "README.md": "# Boat handbook\n\nNotes feeding the [`boat-mcp`](../boat-mcp) server.\n",
        "docs/index.md": "# Handbook\n\n- [[mob|Man overboard]]\n- [[fire]]\n",
        "docs/checklists/index.md": "# Emergency checklists\n\nOne note per emergency.\n",
        "docs/checklists/mob.md": "# Man overboard\n\n1. Shout and point.\n2. Throw the ring.\n",
        "docs/checklists/fire.md": "# Fire\n\n1. Raise the alarm.\n2. Fuel off.\n",
    ]

    @Test func buildsWithTheChecklistFolderPointedOutFirstAndTheOutsideLinkAsText() throws {
        let workspace = try Workspace(Self.handbook)
        defer { workspace.remove() }
        let build = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let lines = build.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(5)) == [
                "vault/docs/checklists/fire.md:1:1: note: docs/checklists/ is named for checklists, but 3 notes in it are built as guides [config.kind-folder]",
                "  hint: to build them as checklists, make a locker.yml holding: kinds: {docs/checklists: checklist}",
                "vault/README.md:3:19: warning: link '../boat-mcp' leads outside the vault: kept as its text [link.leaves-vault]",
                "  hint: apps and the site hold only the vault: link to a web address (https://…) instead",
                "5 notes checked: 0 errors, 1 warning.",
            ])
        #expect(lines.count > 5 && lines[5].hasPrefix("Built 5 guides, 0 checklists and 0 decks"), "\(build.stdout)")
        let readme = String(decoding: try workspace.read("out/site/guides/readme/index.html"), as: UTF8.self)
        #expect(readme.contains("Notes feeding the <code>boat-mcp</code> server."), "\(readme)")
        #expect(try workspace.read("out/site/guides/docs/checklists/mob/index.html").count > 0)

        // Unchanged: the same report, from the last build.
        let again = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(again.stdout.hasPrefix(lines.prefix(5).joined(separator: "\n") + "\nUp to date."), "\(again.stdout)")
        // The note never fails a run; the warning does under --strict.
        let strict = try LockerRun(["check", "vault", "--strict"], in: workspace.root)
        #expect(strict.status == 1)
        #expect(
            strict.stdout.hasPrefix("vault/docs/checklists/fire.md:1:1: note: docs/checklists/"), "\(strict.stdout)")
        #expect(strict.stdout.contains("vault/README.md:3:19: error: link '../boat-mcp' leads outside the vault"))

        // Renamed away, and back: a rebuild over the output says what a clean build says.
        let vault = workspace.root.appendingPathComponent("vault/docs")
        try FileManager.default.moveItem(
            at: vault.appendingPathComponent("checklists"), to: vault.appendingPathComponent("emergencies"))
        let away = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(away.status == 0)
        #expect(away.stdout.hasPrefix("vault/README.md:3:19: warning:"), "\(away.stdout)")
        try FileManager.default.moveItem(
            at: vault.appendingPathComponent("emergencies"), to: vault.appendingPathComponent("Checklists"))
        let back = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(
            back.stdout.hasPrefix(
                "vault/docs/Checklists/fire.md:1:1: note: docs/Checklists/ is named for checklists, but 3 notes in it are built as guides"
            ), "\(back.stdout)")
    }
}
