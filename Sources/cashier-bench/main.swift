import Foundation

/// `swift run -c release cashier-bench <suite> [--seconds N]`
/// `cashier-bench server [--only notify,hello,nginx,flow] [--db postgres://…] [--instances N] [--pool-size N] [--same-orders]` —
/// the merchant server on SQLite (or part of it, for a profiler), or on PostgreSQL with N instances
/// sharing it, each with a pool of `--pool-size` connections (8 unless said), each sent other
/// orders' notifications than the rest at any moment (or, with `--same-orders`, the same ones).
///
/// `cashier-bench scale --orders N [--db postgres://…] [--bill-lines N] [--samples N]` — a store
/// filled with N orders of a two-year history, then measured (``ScaleSuite``).
///
/// Every suite prints one line per figure, `<name> ratio=<cashier ÷ baseline> …`, where the
/// baseline is measured in the same run on the same machine (timings here are noisy; only
/// ratios are comparable across runs).
var arguments = Array(CommandLine.arguments.dropFirst())

/// Removes `--name` from the arguments; `true` when it was there.
@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}

/// Removes `--name VALUE` from the arguments and returns VALUE.
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return arguments[index + 1]
}

let seconds = option("--seconds").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 2
let database = option("--db")
let instances = option("--instances").flatMap(Int.init).flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
let poolSize = option("--pool-size").flatMap(Int.init).flatMap { (1...64).contains($0) ? $0 : nil } ?? 8
let sameOrders = flag("--same-orders")
let orders = option("--orders").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 100_000
let billLines = option("--bill-lines").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 1_000_000
let samples = option("--samples").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 1000
let only = option("--only").map { Set($0.split(separator: ",").map(String.init)) }

let suites: [String: (Int, (String) -> Void) throws -> Void] = [
    "crypto": CryptoSuite.run,
    "wechat": WeChatSuite.run,
    "alipay": AlipaySuite.run,
    "applepay": ApplePaySuite.run,
    "server": { seconds, report in
        try ServerSuite.run(
            seconds: seconds, database: database, instances: instances, poolSize: poolSize, sameOrders: sameOrders, only: only,
            report: report)
    },
    "scale": { seconds, report in
        try ScaleSuite.run(
            .init(orders: orders, database: database, seconds: seconds, billLines: billLines, samples: samples), report: report)
    },
]

// The reconciliation's own process, which `scale` starts to measure it apart from itself (``ScaleReconcile``).
if arguments.first == "scale-reconcile-child" {
    do {
        print(try ScaleReconcile.child(Array(arguments.dropFirst())))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("cashier-bench: \(error)\n".utf8))
        exit(1)
    }
}

guard arguments.count == 1, let suite = suites[arguments[0]] else {
    let names = suites.keys.sorted().joined(separator: "|")
    FileHandle.standardError.write(
        Data(
            "usage: cashier-bench <\(names)> [--seconds N]   (server: [--only notify,hello,nginx,flow] [--db postgres://…] [--instances 1…8] [--pool-size 1…64] [--same-orders])   (scale: --orders N [--db postgres://…] [--bill-lines N] [--samples N])\n"
                .utf8))
    exit(2)
}
do {
    try suite(seconds) { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
} catch {
    FileHandle.standardError.write(Data("cashier-bench: \(error)\n".utf8))
    exit(1)
}
