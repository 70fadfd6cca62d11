import Cashier
import Foundation

/// `cashier reload --pid-file FILE`: sends SIGHUP to the `cashier serve` whose `--pid-file` that
/// is, which reads its configuration and key files again (``ServeCommand``). Under systemd,
/// `systemctl reload cashier` does the same (`ExecReload=/bin/kill -HUP $MAINPID`).
enum ReloadCommand {
    static let command = Command(
        name: "reload",
        summary: "Make a running cashier serve read its configuration and key files again (SIGHUP), without a restart.",
        discussion: """
            The server checks the new files whole (as at start) and swaps them in at once; requests in flight finish with the
            old configuration and nothing is refused. A file with anything wrong in it is refused: the server logs why
            (config_reload_refused) and goes on with the configuration it has. Exit 0: the signal was sent (the server's log
            says what became of it); 1: no such process; 2: usage.
            """,
        options: [.value("pid-file", "FILE", "The file cashier serve --pid-file wrote.", required: true)]
    ) { arguments, io in
        let path = arguments.required("pid-file")
        let text: String
        do {
            text = String(decoding: try UserFile.contents(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw CommandFailure("--pid-file: \(error)", status: 2)
        }
        guard let pid = Int32(text), pid > 1 else { throw CommandFailure("--pid-file: \(path) holds no process id", status: 2) }
        guard kill(pid, SIGHUP) == 0 else {
            throw CommandFailure("cannot signal process \(pid): \(String(cString: strerror(errno))) (is cashier serve running?)")
        }
        io.write("sent SIGHUP to \(pid): the server's log says whether the new configuration was applied\n")
        return 0
    }
}
