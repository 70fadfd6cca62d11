import CashierHTTP
public import Foundation

/// The sandbox UnionPay's file-download host: a listener of its own, as UnionPay serves
/// reconciliation files from `filedownload.95516.com` rather than the gateway's host. It takes
/// `txnType=76` at `POST /`.
public final class UnionPayFileHost: Sendable {
    private let server: HTTPServer

    /// - Parameter gate: wraps each answer (the sandbox's fault injection).
    init(
        sandbox: UnionPaySandbox, host: String,
        gate: @escaping @Sendable (@Sendable () async -> HTTPServerResponse) async -> HTTPServerResponse = { await $0() }
    ) {
        server = HTTPServer(configuration: .init(host: host, port: 0, threads: 1)) { request in
            await gate { await sandbox.fileAnswer(request) }
        }
    }

    func start() throws { try server.start() }

    func stop() async { await server.stop() }

    /// `http://127.0.0.1:PORT/`, for `UnionPay.Endpoints(fileDownload:)` (`unionpay_file_url`).
    public var url: URL { URL(string: "http://127.0.0.1:\(server.port)/")! }
}
