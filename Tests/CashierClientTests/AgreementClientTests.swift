import CashierClient
import CashierWire
import Foundation
import Synchronization
import Testing

/// The app's side of an agreement: the server's JSON read into ``Agreement`` with each kind of
/// launch, and ``AgreementFlow`` asking a scripted backend — never the wallet — how signing ended,
/// on a test clock (no real waits).
@Suite struct AgreementClientTests {
    /// The server's agreement as `POST /v1/agreements` writes it (CashierWire's own encoder).
    static func json(status: String = "pending", launch: AgreementLaunchJSON? = nil, endReason: String? = nil) throws -> Data {
        try JSONEncoder().encode(
            AgreementJSON(
                id: "agr_0000000000000000000001", provider: "wechat.v2", method: "wechat.app", status: status, external_no: "c20261207001",
                provider_agreement_id: status == "active" ? "200000001" : nil, plan_id: "12535", description: "会员月卡",
                period: .init(unit: "month", count: 1), single_limit: Amount(amount: "30.00", amount_minor: 3000, currency: "CNY"),
                provider_state: nil, end_reason: endReason, launch: launch, merchant: nil, created: 1_796_000_000, activated: nil,
                ended: nil)
        )
    }

    static func agreement(
        _ status: String = "pending",
        launch: AgreementLaunchJSON? = .init(kind: "wechat_pre_entrust", pre_entrustweb_id: "5778aadY9nltAsZzXixCkFIGYnV2V")
    )
        throws -> Agreement
    {
        try Agreement(json: json(status: status, launch: launch, endReason: status == "failed" ? "EXPIRED" : nil))
    }

    static let applePayRequest = #"""
        {"merchantIdentifier":"merchant.com.example","countryCode":"CN","currencyCode":"CNY","supportedNetworks":["visa","chinaUnionPay"],
         "merchantCapabilities":["supports3DS"],"total":{"label":"Example","amount":"30.00"},
         "recurringPaymentRequest":{"paymentDescription":"会员月卡","managementURL":"https://example.com/manage",
           "regularBilling":{"label":"Monthly","amount":"30.00","recurringPaymentIntervalUnit":"month","recurringPaymentIntervalCount":1}}}
        """#

    /// The client error `body` throws; `nil` when it throws none (another error is recorded).
    static func refusal(_ body: () async throws -> Void) async -> CashierClientError? {
        do {
            try await body()
            return nil
        } catch {
            if let error = error as? CashierClientError { return error }
            Issue.record("not a CashierClientError: \(error)")
            return nil
        }
    }

    @Test func theServersAgreementIsReadWithEveryKindOfLaunch() throws {
        let wechat = try Self.agreement()
        #expect(wechat.id == "agr_0000000000000000000001" && wechat.status == .pending && wechat.provider == "wechat.v2")
        #expect(wechat.method == "wechat.app" && wechat.externalNo == "c20261207001" && wechat.providerAgreementID == nil)
        #expect(wechat.description == "会员月卡" && wechat.period.unit == .month && wechat.period.count == 1)
        #expect(wechat.singleLimit == "30.00" && wechat.singleLimitMinor == 3000 && wechat.currency == "CNY")
        #expect(wechat.created == Date(timeIntervalSince1970: 1_796_000_000))
        #expect(wechat.launch == .wechatPreEntrust(preEntrustWebID: "5778aadY9nltAsZzXixCkFIGYnV2V"))

        let page = try Self.agreement(launch: .init(kind: "url", url: "https://api.mch.weixin.qq.com/papay/entrustweb?appid=wx1&sign=AB"))
        #expect(page.launch == .url(URL(string: "https://api.mch.weixin.qq.com/papay/entrustweb?appid=wx1&sign=AB")!))

        let alipay = try Self.agreement(
            launch: .init(kind: "alipay_sign_string", sign_string: "app_id=2021&biz_content=%7B%7D&sign=a+b/c="))
        #expect(alipay.launch == .alipaySignString("app_id=2021&biz_content=%7B%7D&sign=a+b/c="))
        // Alipay's app opens it with the sign string encoded whole: '&', '=', '+', '/' and '%' escaped.
        let url = AgreementLaunch.alipaySignURL(signString: "app_id=2021&biz_content=%7B%7D&sign=a+b/c=")
        #expect(url.scheme == "alipays" && url.host == "platformapi")
        #expect(url.absoluteString.hasSuffix("sign_params=app_id%3D2021%26biz_content%3D%257B%257D%26sign%3Da%2Bb%2Fc%3D"))
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.first { $0.name == "sign_params" }?.value == "app_id=2021&biz_content=%7B%7D&sign=a+b/c=")
        #expect(items.first { $0.name == "appId" }?.value == "60000157")

        let request = try JSONDecoder().decode(JSONValue.self, from: Data(Self.applePayRequest.utf8))
        let applePay = try Self.agreement(launch: .init(kind: "applepay", payment_request: request))
        guard case .applePayRequest(let data) = applePay.launch else {
            Issue.record("\(String(describing: applePay.launch))")
            return
        }
        // The sheet's request, with its recurring billing, as the PassKit glue reads it.
        let sheet = try ApplePayPaymentRequest(json: data)
        guard case .recurring(let description, let regular, _, _, let management, _) = sheet.commitment else {
            Issue.record("\(String(describing: sheet.commitment))")
            return
        }
        #expect(description == "会员月卡" && regular.amount == "30.00" && regular.intervalUnit == "month")
        #expect(management.absoluteString == "https://example.com/manage" && sheet.total.amount == "30.00")

        // No launch once it is no longer pending; an unknown status reads as unknown.
        let active = try Self.agreement("active", launch: nil)
        #expect(active.status == .active && active.launch == nil && active.providerAgreementID == "200000001")
        #expect(try Self.agreement("suspended", launch: nil).status == .unknown)
    }

    @Test(arguments: [
        AgreementLaunchJSON(kind: "url", url: "not a url"), AgreementLaunchJSON(kind: "url"),
        AgreementLaunchJSON(kind: "wechat_pre_entrust"),
        AgreementLaunchJSON(kind: "alipay_sign_string", sign_string: ""), AgreementLaunchJSON(kind: "applepay"),
        AgreementLaunchJSON(kind: "wechat_scan", url: "https://example.com"),
    ])
    func aLaunchWithoutWhatItsKindNeedsIsRefused(launch: AgreementLaunchJSON) async throws {
        #expect(await Self.refusal { _ = try Agreement(json: Self.json(launch: launch)) }?.code == "invalid_response")
        #expect(await Self.refusal { _ = try Agreement(json: Data(#"{"id":"agr_1"}"#.utf8)) }?.code == "invalid_response")
    }

    /// Your backend, scripted: each call answers the next status (the last one again once they
    /// run out), or throws; it counts the calls.
    final class Backend: Sendable {
        enum Answer: Sendable {
            case status(String)
            case error(CashierClientError)
        }
        private let state: Mutex<(answers: [Answer], calls: Int, authorized: [Data])>

        init(_ answers: [Answer]) { state = Mutex((answers, 0, [])) }

        var calls: Int { state.withLock { $0.calls } }
        var authorized: [Data] { state.withLock { $0.authorized } }

        func refresh(_ id: String) throws -> Agreement {
            let answer = state.withLock { state in
                state.calls += 1
                return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
            }
            switch answer {
            case .status(let status): return try AgreementClientTests.agreement(status, launch: nil)
            case .error(let error): throw error
            }
        }

        func flow(_ clock: TestClock) -> AgreementFlow {
            AgreementFlow(
                clock: clock, refresh: { try self.refresh($0) },
                authorize: { _, token in self.state.withLock { $0.authorized.append(token) } })
        }
    }

    /// A wallet that says `outcome`, recording what it was handed.
    final class Wallet: AgreementLauncher {
        let outcome: WalletOutcome
        let launched = Mutex<[AgreementLaunch]>([])

        init(outcome: WalletOutcome) { self.outcome = outcome }

        func launch(_ launch: AgreementLaunch, for agreement: Agreement) async throws -> WalletOutcome {
            launched.withLock { $0.append(launch) }
            return outcome
        }
    }

    @Test func theWalletSayingSuccessWhileTheServerSaysPendingIsStillPending() async throws {
        let clock = TestClock()
        let backend = Backend([.status("pending")])
        let wallet = Wallet(outcome: .wechat(errCode: 0))
        let result = try await backend.flow(clock).sign(try Self.agreement(), launcher: wallet, timeout: .seconds(20))
        guard case .pending(let seen, let said) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(seen.status == .pending && said == .wechat(errCode: 0))
        #expect(wallet.launched.withLock { $0 } == [.wechatPreEntrust(preEntrustWebID: "5778aadY9nltAsZzXixCkFIGYnV2V")])
        // Asked until the deadline on the test's clock, the waits growing to 4 s: 0.5+1+2+4+4+4+4 = 19.5 s
        // of 20, then one more wait would pass it.
        #expect(clock.slept == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4), .seconds(4)])
        #expect(backend.calls == 8)
    }

    @Test(arguments: [("active", "active"), ("failed", "failed"), ("terminated", "terminated")])
    func theServersWordEndsIt(status: String, expected: String) async throws {
        let clock = TestClock()
        // Pending twice (the provider's notification not in yet), a network failure, then settled.
        let backend = Backend([
            .status("pending"), .status("pending"), .error(CashierClientError(code: "http_502", message: "bad gateway", httpStatus: 502)),
            .status(status),
        ])
        // The wallet said it failed: the server is asked all the same, and its word stands.
        let result = try await backend.flow(clock).sign(try Self.agreement(), launcher: Wallet(outcome: .wechat(errCode: -1)))
        let name =
            switch result {
            case .active: "active"
            case .failed: "failed"
            case .terminated: "terminated"
            case .cancelled: "cancelled"
            case .pending: "pending"
            }
        #expect(name == expected && result.agreement.status.rawValue == status)
        #expect(backend.calls == 4 && clock.slept == [.milliseconds(500), .seconds(1), .seconds(2)])
    }

    @Test func aCancelledWalletAsksNothingAndASettledAgreementIsNotLaunched() async throws {
        let clock = TestClock()
        let backend = Backend([.status("active")])
        let cancelled = try await backend.flow(clock).sign(try Self.agreement(), launcher: Wallet(outcome: .alipay(resultStatus: "6001")))
        #expect(cancelled == .cancelled(try Self.agreement()) && backend.calls == 0)

        let wallet = Wallet(outcome: .wechat(errCode: 0))
        let settled = try await backend.flow(clock).sign(try Self.agreement("active", launch: nil), launcher: wallet)
        #expect(settled == .active(try Self.agreement("active", launch: nil)) && wallet.launched.withLock { $0 }.isEmpty)
        let launchless = try Self.agreement(launch: nil)
        #expect(await Self.refusal { _ = try await backend.flow(clock).sign(launchless, launcher: wallet) }?.code == "invalid_state")
    }

    @Test func anApplePayTokenGoesToTheBackendBeforeTheServerIsAsked() async throws {
        let clock = TestClock()
        let backend = Backend([.status("active")])
        let token = Data(#"{"paymentData":{"version":"EC_v1"}}"#.utf8)
        let result = try await backend.flow(clock).finish(try Self.agreement(), after: .applePayAuthorized(paymentJSON: token))
        #expect(result == .active(try Self.agreement("active", launch: nil)) && backend.authorized == [token])
        // Without a way to the backend, a token is refused rather than dropped.
        let flow = AgreementFlow(clock: clock, refresh: { try backend.refresh($0) })
        let pending = try Self.agreement()
        #expect(
            await Self.refusal { _ = try await flow.finish(pending, after: .applePayAuthorized(paymentJSON: token)) }?.code
                == "invalid_state")
    }

    @Test func aBackendThatNeverAnswersTimesOutAndA404EndsAtOnce() async throws {
        let clock = TestClock()
        let down = Backend([.error(CashierClientError(code: "http_503", message: "down", httpStatus: 503))])
        let pending = try Self.agreement()
        let timeout = await Self.refusal { _ = try await down.flow(clock).confirm(pending, timeout: .seconds(5)) }
        #expect(timeout?.code == "confirmation_timeout" && timeout?.message.contains("down") == true)
        #expect(down.calls == 4 && clock.slept == [.milliseconds(500), .seconds(1), .seconds(2)])

        let gone = Backend([.error(CashierClientError(code: "not_found", message: "no agreement", httpStatus: 404))])
        #expect(await Self.refusal { _ = try await gone.flow(TestClock()).confirm(pending, timeout: .seconds(60)) }?.httpStatus == 404)
        #expect(gone.calls == 1)
    }

    @Test func thePageLauncherOpensPagesAndAlipaysSignString() async throws {
        let opened = Mutex<[URL]>([])
        let launcher = AgreementPageLauncher { url in
            opened.withLock { $0.append(url) }
            return url.scheme == "https"
        }
        let page = URL(string: "https://api.mch.weixin.qq.com/papay/entrustweb?sign=AB")!
        #expect(try await launcher.launch(.url(page), for: try Self.agreement()) == .qrCodeShown)
        // Not opened (no Alipay app): said, not hidden as a pending agreement.
        let pending = try Self.agreement()
        #expect(await Self.refusal { _ = try await launcher.launch(.alipaySignString("a=b"), for: pending) }?.code == "wallet_unavailable")
        #expect(opened.withLock { $0 } == [page, AgreementLaunch.alipaySignURL(signString: "a=b")])
        #expect(
            await Self.refusal { _ = try await launcher.launch(.wechatPreEntrust(preEntrustWebID: "x"), for: pending) }?.code
                == "invalid_method")
    }
}
