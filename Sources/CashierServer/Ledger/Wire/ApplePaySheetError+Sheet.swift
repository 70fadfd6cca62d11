import ApplePay
import CashierWire

extension ApplePaySheetError {
    /// `error` as the device's sheet takes it.
    init(_ error: ApplePay.SheetError) {
        self.init(code: error.code.rawValue, contactField: error.contactField, message: error.message)
    }
}
