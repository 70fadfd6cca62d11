import ApplePay
public import Cashier
public import CashierCrypto
public import CashierHTTP
public import Foundation

/// The Apple Pay part of the sandbox: a test CA (never Apple's) and a token minter for the
/// merchants whose processing certificates are registered.
///
/// - `GET /sandbox/applepay/root.pem` — the CA's root, to trust instead of Apple Root CA - G3.
/// - `POST /sandbox/applepay/merchants` — body: a processing certificate (PEM) to mint for.
/// - `POST /sandbox/applepay/paymentservices/startSession` — Apple's merchant-validation endpoint,
///   simulated: `{"merchantIdentifier", "displayName", "initiative": "web", "initiativeContext"}` →
///   an opaque merchant session (what Apple Pay JS's `completeMerchantValidation` takes).
/// - `POST /sandbox/applepay/token` — `{"amount":"12.75","currency":"CNY","public_key_hash":…,
///   "application_data":"hex","card":"4111…","signed_at":"ISO8601"}` (all but amount optional) →
///   a `PKPayment` JSON as a device would send it. With a merchant server connected
///   (``setOrderLookup(_:)``), `{"order_id":"ord_…"}` is enough: the amount is the order's and
///   the application data its id, as the server's payment request asks.
public actor ApplePaySandbox {
    public nonisolated let ca: ApplePayTestCA
    private let minter: ApplePayTokenMinter
    private var merchants: [String: X509Certificate] = [:]
    private var order: [String] = []
    private var orderLookup: (@Sendable (String) async -> Money?)?

    /// Lets `{"order_id": …}` mint for a merchant server's order: `lookup` gives its total.
    public func setOrderLookup(_ lookup: @escaping @Sendable (String) async -> Money?) {
        orderLookup = lookup
    }

    func total(ofOrder id: String) async -> Money? {
        await orderLookup?(id)
    }

    public init(ca: ApplePayTestCA) {
        self.ca = ca
        self.minter = ApplePayTokenMinter(ca: ca)
    }

    /// Mints for the merchant with this processing certificate from now on.
    /// - Returns: its `publicKeyHash`.
    @discardableResult
    public func register(merchantCertificate certificate: X509Certificate) throws -> String {
        _ = try ApplePay.MerchantKey.merchantIdentifierHash(of: certificate)
        let hash = ApplePay.MerchantKey.publicKeyHash(of: certificate)
        if merchants.updateValue(certificate, forKey: hash) == nil { order.append(hash) }
        return hash
    }

    /// A `PKPayment` as JSON (sorted keys) for `amount`.
    /// - Parameter publicKeyHash: which registered merchant; the first registered when `nil`.
    public func mintPayment(
        amount: Money, publicKeyHash: String? = nil, card: ApplePayTokenMinter.Card = .init(), applicationData: [UInt8]? = nil,
        signedAt: Date = Date()
    ) throws -> Data {
        guard let hash = publicKeyHash ?? order.first, let certificate = merchants[hash] else {
            throw PaymentError(
                .invalidConfiguration, provider: .applePay,
                "no merchant processing certificate is registered with the sandbox for \(publicKeyHash ?? "any key") (POST /sandbox/applepay/merchants)"
            )
        }
        let token = try minter.mint(for: certificate, amount: amount, card: card, applicationData: applicationData, signedAt: signedAt)
        let payment: [String: Any] = [
            "token": [
                "paymentData": try JSONSerialization.jsonObject(with: JSONEncoder().encode(token)),
                "paymentMethod": ["network": "Visa", "type": "debit", "displayName": "Visa \(card.accountNumber.suffix(4))"],
                "transactionIdentifier": token.header.transactionId.uppercased(),
            ]
        ]
        return try JSONSerialization.data(withJSONObject: payment, options: [.sortedKeys])
    }

    /// Routes the three endpoints.
    public nonisolated func register(on router: inout Router) {
        let rootPEM = ca.root.pemRepresentation
        router.add("GET", "/sandbox/applepay/root.pem") { _, _ in .text(rootPEM, contentType: "application/x-pem-file") }
        router.add("POST", "/sandbox/applepay/merchants") { request, _ in
            guard let certificate = try? X509Certificate(pemRepresentation: String(decoding: request.body, as: UTF8.self)) else {
                return SandboxControl.invalid("the body must be a PEM processing certificate")
            }
            do {
                return .json(["public_key_hash": try await self.register(merchantCertificate: certificate)], status: 201)
            } catch let error as PaymentError {
                return .error(status: 400, code: "invalid_certificate", message: error.message)
            } catch {
                return .error(status: 400, code: "invalid_certificate", message: "\(error)")
            }
        }
        router.add("POST", "/sandbox/applepay/paymentservices/startSession") { request, _ in
            struct Start: Decodable {
                let merchantIdentifier: String
                let displayName: String
                let initiative: String
                let initiativeContext: String
            }
            guard let start = try? request.decodeJSON(Start.self), start.initiative == "web",
                start.merchantIdentifier.hasPrefix("merchant."),
                !start.initiativeContext.isEmpty
            else {
                return .json(
                    ["statusCode": "400", "statusMessage": "Payment Services Exception merchantId or domain not registered"], status: 400)
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            return .json(
                [
                    "epochTimestamp": String(now), "expiresAt": String(now + 3_600_000),
                    "merchantSessionIdentifier": "SSH" + Hex.encode(SecureRandom.bytes(count: 16)).uppercased(),
                    "nonce": Hex.encode(SecureRandom.bytes(count: 4)),
                    "merchantIdentifier": Hex.encode(DigestAlgorithm.sha256.hash(Array(start.merchantIdentifier.utf8))).uppercased(),
                    "domainName": start.initiativeContext, "displayName": start.displayName,
                    "signature": Base64.encode(SecureRandom.bytes(count: 64)),
                    "operationalAnalyticsIdentifier": start.displayName + ":" + start.merchantIdentifier, "retries": "0",
                ])
        }
        router.add("POST", "/sandbox/applepay/token") { request, _ in
            struct Mint: Decodable {
                let order_id: String?
                let amount: String?
                let currency: String?
                let public_key_hash: String?
                let application_data: String?
                let card: String?
                let signed_at: String?
            }
            guard let mint = try? request.decodeJSON(Mint.self), mint.amount != nil || mint.order_id != nil else {
                return SandboxControl.invalid(#"expected {"order_id":"ord_…"} or {"amount":"12.75","currency":"CNY",…}"#)
            }
            let orderTotal: Money? = if let id = mint.order_id { await self.total(ofOrder: id) } else { nil }
            let amount: Money
            if let text = mint.amount {
                guard let currency = try? Currency(code: mint.currency ?? orderTotal?.currency.code ?? "CNY"),
                    let parsed = try? Money(decimal: text, currency: currency), parsed.minorUnits >= 0
                else {
                    return .error(
                        status: 400, code: "invalid_amount", message: "amount must be a decimal string in the currency, not negative")
                }
                amount = parsed  // may differ from the order's: that is how a wrong-amount token is made
            } else if let orderTotal {
                amount = orderTotal
            } else {
                return .error(
                    status: 404, code: "order_not_found", message: "no order \(mint.order_id ?? "") on the connected merchant server")
            }
            var applicationData = mint.application_data.flatMap { try? Hex.decode($0) }
            if mint.application_data != nil, applicationData == nil {
                return SandboxControl.invalid("application_data must be hex")
            }
            if applicationData == nil, let id = mint.order_id { applicationData = Array(id.utf8) }
            let signedAt = mint.signed_at.flatMap { ISO8601DateFormatter().date(from: $0) } ?? Date()
            var card = ApplePayTokenMinter.Card()
            if let number = mint.card { card.accountNumber = number }
            do {
                let payment = try await self.mintPayment(
                    amount: amount, publicKeyHash: mint.public_key_hash, card: card, applicationData: applicationData, signedAt: signedAt)
                return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(payment))
            } catch let error as PaymentError {
                return .error(status: 409, code: "no_merchant", message: error.message)
            } catch {
                return .error(status: 500, code: "mint_failed", message: "\(error)")
            }
        }
    }
}
