import Cashier
import Foundation

/// The sandbox's transport, except for the two trade bills, answered with the generated ones
/// (WeChat Pay's gzipped, as Cashier asks for it: `tar_type=GZIP`).
struct BillTransport: HTTPTransport {
    let inner: any HTTPTransport
    /// The WeChat Pay bill, gzipped.
    let wechatBill: Data
    let alipayBill: Data

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        if path.hasSuffix("/pay/downloadbill") { return HTTPResponse(status: 200, body: wechatBill) }
        if path.hasSuffix("/alipay/bill"), request.url.query?.contains("bill_type=trade") == true {
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/zip"], body: alipayBill)
        }
        return try await inner.send(request)
    }
}
