public import Cashier
public import Foundation

extension ApplePay {
    /// Apple Pay on the web: asks Apple for a merchant session when the browser's
    /// `onvalidatemerchant` hands over a validation URL, over mutual TLS with the merchant
    /// identity certificate. Only Apple's validation hosts are contacted — never a URL a browser
    /// could point elsewhere.
    ///
    /// ```swift
    /// let tls = CurlTransport(clientCertificate: identityCertPath, clientKey: identityKeyPath)   // CashierCurl
    /// let validator = ApplePay.MerchantValidator(merchantIdentifier: "merchant.com.example", displayName: "Example",
    ///                                            domain: "shop.example.com", transport: tls)
    /// let session = try await validator.merchantSession(validationURL: url)   // hand to completeMerchantValidation
    /// ```
    public struct MerchantValidator: Sendable {
        /// Apple's merchant-validation hosts (production, China, and the sandbox "-cert" hosts).
        public static let appleHosts: Set<String> = {
            var hosts: Set<String> = [
                "apple-pay-gateway.apple.com", "cn-apple-pay-gateway.apple.com", "apple-pay-gateway-cert.apple.com",
                "cn-apple-pay-gateway-cert.apple.com",
            ]
            for pod in 1...5 {
                hosts.insert("apple-pay-gateway-nc-pod\(pod).apple.com")
                hosts.insert("apple-pay-gateway-pr-pod\(pod).apple.com")
            }
            for pod in 1...3 {
                hosts.insert("cn-apple-pay-gateway-sh-pod\(pod).apple.com")
                hosts.insert("cn-apple-pay-gateway-tj-pod\(pod).apple.com")
            }
            return hosts
        }()

        public let merchantIdentifier: String
        public let displayName: String
        /// The domain the payment page is served from (`initiativeContext`).
        public let domain: String
        private let transport: any HTTPTransport
        private let allowedHosts: Set<String>
        private let loopbackHosts: Set<String>

        /// - Parameters:
        ///   - merchantIdentifier: `merchant.com.example`.
        ///   - displayName: shown on the payment sheet.
        ///   - domain: the web site's domain, registered with Apple.
        ///   - transport: must present the merchant identity certificate (mutual TLS).
        ///   - allowedHosts: Apple's hosts; tests add a local TLS server as `host:port`.
        ///   - loopbackHosts: `127.0.0.1:port` hosts allowed over plain http — the sandbox's simulated
        ///     Apple endpoint only; never configured outside sandbox mode.
        public init(
            merchantIdentifier: String, displayName: String, domain: String, transport: any HTTPTransport,
            allowedHosts: Set<String> = appleHosts, loopbackHosts: Set<String> = []
        ) {
            self.loopbackHosts = loopbackHosts.filter { $0.hasPrefix("127.0.0.1:") }
            self.merchantIdentifier = merchantIdentifier
            self.displayName = displayName
            self.domain = domain
            self.transport = transport
            self.allowedHosts = allowedHosts
        }

        /// Checks that `url` is an https URL on an allowed host.
        /// - Throws: `PaymentError.invalidRequest` naming the refused URL's host.
        public func check(validationURL url: URL) throws {
            if url.scheme == "http", let host = url.host, let port = url.port, loopbackHosts.contains("\(host):\(port)"), url.user == nil {
                return
            }
            guard url.scheme == "https", let host = url.host?.lowercased(), url.user == nil, url.password == nil else {
                throw PaymentError(.invalidRequest, provider: .applePay, "the validation URL must be https on an Apple host")
            }
            let hostPort = url.port.map { "\(host):\($0)" } ?? host
            guard allowedHosts.contains(hostPort) || (url.port == nil && allowedHosts.contains(host)) else {
                throw PaymentError(.invalidRequest, provider: .applePay, "the validation URL's host \(hostPort) is not one of Apple's")
            }
        }

        /// The opaque merchant session Apple returns, for `session.completeMerchantValidation`.
        /// - Throws: `PaymentError` — `.invalidRequest` (not an Apple host), `.transport`, or
        ///   `.providerRejected` with Apple's status message.
        public func merchantSession(validationURL url: URL) async throws -> Data {
            try check(validationURL: url)
            let body = try JSONSerialization.data(
                withJSONObject: [
                    "merchantIdentifier": merchantIdentifier, "displayName": displayName, "initiative": "web", "initiativeContext": domain,
                ], options: [.sortedKeys])
            let response = try await transport.send(
                HTTPRequest(method: "POST", url: url, headers: ["Content-Type": "application/json"], body: body, timeout: .seconds(30)))
            let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
            guard response.status == 200, let object, object["merchantSessionIdentifier"] != nil || object["epochTimestamp"] != nil else {
                let message = object?["statusMessage"] as? String ?? "HTTP \(response.status)"
                throw PaymentError(
                    .providerRejected, provider: .applePay, "Apple refused merchant validation: \(message)",
                    providerCode: (object?["statusCode"] as? String) ?? String(response.status), providerMessage: message)
            }
            return response.body
        }
    }
}
