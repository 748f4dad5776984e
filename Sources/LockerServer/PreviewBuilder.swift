import Foundation
import LockerCore
import LockerKit

/// Builds the vault into memory for ``PreviewServer``, each build over the last good one's output
/// as `locker build` builds over its output folder: what did not change is kept from it.
struct PreviewBuilder: Sendable {
    var options: PreviewServer.Options
    /// The builds so far, the last good one's output kept for the next.
    private let builds = MemoryBuilds()

    /// Builds the vault; returns what to serve and the report for the terminal.
    ///
    /// A failed build keeps serving the previous pages with the new problems over them.
    ///
    /// - Parameter fingerprint: the watcher's fingerprint that called for this build: its stamps
    ///   of the vault's files stand in for a `stat` per note.
    func build(previous: PreviewSite?, taking fingerprint: BuildFingerprint? = nil) -> (PreviewSite, String) {
        let start = DispatchTime.now().uptimeNanoseconds
        let generation = (previous?.generation ?? 0) + 1
        let timer = options.timings ? PhaseTimer() : nil
        let compiler = Compiler(
            vault: options.vault, strict: options.strict, environment: ProcessInfo.processInfo.environment,
            baseURL: options.baseURL, progress: timer)
        /// What a failed build serves: the last good pages with its problems, or a page saying so.
        func failed(problems: [String], summary: String) -> PreviewSite {
            previous?.failing(problems: problems, summary: summary, generation: generation)
                ?? PreviewSite.failedPage(problems: problems, summary: summary, generation: generation)
        }
        let compilation: Compilation
        let output: MemoryOutput
        do {
            (compilation, output) = try builds.build(compiler, taking: fingerprint)
        } catch {
            let problem = "\(error)"
            return (failed(problems: [problem], summary: "the vault cannot be read"), "locker: \(problem)\n")
        }
        let printer = DiagnosticPrinter(format: .text, pathPrefix: options.displayPrefix)
        let report = printer.render(compilation.diagnostics, notesChecked: compilation.noteCount)
        let summary = DiagnosticPrinter.summary(compilation.diagnostics, notesChecked: compilation.noteCount)
        let problems = Self.problems(compilation.diagnostics, printer: printer)
        let milliseconds = (DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        var site: PreviewSite
        var status: String
        if compilation.failed {
            site = failed(problems: problems, summary: summary)
            status = "Build failed in \(milliseconds) ms; still serving the last good build."
        } else {
            site = PreviewSite(
                files: output.written, problems: problems, summary: summary, failed: false, generation: generation)
            // The files unsorted: the preview looks them up by path.
            // Checklists, decks and landing pages are always built; a guide is kept when nothing
            // it was made from changed.
            let (built, kept) = (compilation.builtDocuments, compilation.keptGuides.count)
            status =
                "Built \(compilation.sitePageCount) pages in \(milliseconds) ms"
                + (previous == nil
                    ? "." : " (\(built) \(built == 1 ? "document" : "documents") built again, \(kept) kept).")
        }
        if let previous, site.serves(sameAs: previous) {
            // Nothing a page shows changed (a save without an edit): no reload.
            site.generation = previous.generation
            status += " Nothing changed."
        }
        return (site, report + status + "\n" + PhaseTimer.report(timer?.finish() ?? []))
    }

    /// Each diagnostic as the terminal shows it, its hint on the same line.
    static func problems(_ diagnostics: [Diagnostic], printer: DiagnosticPrinter) -> [String] {
        diagnostics.map { diagnostic in
            printer.line(for: diagnostic) + (diagnostic.hint.map { " — hint: \($0)" } ?? "")
        }
    }
}
