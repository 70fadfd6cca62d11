import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// What the server promises outside itself, frozen byte for byte before the server was
/// restructured and unchanged by it: the OpenAPI document, the route table, the errors it
/// answers, the `Idempotency-Key` scopes and the keys it sends processors (a retry sent across an
/// upgrade must find the first request's reservation, and a processor must see the same key, or
/// money moves twice). `CASHIER_UPDATE_GOLDENS=1` writes them again, on purpose only.
@Suite struct GoldenTests {
    @Test func theOpenAPIDocumentIsFrozen() throws {
        let production = String(decoding: try MerchantServer.openAPIDocument(sandbox: false), as: UTF8.self)
        let sandbox = String(decoding: try MerchantServer.openAPIDocument(sandbox: true), as: UTF8.self)
        #expect(Golden.mismatch(production, "openapi.json") == nil)
        #expect(Golden.mismatch(sandbox, "openapi.sandbox.json") == nil)
    }

    /// Every route as `METHOD pattern`, sorted (what is served, whatever order it is registered in).
    @Test func theRouteTableIsFrozen() async throws {
        for helpers in [false, true] {
            let fixture = try await ServerFixture(sandboxHelpers: helpers)
            let table = fixture.server.routeTable.map { "\($0.method) \($0.pattern)" }.sorted().joined(separator: "\n") + "\n"
            await fixture.stop()
            #expect(Golden.mismatch(table, helpers ? "routes.sandbox.txt" : "routes.txt") == nil)
        }
    }

    /// The errors the server answers: each (status, code) it writes, found in its source, and what
    /// each kind of error thrown inside a handler is answered with.
    @Test func theErrorTableIsFrozen() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
        let pattern = try NSRegularExpression(pattern: #"status: ([0-9]{3}), code: "([a-z_]+)""#)
        var pairs = Set<String>()
        for folder in ["CashierServer", "CashierHTTP", "CashierSandboxMode"] {
            let root = sources.appendingPathComponent(folder)
            for case let file as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) ?? .init()
            where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    pairs.insert("\(text[Range(match.range(at: 1), in: text)!]) \(text[Range(match.range(at: 2), in: text)!])")
                }
            }
        }
        var table = "# (status, code) pairs the server writes\n" + pairs.sorted().joined(separator: "\n") + "\n\n# thrown → answered\n"
        let thrown: [(String, any Error)] = [
            ("RequestProblem", RequestProblem("x")), ("RequestProblem.forbidden", RequestProblem.forbidden("x")),
            ("RequestProblem.unprocessable", RequestProblem.unprocessable("x")),
            ("PaymentError.signatureMismatch", PaymentError(.signatureMismatch, "x")),
            ("PaymentError.merchantMismatch", PaymentError(.merchantMismatch, "x")),
            ("PaymentError.amountMismatch", PaymentError(.amountMismatch, "x")),
            ("PaymentError.currencyMismatch", PaymentError(.currencyMismatch, "x")),
            ("PaymentError.malformedMessage", PaymentError(.malformedMessage, "x")),
            ("PaymentError.replayed", PaymentError(.replayed, "x")),
            ("PaymentError.unknownKey", PaymentError(.unknownKey, "x")),
            ("PaymentError.decryptionFailure", PaymentError(.decryptionFailure, "x")),
            ("PaymentError.providerRejected", PaymentError(.providerRejected, "x")),
            ("PaymentError.transport", PaymentError(.transport, "x")),
            ("PaymentError.invalidRequest", PaymentError(.invalidRequest, "x")),
            ("PaymentError.invalidConfiguration", PaymentError(.invalidConfiguration, "x")),
            ("StoreError.unavailable", StoreError(.unavailable, "x")), ("StoreError.conflict", StoreError(.conflict, "x")),
            ("StoreError.busy", StoreError(.busy, "x")), ("StoreError.notFound", StoreError(.notFound, "x")),
            ("StoreError.illegalTransition", StoreError(.illegalTransition, "x")),
            ("StoreError.limitExceeded", StoreError(.limitExceeded, "x")),
            ("StoreError.inProgress", StoreError(.inProgress, "x")), ("StoreError.failed", StoreError(.failed, "x")),
            ("CocoaError", CocoaError(.fileNoSuchFile)),
        ]
        for (name, error) in thrown {
            let response = ErrorMapping<APIContext>.response(for: error)
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            let code = (object?["error"] as? [String: Any])?["code"] as? String ?? "?"
            table += "\(name) → \(response.status) \(code)\n"
        }
        #expect(Golden.mismatch(table, "errors.txt") == nil)
    }

    /// The `Idempotency-Key` scopes as the store keeps them, the refund number an `Idempotency-Key`
    /// gives, and the idempotency keys the processor is sent for each operation — with the ids
    /// this run made named by what they are.
    @Test func idempotencyScopesAndProcessorKeysAreFrozen() async throws {
        let catalog = try Catalog(json: Data(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"50.00"}}}"#.utf8))
        let world = try await MoneyWorld(.sqlite) {
            $0.applePay?.capture = .manual
            $0.catalog = catalog
        }
        var names: [(id: String, name: String)] = []
        func created(_ key: String, as name: String) async throws -> String {
            let answer = try await world.call(
                "POST", "/v1/orders", headers: ["Idempotency-Key": key],
                json: ["items": [["label": "Latte", "amount": "50.00"]], "currency": "CNY", "description": "Latte"])
            try #require(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
            let id = try #require(answer.object["id"] as? String)
            names.append((id, name))
            return id
        }
        func held(_ name: String, key: String) async throws -> String {
            let id = try await created(key, as: name)
            _ = try await world.start(id, "applepay")
            let answer = try await world.authorize(id, token: try await world.token(for: id))
            try #require(answer.status == 200, "\(answer.object)")
            return id
        }
        // The app's publishable key takes no Idempotency-Key (issue 58: every payer holds it): refused, nothing reserved.
        let refusedPK = try await world.call(
            "POST", "/v1/orders", key: world.keys.publishable, headers: ["Idempotency-Key": "golden-order-pk"],
            json: ["items": [["sku": "latte"]]])
        #expect(refusedPK.status == 422)
        let captured = try await held("ORDER_CAPTURED", key: "golden-order-captured")
        let voided = try await held("ORDER_VOIDED", key: "golden-order-voided")
        let refunded = try await held("ORDER_REFUNDED", key: "golden-order-refunded")
        #expect(
            try await world.call(
                "POST", "/v1/orders/\(captured)/capture", headers: ["Idempotency-Key": "golden-capture"], json: ["amount": "30.00"]
            )
            .status == 200)
        #expect(
            try await world.call("POST", "/v1/orders/\(voided)/void", headers: ["Idempotency-Key": "golden-void"], json: [:]).status == 200)
        #expect(try await world.call("POST", "/v1/orders/\(refunded)/capture", json: [:]).status == 200)
        let refund = try await world.call(
            "POST", "/v1/orders/\(refunded)/refunds", headers: ["Idempotency-Key": "golden-refund"], json: ["amount": "5.00"])
        #expect(refund.status == 200, "\(refund.object)")
        // The ids this run made, named.
        for (id, name) in names {
            for (index, payment) in try await world.store.payments(orderID: id).enumerated() {
                names.append((payment.id, "\(name)_PAYMENT\(index + 1)"))
                for refund in try await world.store.refunds(orderID: id) where refund.paymentID == payment.id {
                    let derived = "R" + Hex.encode(DigestAlgorithm.sha256.hash(id + "\n" + "golden-refund")).prefix(31)
                    names.append(
                        (
                            refund.outRefundNo,
                            refund.outRefundNo == derived
                                ? "R(sha256(\(name)+newline+golden-refund))" : "\(name)_REFUND(\(refund.reason ?? ""))"
                        ))
                }
            }
        }
        func named(_ text: String) -> String {
            names.sorted { $0.id.count > $1.id.count }.reduce(text) { $0.replacingOccurrences(of: $1.id, with: $1.name) }
        }
        let path = try #require(world.databasePath)
        let keys = try await runSubprocess("/usr/bin/sqlite3", [path, "SELECT key FROM idempotency_keys ORDER BY key"])
        try #require(keys.status == 0, "\(keys.stderr)")
        let text =
            "# Idempotency-Key reservations as stored\n" + named(keys.stdout).split(separator: "\n").sorted().joined(separator: "\n")
            + "\n\n# keys sent to the processor\n" + world.processor.keys.withLock { $0 }.map(named).sorted().joined(separator: "\n") + "\n"
        await world.stop()
        #expect(Golden.mismatch(text, "idempotency.txt") == nil)
    }
}
