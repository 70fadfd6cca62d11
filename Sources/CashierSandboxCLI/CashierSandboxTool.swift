public import CashierCLI

/// The `cashier-sandbox` command tree: the merchant server in sandbox mode, the offline gateways,
/// the end-to-end demo and the Apple Pay token minter. Nothing here takes real money: the
/// production server is `cashier`, which links none of it.
public enum CashierSandboxTool {
    /// The root command.
    public static let root = Command(
        name: "cashier-sandbox",
        summary: "Cashier's sandbox: the merchant server with offline WeChat Pay, Alipay and Apple Pay simulators.",
        subcommands: [
            CashierTool.versionCommand, SandboxServeCommand.command, GatewaysCommand.command, DemoCommand.command,
            SandboxApplePayCommands.command,
        ]
    )

    /// Runs the tool with `arguments` (without the program name).
    public static func main(arguments: [String], io: CommandIO = .standard) async -> Int32 {
        await CommandLineTool.run(root, arguments: arguments, io: io)
    }
}
