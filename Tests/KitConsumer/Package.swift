// swift-tools-version: 6.0
// An app's package that depends on LockerKit alone (`make kit-consumer`): it must build without
// the compiler's dependencies (Hummingbird, NIO, Yams, cmark), and the API an app uses must be
// public. `make` links the repository here as `locker`, so the package reference names it so on
// any clone.
import PackageDescription

let package = Package(
    name: "KitConsumer",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(path: "locker")],
    targets: [
        .executableTarget(
            name: "KitConsumer",
            dependencies: [.product(name: "LockerKit", package: "locker")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
