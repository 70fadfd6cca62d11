import CashierCLI
import Foundation

exit(await CashierTool.main(arguments: Array(CommandLine.arguments.dropFirst())))
