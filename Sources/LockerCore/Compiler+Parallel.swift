import Foundation

/// The pipeline's parallel work: every stage maps over notes on every core, keeping their order.
extension Compiler {
    /// Whether ``parallelMap(_:_:)`` maps on the calling thread alone. The fuzzers set it: after
    /// an input that allocated more than it freed, libFuzzer searches the whole heap for leaks, and
    /// the worker threads' caches of dispatched work made that happen after most vault inputs.
    @TaskLocal static var onOneThread = false

    /// `0..<count` cut into runs of `length` (the last one shorter): work for ``parallelMap(_:_:)``
    /// in pieces larger than one item each.
    static func runs(of count: Int, length: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: length).map { $0..<min($0 + length, count) }
    }

    /// Runs `first` on another thread while `second` runs on this one, and returns both results
    /// once both are done; throws the first's error, else the second's.
    static func concurrently<First: Sendable, Second, Failure: Error>(
        _ first: @escaping @Sendable () throws(Failure) -> First, and second: () throws(Failure) -> Second
    ) throws(Failure) -> (First, Second) {
        if onOneThread { return (try first(), try second()) }
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<First, Failure>()
        DispatchQueue.global().async {
            result.value = Result { () throws(Failure) -> First in try first() }
            done.signal()
        }
        let secondResult = Result { () throws(Failure) -> Second in try second() }
        done.wait()
        // Set before the signal, so never run here.
        let firstResult = result.value ?? Result { () throws(Failure) -> First in try first() }
        return (try firstResult.get(), try secondResult.get())
    }

    /// Maps in parallel on every core, keeping the order of the input.
    static func parallelMap<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ transform: @Sendable (Input) -> Output
    ) -> [Output] {
        if onOneThread { return inputs.map(transform) }
        // Each input's result is written into its own slot, so no two threads touch the same
        // memory and none waits for a lock; the slots are read once every thread is done. The
        // threads take runs of consecutive inputs, many more runs than cores (so that one slow
        // input does not leave a core idle) but far fewer than inputs: taking inputs one by one,
        // the threads took turns on dispatch's shared counter and wrote slots side by side.
        let count = inputs.count
        let runs = min(count, 512)
        return [Output](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            let slots = Slots(base: base)
            DispatchQueue.concurrentPerform(iterations: runs) { run in
                for index in (run * count / runs)..<((run + 1) * count / runs) {
                    (slots.base + index).initialize(to: transform(inputs[index]))
                }
            }
            initialized = count
        }
    }
}

/// Where ``Compiler/parallelMap(_:_:)`` writes its results: one slot per input, each written by
/// one thread.
private struct Slots<Value>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Value>
}

/// Where a job on another thread leaves its result for ``Compiler/concurrently(_:and:)``, which
/// reads it only after the job signalled that it is done.
private final class ResultBox<Value, Failure: Error>: @unchecked Sendable {
    var value: Result<Value, Failure>?
}
