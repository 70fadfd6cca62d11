// swift-tools-version: 6.0
// libFuzzer targets for Cashier's parsers, in a package of their own (they have no `main`:
// libFuzzer supplies it) that builds every Cashier module with `--sanitize fuzzer --sanitize
// address`. `make check-long` runs them (scripts/fuzz); crashes found become regression tests.
import PackageDescription

let library: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

func fuzz(_ name: String, _ products: [String]) -> Target {
    .executableTarget(name: name, dependencies: products.map { .product(name: $0, package: "Cashier") }, swiftSettings: library)
}

let package = Package(
    name: "CashierFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Cashier", path: "..")],
    targets: [
        fuzz("FuzzXML", ["WeChatPay"]),
        fuzz("FuzzForm", ["Alipay"]),
        fuzz("FuzzAlipayResponse", ["Alipay"]),
        fuzz("FuzzAlipayResult", ["Alipay", "CashierCrypto"]),
        fuzz("FuzzApplePayToken", ["ApplePay"]),
        fuzz("FuzzHTTPRequest", ["CashierHTTP"]),
        fuzz("FuzzJSONReader", ["Cashier"]),
        fuzz("FuzzProcessorWebhooks", ["ApplePay", "Cashier"]),
    ]
)
