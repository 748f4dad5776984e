// swift-tools-version: 6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Locker",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "locker", targets: ["locker"]),
        .library(name: "LockerCore", targets: ["LockerCore"]),
        .library(name: "LockerKit", targets: ["LockerKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        .systemLibrary(
            name: "CCmarkGFM",
            pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
        ),
        // mimalloc (Debian's libmimalloc-dev) in place of glibc's malloc, for the `locker` program:
        // the build allocates millions of small nodes and strings on both cores, and glibc's arenas
        // were 17 % of its CPU. Linked, it takes over malloc for the whole process; `Allocator`
        // sets its options (Benchmarks/README.md).
        .systemLibrary(
            name: "CMimalloc",
            providers: [.apt(["libmimalloc-dev"])]
        ),
        .target(
            name: "LockerKit",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The site's default templates and the starter vault, compiled into the binary so `locker`
        // needs no files beside it.
        .target(
            name: "LockerTemplates",
            path: "templates",
            sources: ["DefaultTemplates.swift", "StarterTemplates.swift"],
            // site/: the site's templates; starter/: the vault `locker init` writes.
            resources: [.embedInCode("site"), .embedInCode("starter")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LockerCore",
            dependencies: [
                "CCmarkGFM",
                "LockerKit",
                "LockerTemplates",
                // Signing manifests (`SigningKey`).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            swiftSettings: swiftSettings
        ),
        // `locker export`: a bundle's decks as an Anki package, a zip of a SQLite collection. A
        // target of its own: apps link LockerKit and build no zip code, and the compiler (and the
        // fuzzers) need neither zlib nor the collection's tables.
        .target(
            name: "LockerExport",
            dependencies: [
                "LockerCore",
                "LockerKit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: swiftSettings
        ),
        // `locker serve`: the site and the bundles over HTTP while the vault is edited.
        .target(
            name: "LockerServer",
            dependencies: [
                "LockerCore",
                "LockerKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "locker",
            dependencies: [
                "LockerCore",
                "LockerExport",
                "LockerKit",
                "LockerServer",
                .target(name: "CMimalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // `make bench-runtime`: times the runtime on a bundle of 10,000 cards (not a test).
        .executableTarget(
            name: "locker-runtime-bench",
            dependencies: ["LockerKit"],
            path: "Benchmarks/Runtime",
            swiftSettings: swiftSettings
        ),
        // `make fuzz`: the fuzz targets of `FuzzTarget`, under libFuzzer; built plainly, a replayer.
        .executableTarget(
            name: "locker-fuzz",
            dependencies: ["LockerCore"],
            swiftSettings: swiftSettings
        ),
        // What several test targets share; not a product.
        .target(
            name: "LockerTestSupport",
            path: "Tests/LockerTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LockerCoreTests",
            dependencies: ["LockerCore", "LockerKit", "LockerTemplates", "LockerTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LockerKitTests",
            dependencies: ["LockerKit", "LockerTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LockerServerTests",
            dependencies: ["LockerServer", "LockerCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "lockerTests",
            // Yams: the CI workflow `locker init` writes is read as YAML.
            dependencies: ["locker", "LockerKit", "LockerTestSupport", .product(name: "Yams", package: "Yams")],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)
