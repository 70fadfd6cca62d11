/// What the payer's device can pay with, sent with a payment (`payer_wallets`) so the server can
/// choose among methods that would otherwise fail on the device: UnionPay's Apple Pay plugin
/// only shows the sheet when Wallet holds a China UnionPay card, which the app learns from
/// `PKPaymentAuthorizationController.canMakePayments(usingNetworks: [.chinaUnionPay])`
/// (`PayerWallets.applePay(networks:)` asks it where PassKit is linked).
///
/// On the wire: `"payer_wallets": {"apple_pay_networks": ["ChinaUnionPay"]}` — the PassKit
/// network names (`PKPaymentNetwork.rawValue`) Apple Pay can pay with on this device; an empty
/// list means Apple Pay has none of those asked about; no field means the app did not ask. The
/// server's side (picking `unionpay.applepay` or refusing it) comes with its UnionPay adapter;
/// a server without it refuses the unknown field, so send it only to one that takes it.
public struct PayerWallets: Sendable, Equatable, Encodable {
    /// PassKit network names `canMakePayments(usingNetworks:)` said yes to; `nil`: not asked.
    public var applePayNetworks: [String]?

    public init(applePayNetworks: [String]? = nil) {
        self.applePayNetworks = applePayNetworks
    }

    /// Whether Apple Pay can pay with a China UnionPay card here (`nil`: not asked).
    public var canPayWithChinaUnionPay: Bool? { applePayNetworks.map { $0.contains("ChinaUnionPay") } }

    /// The JSON object sent as `payer_wallets`.
    enum CodingKeys: String, CodingKey {
        case applePayNetworks = "apple_pay_networks"
    }
}
