import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// WeChat Pay v3 platform certificates on the server: downloaded when it starts (so a
/// notification after a restart verifies without waiting for an outbound call), and on an
/// unknown serial — once a minute at most, however many messages name one.
@Suite struct PlatformCertificateTests {
    /// Counts the certificate downloads that pass through.
    final class CountingTransport: HTTPTransport {
        let base = ServerFixture.transport
        let downloads = Atomic<Int>(0)
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.path.hasSuffix("/v3/certificates") { downloads.add(1, ordering: .relaxed) }
            return try await base.send(request)
        }
        var count: Int { downloads.load(ordering: .relaxed) }
    }

    @Test func certificatesAreDownloadedWhenTheServerStarts() async throws {
        let counting = CountingTransport()
        let keys = WeChatPay.V3.PlatformKeys()
        let fixture = try await ServerFixture {
            $0.wechatV3?.platformKeys = keys
            $0.wechatV3?.transport = counting
        }
        let serial = fixture.sandbox.wechatV3.platformCertificate.serialNumberHex.uppercased()
        #expect(await eventually { keys.serials == [serial] })
        #expect(counting.count == 1)
        await fixture.stop()
    }

    @Test func anUnknownSerialDownloadsOnceAMinute() async throws {
        let counting = CountingTransport()
        let keys = WeChatPay.V3.PlatformKeys()
        let fixture = try await ServerFixture {
            $0.wechatV3?.platformKeys = keys
            $0.wechatV3?.transport = counting
            $0.wechatV3?.downloadsPlatformCertificates = false  // nothing at start: the notification must fetch them
            // Nor does the complaint job read complaints (their answers are signed: it would fetch them at start).
            $0.wechatV3?.pollsComplaints = false
            $0.wechatV3?.registersComplaintNotifyURL = false
        }
        let v3 = try #require(fixture.mode.configuration.wechatV3)
        // A trade the server never placed, paid: its notification verifies (then is refused as unknown: 400, not 401).
        let outside = WeChatPay.V3.Client(
            merchant: v3.merchant, keys: WeChatPay.V3.PlatformKeys(), transport: ServerFixture.transport, baseURL: v3.baseURL)
        let number = "CERT\(Int(Date().timeIntervalSince1970))"
        _ = try await outside.prepay(
            .native, appID: v3.appID, description: "certificates", outTradeNo: number, total: Money(minorUnits: 100, currency: .cny),
            notifyURL: fixture.server.baseURL.absoluteString + "/notify/wechat/v3")
        #expect(keys.serials.isEmpty && counting.count == 0)
        await fixture.sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
        // The first answer (under a loaded suite a delivery can time out first; WeChat then tries again).
        #expect(await eventually { await fixture.sandbox.delivery.attempts(for: number).contains { $0.status != nil } })
        #expect(await fixture.sandbox.delivery.attempts(for: number).first { $0.status != nil }?.status == 400)
        #expect(counting.count == 1 && !keys.serials.isEmpty)

        // Forged serials at once: all refused, and no further download within the minute.
        let notify = URL(string: fixture.server.baseURL.absoluteString + "/notify/wechat/v3")!
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    let headers: HTTPHeaders = [
                        "Wechatpay-Serial": "5157F09EFDC096DE15EBE81A47057A72\(index)",
                        "Wechatpay-Timestamp": String(Int(Date().timeIntervalSince1970)),
                        "Wechatpay-Nonce": "n\(index)", "Wechatpay-Signature": "AAAA", "Content-Type": "application/json",
                    ]
                    return try await ServerFixture.transport.send(
                        HTTPRequest(method: "POST", url: notify, headers: headers, body: Data("{}".utf8))
                    )
                    .status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(counting.count == 1)
        await fixture.stop()
    }
}
