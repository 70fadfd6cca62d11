import CashierCrypto
import CashierHTTP
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Issue 58, item 10 (the rest): nothing empty is a secret, and the secrets audit's files are the
/// owner's alone.
@Suite struct EmptySecretTests {
    /// A server left without a publishable key or a metrics token (empty strings, as a template's
    /// blank value would give): an empty bearer key opens neither. `ConstantTime.equals("", "")`
    /// was `true`, so `Authorization: Bearer ` was the app — and `/metrics`' token.
    @Test func anEmptyKeyIsNoKey() async throws {
        #expect(!ConstantTime.equals("", ""))
        #expect(!ConstantTime.equals([UInt8](), [UInt8]()))
        let fixture = try await ServerFixture {
            $0.publishableKey = ""
            $0.metricsAccess = .token("")
        }
        let id = try await fixture.createOrderID(amount: "2.00")
        let empty = ["Authorization": "Bearer "]
        let server = fixture.server
        #expect(await server.call("GET", "/metrics", headers: empty).status == 401)
        #expect(await server.call("GET", "/metrics").status == 401)
        #expect(
            await server.call(
                "POST", "/v1/applepay/sessions", headers: empty,
                json: ["validation_url": "https://apple-pay-gateway.apple.com/paymentservices/startSession"]
            ).status == 401)
        let started = await server.call(
            "POST", "/v1/orders/\(id)/payments", headers: empty, json: ["method": "wechat.native", "client_secret": ""])
        #expect(started.status == 401, "\(started.text)")
        #expect(try await fixture.store.payments(orderID: id).isEmpty)
        await fixture.stop()
    }

    /// `CASHIER_AUDIT_DIR`'s files hold the server's keys: made owner-only (0600), whatever the umask.
    @Test func theAuditFilesAreTheOwnersAlone() async throws {
        let folder = try Scratch.newFolder("audit-mode")
        let audit = SecretsAudit(folder: folder.path)
        audit.secret(["sk_live_secretvalue_0001"])
        audit.secretFromLogs(["ord_1_secret_abcdefgh"])
        audit.output("200 /v1/orders {}")
        audit.log(#"{"path":"/v1/orders"}"#)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 4, "\(files)")
        for file in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(file).path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            #expect(mode & 0o777 == 0o600, "\(file): \(String(mode, radix: 8))")
        }
    }
}
