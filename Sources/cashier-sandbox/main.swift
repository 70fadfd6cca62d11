import CashierSandboxCLI
import Foundation

let status = await CashierSandboxTool.main(arguments: Array(CommandLine.arguments.dropFirst()))
// As `cashier` does: the command has stopped what it started, but threads it does not own may
// still be inside a C library; `exit` would run the libraries' clean-up under them (signal 11 in
// about one exit in ten of a sandbox whose ready file cannot be written). Output is flushed, and
// the process ends without that clean-up.
fflush(nil)  // every output stream
_exit(status)
