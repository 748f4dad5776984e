import Foundation

/// Sums the time the site's templates take to render, over every thread: what
/// `locker build --timings` reports of them, so that the cost of a template (the built-in ones,
/// or a vault's own) can be told from the rest of the rendering.
final class TemplateClock: @unchecked Sendable {
    private let lock = NSLock()
    private var nanoseconds: UInt64 = 0
    private var renders = 0
    private var partRenders = 0
    private var skeletons = 0
    private var skeletonPages = 0

    /// Runs `body` and adds the time it took; `counting` it as a page's render, or not (a part
    /// of a page, rendered on its own).
    func time<Result>(counting: Bool = true, _ body: () throws -> Result) rethrows -> Result {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let spent = DispatchTime.now().uptimeNanoseconds &- start
            lock.lock()
            nanoseconds &+= spent
            if counting { renders += 1 } else { partRenders += 1 }
            lock.unlock()
        }
        return try body()
    }

    /// Counts a page rendered from a skeleton (``PageSkeletons``), and the skeleton when it was
    /// made for the page.
    func countSkeletonPage(made: Bool) {
        lock.lock()
        skeletonPages += 1
        if made { skeletons += 1 }
        lock.unlock()
    }

    /// The time taken so far, in seconds of CPU summed over threads, and how many renders took it.
    var total: TemplateTime {
        lock.lock()
        defer { lock.unlock() }
        return TemplateTime(
            seconds: Double(nanoseconds) / 1e9, renders: renders, partRenders: partRenders, skeletons: skeletons,
            skeletonPages: skeletonPages)
    }
}

/// How long a build's templates took to render, summed over threads (``TemplateClock``).
public struct TemplateTime: Sendable, Equatable {
    public var seconds: Double
    /// Pages rendered through a template.
    public var renders: Int
    /// Parts of pages rendered on their own (``SiteChrome``'s header and footer): few when
    /// pages share them.
    public var partRenders: Int = 0
    /// Skeletons made: the pages of one shape are rendered from one (``PageSkeletons``).
    public var skeletons: Int = 0
    /// Pages rendered from skeletons, of ``renders``.
    public var skeletonPages: Int = 0
}
