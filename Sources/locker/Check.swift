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
            in GitHub Actions to see them as annotations on the pull request, or --format json for tools.

            Examples:
              locker check
              locker check path/to/vault --strict --format github
            """)

    @OptionGroup var options: VaultOptions

    @Option(help: "How to print problems: text, json, or github (workflow annotations).")
    var format: DiagnosticPrinter.Format = .text

    @Flag(help: "Print how long each phase took, to standard error.")
    var timings = false

    func run() throws {
        let progress = ProgressLine(timings: timings)
        let compiler = Compiler(
            vault: options.url, strict: options.strict, environment: ProcessInfo.processInfo.environment, emit: false,
            progress: progress)
        let compilation = try compiler.compile()
        progress.finish()
        let printer = DiagnosticPrinter(format: format, pathPrefix: options.displayPrefix)
        let output = printer.render(compilation.diagnostics, notesChecked: compilation.noteCount)
        FileHandle.standardOutput.write(Data(output.utf8))
        exitKeeping(compilation, status: compilation.failed ? 1 : 0)
    }
}
