import CashierWire

extension PaymentRequestBody {
    /// How many digits a payment code has, any provider's.
    static let paymentCodeDigits = 16...24

    /// The shape the API's document gives each field, checked whatever the method: a field that
    /// this method does not read is still refused when malformed, so a client's mistake (an
    /// `auth_code` sent with `applepay`, an `api` of `v4` with Alipay) is reported, not ignored.
    /// - Throws: `RequestProblem` (400) naming the field.
    func checkShape() throws {
        if let ip = client_ip, !RequestBounds.isIPAddress(ip) {
            throw RequestProblem("client_ip '\(ip)' is not an IPv4 or IPv6 address")
        }
        if let api, api != "v2" && api != "v3" {
            throw RequestProblem("api '\(api)' is not v2 or v3")
        }
        if let code = auth_code, !Self.paymentCodeDigits.contains(code.utf8.count) || !code.utf8.allSatisfy({ (48...57).contains($0) }) {
            throw RequestProblem("auth_code must be 16 to 24 digits, the payment code as the scanner reads it")
        }
    }
}
