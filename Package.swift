// swift-tools-version: 6.0
import PackageDescription

/// Swift 6 language mode everywhere, plus the upcoming features STYLE.md asks for.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Cashier",
    products: [
        // The JSON the server sends and the app reads: Foundation only, shared with the app SDK.
        .library(name: "CashierWire", targets: ["CashierWire"]),
        .library(name: "Cashier", targets: ["Cashier"]),
        .library(name: "CashierCrypto", targets: ["CashierCrypto"]),
        .library(name: "WeChatPay", targets: ["WeChatPay"]),
        .library(name: "Alipay", targets: ["Alipay"]),
        .library(name: "ApplePay", targets: ["ApplePay"]),
        .library(name: "UnionPay", targets: ["UnionPay"]),
        .library(name: "CashierStore", targets: ["CashierStore"]),
        .library(name: "CashierCurl", targets: ["CashierCurl"]),
        .library(name: "CashierHTTP", targets: ["CashierHTTP"]),
        // The app-side SDK: Foundation only, so an iOS app builds no C code.
        .library(name: "CashierClient", targets: ["CashierClient"]),
        // Production only: links no simulator (PackageManifestTests checks its symbol table).
        .executable(name: "cashier", targets: ["cashier"]),
        // Sandbox mode, the offline gateways, the demo and the Apple Pay token minter.
        .executable(name: "cashier-sandbox", targets: ["cashier-sandbox"]),
    ],
    targets: [
        // MARK: System libraries (Debian packages; see scripts/install-deps)
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "COpenSSLShims", dependencies: ["COpenSSL"]),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "CMicroHTTPDShims", dependencies: ["CMicroHTTPD"]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "CSQLiteShims", dependencies: ["CSQLite"]),
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        .target(name: "CSpawnShims"),

        // MARK: Libraries
        .target(
            name: "CashierCrypto",
            dependencies: ["COpenSSL", "COpenSSLShims"],
            swiftSettings: strictSettings
        ),
        .target(name: "CashierWire", swiftSettings: strictSettings),
        .target(name: "Cashier", dependencies: ["CashierWire"], swiftSettings: strictSettings),
        // gzip (zlib) and zip archives (libzip): the providers' bills as they ship them.
        .target(name: "CashierArchive", dependencies: ["CZlib", "CZip"], swiftSettings: strictSettings),
        .target(name: "WeChatPay", dependencies: ["Cashier", "CashierCrypto", "CashierArchive"], swiftSettings: strictSettings),
        .target(name: "Alipay", dependencies: ["Cashier", "CashierCrypto", "CashierArchive"], swiftSettings: strictSettings),
        .target(name: "ApplePay", dependencies: ["Cashier", "CashierCrypto"], swiftSettings: strictSettings),
        .target(name: "UnionPay", dependencies: ["Cashier", "CashierCrypto", "CashierArchive"], swiftSettings: strictSettings),
        .target(
            name: "CashierSandbox",
            dependencies: [
                "Cashier", "CashierCrypto", "CashierCurl", "CashierHTTP", "CashierWeb", "WeChatPay", "Alipay", "ApplePay", "UnionPay",
                "CashierArchive",
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CashierCurl",
            dependencies: ["Cashier", "CCurl", "CCurlShims"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CashierHTTP",
            dependencies: ["Cashier", "CashierWire", "CMicroHTTPD", "CMicroHTTPDShims"],
            swiftSettings: strictSettings
        ),
        // Pages with a strict Content-Security-Policy, and QR codes as SVG.
        .target(name: "CashierWeb", dependencies: ["Cashier", "CashierHTTP", "CashierCrypto", "CQREncode"], swiftSettings: strictSettings),
        .target(name: "CashierClient", dependencies: ["CashierWire"], swiftSettings: strictSettings),
        .target(
            name: "CashierServer",
            dependencies: [
                "Cashier", "CashierWire", "CashierCrypto", "CashierStore", "CashierHTTP", "CashierWeb", "CashierCurl",
                "WeChatPay", "Alipay", "ApplePay", "UnionPay",
            ],
            swiftSettings: strictSettings
        ),
        // Sandbox mode: the merchant server wired to the in-process simulators. Its own target, so
        // the production server never links the simulators.
        .target(
            name: "CashierSandboxMode",
            dependencies: [
                "Cashier", "CashierCrypto", "CashierStore", "CashierServer", "CashierSandbox", "WeChatPay", "ApplePay", "UnionPay",
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CashierStore",
            dependencies: ["Cashier", "CashierWire", "CSQLite", "CSQLiteShims", "CPostgres"],
            swiftSettings: strictSettings
        ),

        // MARK: Executables
        // The production commands and the command machinery; never a simulator.
        .target(
            name: "CashierCLI",
            dependencies: [
                "Cashier", "CashierCrypto", "WeChatPay", "Alipay", "ApplePay", "CashierHTTP", "CashierServer", "CashierStore",
                "CashierCurl",
            ],
            swiftSettings: strictSettings
        ),
        // `cashier-sandbox`'s commands: sandbox mode, the gateways, the demo, the token minter.
        .target(
            name: "CashierSandboxCLI",
            dependencies: [
                "CashierCLI", "CashierSandbox", "CashierSandboxMode", "Cashier", "CashierCrypto", "CashierHTTP",
                "CashierServer", "CashierStore", "WeChatPay", "Alipay", "ApplePay",
            ],
            swiftSettings: strictSettings
        ),
        // Starting programs (posix_spawn) for the tests and the bench; Cashier itself starts none.
        .target(name: "ChildProcesses", dependencies: ["CSpawnShims"], swiftSettings: strictSettings),
        .executableTarget(name: "cashier", dependencies: ["CashierCLI"], swiftSettings: strictSettings),
        .executableTarget(name: "cashier-sandbox", dependencies: ["CashierSandboxCLI"], swiftSettings: strictSettings),
        .executableTarget(
            name: "cashier-bench",
            dependencies: [
                "CashierCrypto", "WeChatPay", "Alipay", "ApplePay", "CashierSandbox", "CashierServer", "CashierSandboxMode", "CashierStore",
                "CashierHTTP", "CashierCurl", "ChildProcesses", "CashierArchive",
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Tests
        .target(
            name: "TestSupport", dependencies: ["CashierHTTP", "CashierCrypto", "ChildProcesses"], path: "Tests/TestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "CashierCryptoTests",
            dependencies: ["CashierCrypto", "ChildProcesses"],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "CashierTests", dependencies: ["Cashier", "ChildProcesses", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"], swiftSettings: strictSettings),
        .testTarget(name: "CashierArchiveTests", dependencies: ["CashierArchive", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "WeChatPayTests",
            dependencies: ["WeChatPay"],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CashierCLITests",
            dependencies: [
                "CashierCLI", "CashierSandboxCLI", "WeChatPay", "Alipay", "ApplePay", "CashierCrypto", "CashierStore", "TestSupport",
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "UnionPayTests",
            dependencies: ["UnionPay", "CashierArchive", "ChildProcesses", "TestSupport"],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AlipayTests",
            dependencies: ["Alipay", "CashierArchive", "TestSupport"],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ApplePayTests",
            dependencies: ["ApplePay", "CashierSandbox", "CashierCurl", "TestSupport"],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CashierServerTests",
            dependencies: [
                "CashierServer", "CashierSandboxMode", "CashierStore", "CashierSandbox", "WeChatPay", "Alipay", "ApplePay", "CashierHTTP",
                "CashierCurl", "TestSupport", "UnionPay",
            ],
            resources: [.copy("Hostile")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CashierClientTests",
            dependencies: [
                "CashierClient", "CashierServer", "CashierSandboxMode", "CashierStore", "CashierSandbox", "WeChatPay", "ApplePay",
                "UnionPay", "CashierCrypto", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "CashierStoreTests", dependencies: ["CashierStore", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "CashierHTTPTests", dependencies: ["CashierHTTP", "CashierCurl", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "CashierCurlTests",
            dependencies: ["CashierCurl", "CashierHTTP", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CashierSandboxTests",
            dependencies: ["CashierSandbox", "WeChatPay", "Alipay", "UnionPay", "CashierHTTP", "CashierCurl", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PackageManifestTests", dependencies: ["Cashier", "ChildProcesses", "TestSupport"], swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)

// The platform glue in CashierClient — PassKit (*+PassKit.swift), WeChat's WechatOpenSDK,
// AlipaySDK (*Launcher+….swift) and UnionPay's plugins (UnionPay/*Wallet+….swift) — cannot be
// compiled against those frameworks off Apple platforms.
// On Linux it is compiled, and unit-tested, against test-only declarations of the surface it uses
// (Tests/PlatformStubs: the SDKs' names and signatures as they import into Swift), so a wrong call
// fails the build here. Never declared on Apple platforms, where the real ones exist.
#if os(Linux)
    package.targets += [
        .target(name: "Contacts", path: "Tests/PlatformStubs/Contacts", swiftSettings: strictSettings),
        .target(name: "PassKit", dependencies: ["Contacts"], path: "Tests/PlatformStubs/PassKit", swiftSettings: strictSettings),
        .target(name: "WechatOpenSDK", path: "Tests/PlatformStubs/WechatOpenSDK", swiftSettings: strictSettings),
        .target(name: "AlipaySDK", path: "Tests/PlatformStubs/AlipaySDK", swiftSettings: strictSettings),
        // UnionPay's plugins (UPAPayPlugin for Apple Pay, UPPaymentControl for 云闪付) and the UIKit
        // view controller they present from.
        .target(name: "UIKit", path: "Tests/PlatformStubs/UIKit", swiftSettings: strictSettings),
        .target(name: "UPAPayPlugin", dependencies: ["UIKit"], path: "Tests/PlatformStubs/UPAPayPlugin", swiftSettings: strictSettings),
        .target(
            name: "UPPaymentControl", dependencies: ["UIKit"], path: "Tests/PlatformStubs/UPPaymentControl", swiftSettings: strictSettings),
        .target(
            name: "CashierClientPlatformCheck",
            dependencies: [
                "CashierClient", "PassKit", "Contacts", "WechatOpenSDK", "AlipaySDK", "UIKit", "UPAPayPlugin", "UPPaymentControl",
            ],
            path: "Tests/PlatformStubs/Glue", swiftSettings: strictSettings + [.define("PLATFORM_GLUE_CHECK")]),
    ]
    if let tests = package.targets.first(where: { $0.name == "CashierClientTests" }) {
        tests.dependencies += [
            "CashierClientPlatformCheck", "PassKit", "Contacts", "WechatOpenSDK", "AlipaySDK", "UIKit", "UPAPayPlugin", "UPPaymentControl",
        ]
    }
#endif
