import ArgumentParser
import Foundation
import LockerCore

extension DiagnosticPrinter.Format: ExpressibleByArgument {}

/// `locker check`: validation for CI, writing nothing.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a vault and report every problem; writes nothing.",
        discussion: """
            Prints each problem as 'path:line:col: severity: message [code]'. Use --format github \
            in GitHub Actions to see them as annotations on the pull request, --format sarif for \
            code scanning (a SARIF 2.1.0 log), or --format json for tools.

            With --changed-since REV (a commit, branch or tag), the whole vault is checked but only \
            the problems the changes since REV are answerable for are reported: those in the \
            vault's files changed since REV (committed since, staged, unstaged, or new and not \
            ignored), and those in other files that the vault did not have at REV (a link broken by \
            a renamed note or a removed heading). The vault must be in a git repository; changes \
            count from where REV's history meets HEAD's (git merge-base). The exit status follows \
            the problems reported.

            Examples:
              locker check
              locker check path/to/vault --strict --format github
              locker check content --changed-since origin/main --format sarif > locker.sarif
            """)

    @OptionGroup var options: VaultOptions

    @Option(help: "How to print problems: text, json, github (workflow annotations), or sarif.")
    var format: DiagnosticPrinter.Format = .text

    @Option(
        name: .customLong("changed-since"),
        help: ArgumentHelp(
            "Report only the problems in files changed since this git revision, and those the changes caused in other files.",
            valueName: "rev"))
    var changedSince: String?

    @Flag(help: "Print how long each phase took, to standard error.")
    var timings = false

    func run() throws {
        // Asked of git before the vault is read: a revision it does not know is bad usage.
        let changes = try changedSince.map { try VaultChanges.since($0, vault: options.url) }
        let progress = ProgressLine(timings: timings)
        let compiler = Compiler(
            vault: options.url, strict: options.strict, environment: ProcessInfo.processInfo.environment, emit: false,
            progress: progress)
        let compilation = try compiler.compile()
        var reported = compilation.diagnostics
        var leftOut: DiagnosticPrinter.LeftOut?
        if let changes {
            reported = changes.reported(compilation.diagnostics, baseline: try changes.baseline(checkedAs: compiler))
            leftOut = .init(base: changes.base, count: compilation.diagnostics.count - reported.count)
        }
        progress.finish()
        let printer = DiagnosticPrinter(format: format, pathPrefix: options.displayPrefix)
        let output = printer.render(reported, notesChecked: compilation.noteCount, leftOut: leftOut)
        FileHandle.standardOutput.write(Data(output.utf8))
        exitKeeping(compilation, status: reported.contains { $0.severity == .error } ? 1 : 0)
    }
}
