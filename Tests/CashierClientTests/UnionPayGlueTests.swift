#if canImport(CashierClientPlatformCheck)
    import CashierClient
    import CashierClientPlatformCheck
    import Foundation
    import PassKit
    import Synchronization
    import Testing
    import UPAPayPlugin
    import UPPaymentControl

    /// The UnionPay glue the README shows, compiled on Linux against declarations of UnionPay's
    /// plugins (Tests/PlatformStubs) and driven as the plugins drive it.
    @Suite(.serialized) struct UnionPayGlueTests {
        @Test func theApplePayPluginGetsTheTNModeAndMerchantIDAndItsResultComesBack() async throws {
            let controller = await UPAPayPlugin.testViewController()
            let seen = Mutex<[String]>([])
            let wallet = UnionPayApplePayWallet(merchantID: "merchant.com.example.shop") { controller }
            for (status, expected) in [
                (UPPaymentResultStatus.success, UnionPayResult.Status.success), (.failure, .failure), (.cancel, .cancel),
                (.unknownCancel, .unknownCancel),
            ] {
                UPAPayPlugin.onStartPay = { tn, mode, merchant in
                    seen.withLock { $0.append("\(tn) \(mode) \(merchant)") }
                    let result = UPPayResult()
                    result.paymentResultStatus = status
                    result.errorDescription = status == .failure ? "可用余额不足[1000051]" : nil
                    result.otherInfo = status == .success ? "currency=元&order_amt=20.00&pay_amt=15.00" : nil
                    return result
                }
                let result = try await wallet.pay(UnionPayPayment(tn: "758492451120261206143", mode: .test))
                #expect(result.status == expected)
                if status == .failure { #expect(result.errorDescription == "可用余额不足[1000051]") }
                if status == .success { #expect(result.otherInfo?.contains("pay_amt=15.00") == true) }
            }
            #expect(seen.withLock { $0 }.allSatisfy { $0 == "758492451120261206143 01 merchant.com.example.shop" })
            // The plugin cannot start (no Apple Pay, say): a failure the app can show, not a hang.
            UPAPayPlugin.onStartPay = nil
            #expect(try await wallet.pay(UnionPayPayment(tn: "1", mode: .production)).status == .failure)
            // No view controller to present from.
            let orphan = UnionPayApplePayWallet(merchantID: "merchant.x") { nil }
            #expect(try await orphan.pay(UnionPayPayment(tn: "1", mode: .production)).errorDescription?.contains("view controller") == true)
        }

        @Test func theCardControlsResultComesBackByURL() async throws {
            let controller = await UPAPayPlugin.testViewController()
            let wallet = UnionPayAppWallet(scheme: "shopunionpay") { controller }
            let started = Mutex<[String]>([])
            UPPaymentControl.onStartPay = { tn, scheme, mode in
                started.withLock { $0.append("\(tn) \(scheme) \(mode)") }
                // UnionPay reopens the app by URL; the app delegate hands it on.
                Task { _ = wallet.handleOpen(URL(string: "shopunionpay://uppayresult?code=success&data=%7B%7D")!) }
                return true
            }
            defer { UPPaymentControl.onStartPay = nil }
            #expect(try await wallet.pay(UnionPayPayment(tn: "758492451120261206143", mode: .production)).status == .success)
            #expect(started.withLock { $0 } == ["758492451120261206143 shopunionpay 00"])
            UPPaymentControl.onStartPay = { _, _, _ in
                Task { _ = wallet.handleOpen(URL(string: "shopunionpay://uppayresult?code=cancel")!) }
                return true
            }
            #expect(try await wallet.pay(UnionPayPayment(tn: "1", mode: .production)).status == .cancel)
            #expect(!wallet.handleOpen(URL(string: "shopunionpay://safepay/?x")!))
            UPPaymentControl.onStartPay = { _, _, _ in false }
            #expect(try await wallet.pay(UnionPayPayment(tn: "1", mode: .production)).status == .failure)
        }

        @Test func applePayNetworksAreAskedOfPassKit() {
            PKPaymentAuthorizationController.cardNetworks = [.visa]
            defer { PKPaymentAuthorizationController.cardNetworks = nil }
            #expect(PayerWallets.applePay().applePayNetworks == [] && PayerWallets.applePay().canPayWithChinaUnionPay == false)
            PKPaymentAuthorizationController.cardNetworks = [.chinaUnionPay, .visa]
            #expect(PayerWallets.applePay().applePayNetworks == ["ChinaUnionPay"])
            #expect(PayerWallets.applePay(networks: [.visa, .chinaUnionPay, .amex]).applePayNetworks == ["Visa", "ChinaUnionPay"])
            #expect(PayerWallets.applePay().applePayNetworks == ["ChinaUnionPay"])
        }
    }
#endif
