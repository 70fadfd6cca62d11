public import Foundation
public import UnionPay

extension SandboxServer {
    /// The UnionPay gateway's base (`unionpay_gateway_url`), under which `/gateway/api/…` answer.
    public var unionpayGatewayURL: URL { baseURL.appendingPathComponent("unionpay") }

    /// The UnionPay file-download host (`unionpay_file_url`).
    public var unionpayFileURL: URL { unionpayFiles.url }

    /// Both, for `UnionPay.Client(endpoints:)`.
    public var unionpayEndpoints: UnionPay.Endpoints { UnionPay.Endpoints(gateway: unionpayGatewayURL, fileDownload: unionpayFileURL) }

    /// What a client needs to sign for the sandbox's test merchant and verify the sandbox's
    /// answers, as the gateways' ready file gives it: `unionpay_gateway_url`, `unionpay_file_url`,
    /// `unionpay_mer_id`, `unionpay_sign_key` (the TEST merchant's private key, PEM),
    /// `unionpay_sign_cert`, `unionpay_root_cert`, `unionpay_middle_cert` (PEM).
    public var unionpayReadyFileEntries: [String: String] {
        let ca = unionpay.ca
        return [
            "unionpay_gateway_url": unionpayGatewayURL.absoluteString, "unionpay_file_url": unionpayFileURL.absoluteString,
            "unionpay_mer_id": ca.merchantID, "unionpay_sign_key": ca.merchantKey.pemRepresentation,
            "unionpay_sign_cert": ca.merchantCertificate.pemRepresentation, "unionpay_root_cert": ca.root.pemRepresentation,
            "unionpay_middle_cert": ca.middle.pemRepresentation,
        ]
    }
}
