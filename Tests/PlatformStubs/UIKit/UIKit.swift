// A TEST-ONLY stand-in for the one UIKit type CashierClient's UnionPay glue names: the view
// controller UnionPay's plugins present from. Package.swift declares it on Linux only.
public import Foundation

@MainActor
open class UIViewController: NSObject {
    override public init() {}
}
