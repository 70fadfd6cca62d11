import Cashier
import CashierCrypto
import CashierServer

/// The `cashier` command tree: production only. Sandbox mode, the offline gateways, the demo and
/// the token minter are `cashier-sandbox`; their old names here say so and exit 2.
public enum CashierTool {
    /// The root command.
    public static let root = Command(
        name: "cashier",
        summary: "Cashier: take WeChat Pay, Alipay and Apple Pay payments with the keys on your server.",
        subcommands: [
            version, ServeCommand.command, WeChatCommands.command, AlipayCommands.command, ApplePayCommands.command, sandbox, demo,
            ReconcileCommand.command, KeysCommand.command, openapi,
            DoctorCommand.command, BackupCommand.backup, BackupCommand.restore, ReloadCommand.command,
        ]
    )

    /// Moved to `cashier-sandbox gateways`.
    static let sandbox = Command.moved("sandbox", to: "the offline gateways are now 'cashier-sandbox gateways'")

    /// Moved to `cashier-sandbox demo`.
    static let demo = Command.moved("demo", to: "the demo is now 'cashier-sandbox demo'")

    static let version = Command(
        name: "version",
        summary: "Print the Cashier version and the OpenSSL it uses.",
        options: [.flag("json", "Print a JSON object instead of a line.")]
    ) { arguments, io in
        if arguments.flag("json") {
            io.write(#"{"cashier":"\#(CashierVersion.current)","openssl":"\#(OpenSSLLibrary.version)"}"# + "\n")
        } else {
            io.write("cashier \(CashierVersion.current) (\(OpenSSLLibrary.version))\n")
        }
        return 0
    }

    static let openapi = Command(
        name: "openapi",
        summary: "Print the merchant API's OpenAPI 3.1 document (what GET /openapi.json serves; docs/openapi.json is a copy).",
        options: [.flag("sandbox", "Include what `cashier-sandbox serve` adds (/v1/test_helpers/…).")]
    ) { arguments, io in
        do {
            io.write(String(decoding: try MerchantServer.openAPIDocument(sandbox: arguments.flag("sandbox")), as: UTF8.self))
            return 0
        } catch {
            io.writeError("cashier openapi: \(error)\n")
            return 1
        }
    }

    /// `version`, shared with `cashier-sandbox`.
    package static var versionCommand: Command { version }

    /// Runs the tool with `arguments` (without the program name).
    public static func main(arguments: [String], io: CommandIO = .standard) async -> Int32 {
        await CommandLineTool.run(root, arguments: arguments, io: io)
    }
}
