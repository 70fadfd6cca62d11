import CashierCLI
import Foundation

let status = await CashierTool.main(arguments: Array(CommandLine.arguments.dropFirst()))
// The command is done and has stopped what it started, but threads it does not own may still be
// inside a C library (a pool thread finishing OpenSSL work begun at start-up). `exit` would run
// the libraries' clean-up (OpenSSL's frees its context) under them, and the process would die of
// signal 11 as it exits — about one run in ten of a server whose ready file
// cannot be written. Output is flushed, and the process ends without that clean-up.
fflush(nil)  // every output stream
_exit(status)
