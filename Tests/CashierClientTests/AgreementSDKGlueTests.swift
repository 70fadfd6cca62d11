#if canImport(CashierClientPlatformCheck)
    import CashierClient
    import CashierClientPlatformCheck
    import CashierWire
    import Foundation
    import PassKit
    import Testing
    import WechatOpenSDK

    /// The agreement launchers' SDK glue, compiled on Linux against the SDK declarations
    /// (Tests/PlatformStubs) and driven as WeChat and PassKit drive them; each in the serialized
    /// suite that owns its SDK's test hook. The backend is ``AgreementClientTests/Backend``: its
    /// word decides, never the wallet's.
    extension WalletSDKGlueTests {
        @Test func weChatSignsThroughTheSDKsBusinessPageAndTheBackendDecides() async throws {
            let opened = PassKitGlueTests.Log()
            WXApi.onSend = { request in
                guard let page = request as? WXOpenBusinessWebViewReq, page.businessType == 12,
                    let id = page.queryInfoDic?["pre_entrustweb_id"] as? String
                else { return false }
                opened.add(id)
                Task {
                    // The payer signs in WeChat; WeChat reopens the app and the SDK calls onResp.
                    let answer = WXOpenBusinessWebViewResp()
                    answer.businessType = 12
                    answer.errCode = 0
                    WeChatResults.shared.onResp(answer)
                }
                return true
            }
            defer { WXApi.onSend = nil }
            let agreement = try AgreementClientTests.agreement()
            let backend = AgreementClientTests.Backend([.status("pending"), .status("active")])
            let result = try await backend.flow(TestClock()).sign(agreement, launcher: WeChatAgreementLauncher())
            #expect(result == .active(try AgreementClientTests.agreement("active", launch: nil)) && backend.calls == 2)
            #expect(opened.all == ["5778aadY9nltAsZzXixCkFIGYnV2V"])

            // WeChat is not installed: a failure the app can show, not a hang.
            WXApi.onSend = nil
            let launch = try #require(agreement.launch)
            let missing = try await WeChatAgreementLauncher().launch(launch, for: agreement)
            #expect(missing == .wechat(errCode: -3, errStr: "WeChat could not be opened: is it installed?"))
            let page = await AgreementClientTests.refusal {
                _ = try await WeChatAgreementLauncher().launch(.url(URL(string: "https://example.com")!), for: agreement)
            }
            #expect(page?.code == "invalid_method")
        }
    }

    extension PassKitGlueTests {
        @Test func anApplePayAgreementsTokenGoesToTheBackendWhileTheSheetWaits() async throws {
            let request = try JSONDecoder().decode(JSONValue.self, from: Data(AgreementClientTests.applePayRequest.utf8))
            let agreement = try AgreementClientTests.agreement(launch: .init(kind: "applepay", payment_request: request))
            let played = Log()
            PKPaymentAuthorizationController.presenter = { controller in
                Task {
                    guard let delegate = controller.delegate else { return }
                    played.add(controller.paymentRequest.recurringPaymentRequest?.paymentDescription ?? "none")
                    let payment = PKPayment()
                    payment.token.paymentData = Data(#"{"version":"EC_v1"}"#.utf8)
                    payment.token.transactionIdentifier = "T1"
                    let result = await Self.ask {
                        delegate.paymentAuthorizationController(controller, didAuthorizePayment: payment, handler: $0)
                    }
                    played.add("authorised \(result.status)")
                    delegate.paymentAuthorizationControllerDidFinish(controller)
                }
                return true
            }
            defer { PKPaymentAuthorizationController.presenter = nil }
            let sent = Log()
            let taken = ApplePayAgreementLauncher { id, token in sent.add(id + " " + String(decoding: token, as: UTF8.self)) }
            let backend = AgreementClientTests.Backend([.status("active")])
            let result = try await backend.flow(TestClock()).sign(agreement, launcher: taken)
            #expect(result == .active(try AgreementClientTests.agreement("active", launch: nil)))
            #expect(played.all == ["会员月卡", "authorised success"])
            let token = try #require(sent.all.first)
            #expect(token.hasPrefix(agreement.id + " {") && token.contains(#""transactionIdentifier":"T1""#))

            // The backend refused the token: the sheet fails, and the server — still pending — is asked all the same.
            let refusing = ApplePayAgreementLauncher { _, _ in throw CashierClientError(code: "card_declined", message: "declined") }
            let pending = try await AgreementClientTests.Backend([.status("pending")]).flow(TestClock())
                .sign(agreement, launcher: refusing, timeout: .seconds(1))
            #expect(played.all == ["会员月卡", "authorised success", "会员月卡", "authorised failure"])
            guard case .pending(_, let wallet) = pending, case .applePayCompleted(let answer) = wallet else {
                Issue.record("\(pending)")
                return
            }
            #expect(answer.status == 1)
        }
    }
#endif
