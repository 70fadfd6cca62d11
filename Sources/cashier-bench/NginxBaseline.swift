import ChildProcesses
import Foundation

/// nginx answering `return 200` on loopback: the ceiling for a bare route on this machine, measured
/// with the same wrk settings as the server in the same run. One worker per core, no access log.
struct NginxBaseline {
    let port: UInt16
    private let process: ChildProcess
    private let folder: URL

    /// Starts nginx in a scratch prefix under `folder` on a free loopback port.
    /// - Throws: when nginx is not installed (`scripts/install-deps`) or does not start listening.
    init(folder: URL) throws {
        let executable = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let executable else { throw Subprocess.Failure("nginx is not installed (scripts/install-deps installs it)") }
        self.folder = folder.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        port = try FreePort.find()
        let prefix = self.folder.path
        try """
        worker_processes auto;
        daemon off;
        master_process on;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/error.log;
        events { worker_connections 1024; }
        http {
          access_log off;
          client_body_temp_path \(prefix)/body; proxy_temp_path \(prefix)/proxy; fastcgi_temp_path \(prefix)/fastcgi;
          uwsgi_temp_path \(prefix)/uwsgi; scgi_temp_path \(prefix)/scgi;
          server {
            listen 127.0.0.1:\(port);
            location / { default_type application/json; return 200 '{"status":"ok"}'; }
          }
        }
        """.write(to: self.folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = try ChildProcess(
            executable, ["-p", prefix, "-c", self.folder.appendingPathComponent("nginx.conf").path], stdout: .null, stderr: .null)
        let deadline = Date().addingTimeInterval(10)
        while !FreePort.accepts(port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw Subprocess.Failure("nginx did not start listening on 127.0.0.1:\(port) (see \(prefix)/error.log)")
            }
            usleep(20_000)
        }
    }

    var url: String { "http://127.0.0.1:\(port)/healthz" }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
