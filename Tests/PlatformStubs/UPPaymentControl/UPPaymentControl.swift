// A TEST-ONLY stand-in for UnionPay's payment control (UPPaymentControl.h, 云闪付) as it imports
// into Swift, so CashierClient's glue type-checks on Linux. It opens no app;
// `UPPaymentControl.onStartPay` lets a test play UnionPay. Package.swift declares it on Linux only.
public import Foundation
public import UIKit

/// `UPPaymentResultBlock`: `code` is `success`, `fail` or `cancel`; `data` the signed result.
public typealias UPPaymentResultBlock = (String?, [AnyHashable: Any]?) -> Void

open class UPPaymentControl: NSObject, @unchecked Sendable {
    /// TEST HOOK (not in the SDK): plays UnionPay for (tn, scheme, mode); `false` = it could not start.
    nonisolated(unsafe) public static var onStartPay: (@Sendable (String, String, String) -> Bool)?
    private static let shared = UPPaymentControl()

    /// `+ defaultControl`, which Swift imports as `default()`.
    open class func `default`() -> UPPaymentControl { shared }

    /// `- startPay:fromScheme:mode:viewController:`.
    open func startPay(_ tn: String, fromScheme schemeStr: String, mode: String, viewController: UIViewController) -> Bool {
        Self.onStartPay?(tn, schemeStr, mode) ?? false
    }

    /// `- handlePaymentResult:completeBlock:`: reads `code` from `<scheme>://uppayresult?code=…&data=…`.
    open func handlePaymentResult(_ url: URL, completeBlock completionBlock: @escaping UPPaymentResultBlock) {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let data = items.first { $0.name == "data" }?.value.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        completionBlock(items.first { $0.name == "code" }?.value, data as? [AnyHashable: Any])
    }
}
