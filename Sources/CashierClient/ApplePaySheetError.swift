public import CashierWire

/// An error the payment sheet shows (Apple Pay JS's `ApplePayError`; PassKit's
/// `PKPaymentRequest.payment…Error`), as the server sent it: `CashierWire`'s, which the server
/// writes — `code` (`shippingContactInvalid`, `couponCodeExpired`, …), `contactField` and `message`.
public typealias ApplePaySheetError = CashierWire.ApplePaySheetError
