import Foundation

/// `swift run -c release cashier-bench <suite> [--seconds N]`
///
/// Every suite prints one line per figure, `<name> ratio=<cashier ÷ baseline> …`, where the
/// baseline is measured in the same run on the same machine (timings here are noisy; only
/// ratios are comparable across runs).
let suites: [String: (Int, (String) -> Void) throws -> Void] = [
    "crypto": CryptoSuite.run,
    "wechat": WeChatSuite.run,
    "alipay": AlipaySuite.run,
    "applepay": ApplePaySuite.run,
    "server": ServerSuite.run,
]

var arguments = Array(CommandLine.arguments.dropFirst())
var seconds = 2
if let index = arguments.firstIndex(of: "--seconds"), index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 {
    seconds = value
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.count == 1, let suite = suites[arguments[0]] else {
    let names = suites.keys.sorted().joined(separator: "|")
    FileHandle.standardError.write(Data("usage: cashier-bench <\(names)> [--seconds N]\n".utf8))
    exit(2)
}
do {
    try suite(seconds) { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
} catch {
    FileHandle.standardError.write(Data("cashier-bench: \(error)\n".utf8))
    exit(1)
}
