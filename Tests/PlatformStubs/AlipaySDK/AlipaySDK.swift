// A TEST-ONLY stand-in for Alipay's AlipaySDK: the calls CashierClient's Alipay glue uses, as
// AlipaySDK.h imports into Swift, so the glue type-checks on Linux. It opens no app;
// `AlipaySDK.onPay` lets a test play Alipay. Package.swift declares it on Linux only.
public import Foundation

public typealias CompletionBlock = ([AnyHashable: Any]?) -> Void

/// The SDK calls its block from its own thread; the stub carries it the same way.
struct UncheckedCallback: @unchecked Sendable {
    let call: CompletionBlock?
}

open class AlipaySDK: NSObject, @unchecked Sendable {
    /// TEST HOOK (not in the SDK): plays Alipay for an order string, then calls back with its result dictionary.
    nonisolated(unsafe) public static var onPay: (@Sendable (String, @escaping @Sendable ([String: String]) -> Void) -> Void)?
    private static let shared = AlipaySDK()

    open class func defaultService() -> AlipaySDK { shared }

    open func payOrder(_ orderStr: String!, fromScheme schemeStr: String!, callback completionBlock: CompletionBlock!) {
        guard let onPay = Self.onPay else {
            completionBlock?(["resultStatus": "6002", "memo": "network error"])
            return
        }
        let callback = UncheckedCallback(call: completionBlock)
        onPay(orderStr ?? "") { result in callback.call?(result) }
    }

    open func processOrder(withPaymentResult resultUrl: URL!, standbyCallback completionBlock: CompletionBlock!) {
        let query = resultUrl?.query?.removingPercentEncoding ?? ""
        let result = (try? JSONSerialization.jsonObject(with: Data(query.utf8))) as? [String: Any]
        completionBlock?((result?["memo"] as? [String: Any]) ?? result)
    }
}
