// These types moved to `CashierWire`, which the app SDK shares with the server. `Cashier` brings
// `CashierWire` along (its types appear in `Cashier`'s and every library's API: `Amount(money)`,
// `PaymentMethod.Wallet`), and the names stay here, so code that imports only `Cashier` still
// compiles.
@_exported public import CashierWire

/// How a payer pays (`CashierWire.PaymentMethod`).
public typealias PaymentMethod = CashierWire.PaymentMethod

/// A payment provider and, for WeChat Pay, the API generation (`CashierWire.PaymentProvider`).
public typealias PaymentProvider = CashierWire.PaymentProvider

/// A billing or shipping contact the payer chose on the sheet (`CashierWire.PaymentContact`).
public typealias PaymentContact = CashierWire.PaymentContact
