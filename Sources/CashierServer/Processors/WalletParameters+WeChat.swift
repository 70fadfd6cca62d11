import CashierWire
import Foundation

extension WalletParameters {
    /// WeChat Pay's signed parameters for the SDK (`PayReq`'s, `wx.requestPayment`'s): `fields`
    /// as its `Encodable` form writes them, every value a string.
    static func wechat(_ fields: some Encodable) throws -> WalletParameters {
        .wechat(try JSONDecoder().decode([String: String].self, from: JSONEncoder().encode(fields)))
    }
}
