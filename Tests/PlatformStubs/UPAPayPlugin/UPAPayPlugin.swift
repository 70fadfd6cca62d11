// A TEST-ONLY stand-in for UnionPay's Apple Pay plugin (libUPAPayPlugin.a: UPAPayPlugin.h,
// UPAPayPluginDelegate.h) as its headers import into Swift, so CashierClient's glue type-checks
// on Linux. It shows no sheet; `UPAPayPlugin.onStartPay` lets a test play the plugin.
// Package.swift declares it on Linux only.
public import Foundation
public import UIKit

/// `UPPaymentResultStatus` (NS_ENUM).
public enum UPPaymentResultStatus: Int, Sendable {
    case success
    case failure
    case cancel
    case unknownCancel
}

/// `UPPayResult`.
open class UPPayResult: NSObject, @unchecked Sendable {
    open var paymentResultStatus: UPPaymentResultStatus = .failure
    open var errorDescription: String?
    open var otherInfo: String?
    override public init() {}
}

/// `UPAPayPluginDelegate`.
public protocol UPAPayPluginDelegate: NSObjectProtocol {
    func UPAPayPluginResult(_ payResult: UPPayResult)
}

open class UPAPayPlugin: NSObject {
    /// TEST HOOK (not in the SDK): plays the plugin for (tn, mode, Apple merchant ID); `nil` answer
    /// means the plugin could not start. The result goes to the delegate, later, from any thread.
    nonisolated(unsafe) public static var onStartPay: (@Sendable (String, String, String) -> UPPayResult?)?

    /// TEST HOOK (not in the SDK): a view controller to present from. Tests cannot import the UIKit
    /// stand-in beside Swift Testing, which then looks for its UIKit cross-import overlay.
    @MainActor public static func testViewController() -> UIViewController { UIViewController() }

    /// `+ startPay:mode:viewController:delegate:andAPMechantID:` ("Mechant" is UnionPay's spelling).
    open class func startPay(
        _ tn: String, mode: String, viewController: UIViewController, delegate: any UPAPayPluginDelegate, andAPMechantID mID: String
    ) -> Bool {
        guard let play = onStartPay, let result = play(tn, mode, mID) else { return false }
        let box = Delivery(delegate: delegate, result: result)
        Thread.detachNewThread { box.delegate.UPAPayPluginResult(box.result) }
        return true
    }

    private struct Delivery: @unchecked Sendable {
        let delegate: any UPAPayPluginDelegate
        let result: UPPayResult
    }
}
