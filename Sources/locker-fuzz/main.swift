// The fuzzers' executable: `locker-fuzz TARGET [libFuzzer options] [CORPUS…]`.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address` and `-DLOCKER_FUZZ`, it hands the target
// to libFuzzer's driver. Built plainly (as `swift build` does), it replays files instead:
// `locker-fuzz TARGET FILE…` runs each file, or each file in a folder, through the target, which
// reproduces a crash without sanitizers.
import Foundation
@_spi(Fuzzing) import LockerCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
/// The variable that names the target to the processes libFuzzer starts under `-fork` or `-jobs`:
/// it starts them with its own options alone, without the target's name.
let targetVariable = "LOCKER_FUZZ_TARGET"
let named = arguments.count >= 2 ? FuzzTarget(rawValue: arguments[1]) : nil
guard let target = named ?? ProcessInfo.processInfo.environment[targetVariable].flatMap(FuzzTarget.init(rawValue:))
else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
    fail("usage: locker-fuzz \(names) [libFuzzer options | files…]")
}
setenv(targetVariable, target.rawValue, 1)
/// Where the options or files begin: after the target's name, when it was given.
let firstOption = named == nil ? 1 : 2

#if LOCKER_FUZZ
    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    nonisolated(unsafe) var chosen = target
    // libFuzzer reads its own options; the target's name is not one of them.
    var driverArguments: [UnsafeMutablePointer<CChar>?] = [CommandLine.unsafeArgv[0]]
    for index in firstOption..<Int(CommandLine.argc) { driverArguments.append(CommandLine.unsafeArgv[index]) }
    driverArguments.append(nil)
    var argc = CInt(driverArguments.count - 1)
    let status = driverArguments.withUnsafeMutableBufferPointer { buffer -> CInt in
        var argv = buffer.baseAddress
        return runDriver(&argc, &argv) { data, count in
            chosen.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
    exit(status)
#else
    var files: [URL] = []
    for argument in arguments.dropFirst(firstOption) {
        let url = URL(fileURLWithPath: argument)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            fail("locker-fuzz: no file at \(argument)")
        }
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            files += names.sorted().map { url.appendingPathComponent($0) }
        } else {
            files.append(url)
        }
    }
    for file in files {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            fail("locker-fuzz: cannot read \(file.path)")
        }
        target.run(Array(data))
    }
    print("\(files.count) inputs ran through \(target.rawValue).")
#endif
