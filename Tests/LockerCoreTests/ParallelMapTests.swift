import Foundation
import Testing

@testable import LockerCore

/// `Compiler.parallelMap`: the order of the input on every core, and on the calling thread alone
/// when `onOneThread` is set (as the fuzzers set it).
@Suite struct ParallelMapTests {
    static let inputs = Array(0..<2_000)

    @Test func keepsTheOrderOfTheInput() {
        #expect(Compiler.parallelMap(Self.inputs) { $0 * 3 } == Self.inputs.map { $0 * 3 })
    }

    @Test func onOneThreadMapsOnTheCallingThread() {
        let caller = pthread_self()
        let threads = Compiler.$onOneThread.withValue(true) {
            Compiler.parallelMap(Self.inputs) { _ in pthread_equal(pthread_self(), caller) != 0 }
        }
        #expect(threads.allSatisfy { $0 }, "every input mapped on the calling thread")
        let values = Compiler.$onOneThread.withValue(true) { Compiler.parallelMap(Self.inputs) { $0 * 3 } }
        #expect(values == Self.inputs.map { $0 * 3 })
    }
}
