public import Foundation

extension UnionPay {
    /// Where the gateway and the file-download host are. UnionPay serves reconciliation files
    /// from a host of its own, so the two are configured apart.
    public struct Endpoints: Sendable, Equatable {
        /// The gateway base, under which `/gateway/api/appTransReq.do`, `backTransReq.do` and
        /// `queryTrans.do` answer.
        public var gateway: URL
        /// The file-download host, which takes `txnType=76` at its root.
        public var fileDownload: URL

        public init(gateway: URL, fileDownload: URL) {
            self.gateway = gateway
            self.fileDownload = fileDownload
        }

        /// `gateway.95516.com`, `filedownload.95516.com`.
        public static let production = Endpoints(
            gateway: URL(string: "https://gateway.95516.com")!, fileDownload: URL(string: "https://filedownload.95516.com/")!)
        /// UnionPay's test environment (its plugins' mode `01`).
        public static let test = Endpoints(
            gateway: URL(string: "https://gateway.test.95516.com")!, fileDownload: URL(string: "https://filedownload.test.95516.com/")!)

        /// `appTransReq.do`: the app consume.
        public var appTransactionURL: URL { path("/gateway/api/appTransReq.do") }
        /// `backTransReq.do`: undo and refund.
        public var backTransactionURL: URL { path("/gateway/api/backTransReq.do") }
        /// `queryTrans.do`: the status query.
        public var queryURL: URL { path("/gateway/api/queryTrans.do") }

        private func path(_ suffix: String) -> URL {
            var base = gateway.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            return URL(string: base + suffix)!
        }
    }
}
