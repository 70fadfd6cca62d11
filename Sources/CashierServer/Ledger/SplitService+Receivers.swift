import Cashier
import CashierStore
import CashierWire
import Foundation

/// Receivers: added at the provider first (their real name sent encrypted, never kept), then
/// recorded; splits name them by id.
extension SplitService {
    /// The receiver types each provider takes.
    static let receiverTypes: [PaymentProvider: Set<String>] = [
        .wechatV3: ["MERCHANT_ID", "PERSONAL_OPENID", "PERSONAL_SUB_OPENID"], .alipay: ["userId", "loginName", "openId"],
    ]
    /// WeChat Pay's `relation_type`s.
    static let relationTypes: Set<String> = [
        "SERVICE_PROVIDER", "STORE", "STAFF", "STORE_OWNER", "PARTNER", "HEADQUARTER", "BRAND", "DISTRIBUTOR", "USER", "SUPPLIER", "CUSTOM",
    ]

    /// Adds a receiver at the provider and records it. - Returns: the receiver, and whether it is new.
    /// - Throws: 409 `unsupported` (provider not configured, or a sub-merchant's key), 400/422 saying
    ///   what to fix, 502 `provider_error` when the provider refused.
    func addReceiver(_ body: ReceiverBody, caller: Identity) async throws -> (ReceiverJSON, created: Bool) {
        guard caller.merchant == nil else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "profit sharing for a service provider's sub-merchants is not supported yet: add receivers with the "
                    + "platform's secret key")
        }
        guard let provider = Self.providers[body.provider] else {
            throw RequestProblem.unprocessable("provider must be \"wechat\" or \"alipay\"")
        }
        guard let adapter = ledger.adapters.splitting(provider) else {
            throw APIError(
                status: 409, code: "unsupported",
                message: provider == .alipay
                    ? "Alipay is not configured on this server" : "WeChat Pay API v3 is not configured on this server")
        }
        let types = Self.receiverTypes[provider] ?? []
        guard types.contains(body.type) else {
            throw RequestProblem.unprocessable("type must be one of \(types.sorted().joined(separator: ", ")) for \(body.provider)")
        }
        guard !body.account.isEmpty, body.account.utf8.count <= 64 else { throw RequestProblem("account must be 1 to 64 bytes") }
        if body.type == "userId",
            !(body.account.utf8.count == 16 && body.account.hasPrefix("2088") && body.account.allSatisfy({ $0.isASCII && $0.isNumber }))
        {
            throw RequestProblem.unprocessable("an Alipay userId is 16 digits starting 2088")
        }
        if body.type == "MERCHANT_ID",
            !(body.account.allSatisfy({ $0.isASCII && $0.isNumber }) && (8...12).contains(body.account.utf8.count))
        {
            throw RequestProblem.unprocessable("a MERCHANT_ID account is the receiver's WeChat Pay merchant id: 8 to 12 digits")
        }
        let relation = body.relation_type ?? "PARTNER"
        guard Self.relationTypes.contains(relation) else {
            throw RequestProblem.unprocessable("relation_type must be one of \(Self.relationTypes.sorted().joined(separator: ", "))")
        }
        if let custom = body.custom_relation, !(1...10).contains(custom.unicodeScalars.count) {
            throw RequestProblem("custom_relation must be 1 to 10 characters")
        }
        if relation == "CUSTOM", body.custom_relation == nil {
            throw RequestProblem.unprocessable("custom_relation (1 to 10 characters) is required when relation_type is CUSTOM")
        }
        let name = body.name.flatMap { $0.isEmpty ? nil : $0 }
        // RSA-OAEP with a 2048-bit key takes at most 214 bytes: 64 characters of any script fit.
        guard (name?.unicodeScalars.count ?? 0) <= 64 else { throw RequestProblem("name must be at most 64 characters") }
        if provider == .wechatV3, body.type == "MERCHANT_ID", name == nil {
            throw RequestProblem.unprocessable("name (the merchant's full registered name) is required for a MERCHANT_ID receiver")
        }
        if provider == .alipay, body.type == "loginName", name == nil {
            throw RequestProblem.unprocessable("name (the account holder's real name) is required for an Alipay loginName receiver")
        }
        let now = clock.now()
        let receiver = StoredReceiver(
            id: "rcv_" + RandomText.alphanumeric(count: 24), merchant: caller.merchant, provider: provider.rawValue, type: body.type,
            account: body.account, relationType: relation, customRelation: relation == "CUSTOM" ? body.custom_relation : nil,
            status: .active, createdAt: now, updatedAt: now)
        do {
            try await adapter.addReceiver(receiver, name: name)
        } catch let error as PaymentError where error.code == .providerRejected {
            // A refusal of the request's own fields is the caller's to fix (422); anything else is the provider's (502).
            let fields = ["PARAM_ERROR", "INVALID_REQUEST", "ACQ.INVALID_PARAMETER"].contains(error.providerCode ?? "")
            throw APIError(
                status: fields ? 422 : 502, code: fields ? "invalid_request" : "provider_error",
                message:
                    "the provider refused receiver \(body.account): \(error.providerCode ?? "") \(error.providerMessage ?? error.message)")
        }
        let (saved, created) = try await store.saveReceiver(receiver, now: now)
        return (ReceiverJSON(saved), created)
    }

    /// Receiver `id` when these credentials may see it, else 404.
    func findReceiver(_ id: String, caller: Identity) async throws -> StoredReceiver {
        guard let receiver = try await store.receiver(id: id), receiver.merchant == caller.merchant || caller.merchant == nil else {
            throw APIError(status: 404, code: "not_found", message: "no receiver \(id) for these credentials")
        }
        return receiver
    }

    /// The receiver a share names (by id, or by type and account), active and at `provider`.
    /// - Throws: 400/422 saying what is wrong.
    func activeReceiver(_ share: SplitBody.Share, provider: PaymentProvider, caller: Identity) async throws -> StoredReceiver {
        let found: StoredReceiver?
        let id: String
        switch (share.receiver, share.type, share.account) {
        case (let named?, nil, nil):
            id = named
            found = try await store.receiver(id: named)
        case (nil, let type?, let account?):
            id = "\(type) \(account)"
            found = try await store.receiver(merchant: caller.merchant, provider: provider.rawValue, type: type, account: account)
        default: throw RequestProblem("each of receivers names a receiver: \"receiver\": \"rcv_…\", or \"type\" and \"account\"")
        }
        guard let receiver = found, receiver.merchant == caller.merchant || caller.merchant == nil else {
            throw RequestProblem.unprocessable("no receiver \(id): add it with POST /v1/receivers first")
        }
        guard receiver.status == .active else { throw RequestProblem.unprocessable("receiver \(id) was removed") }
        guard receiver.provider == provider.rawValue else {
            throw RequestProblem.unprocessable(
                "receiver \(id) is at \(ReceiverJSON.apiProvider(receiver.provider)); the order was paid elsewhere")
        }
        return receiver
    }

    func receivers(caller: Identity, limit: Int, offset: Int) async throws -> RecordPage<ReceiverJSON> {
        let found = try await store.receivers(merchant: caller.merchant, includingRemoved: false, limit: limit + 1, offset: offset)
        return RecordPage(fetched: found, limit: limit, ReceiverJSON.init)
    }

    /// Deletes receiver `id` at the provider, then here: splits can no longer name it.
    func removeReceiver(_ id: String, caller: Identity) async throws -> ReceiverJSON {
        let receiver = try await findReceiver(id, caller: caller)
        guard receiver.status == .active else { return ReceiverJSON(receiver) }
        guard let provider = PaymentProvider(rawValue: receiver.provider), let adapter = ledger.adapters.splitting(provider) else {
            throw APIError(status: 409, code: "unsupported", message: "\(receiver.provider) is not configured on this server")
        }
        do {
            try await adapter.removeReceiver(receiver)
        } catch let error as PaymentError where error.code == .providerRejected {
            throw APIError(
                status: 502, code: "provider_error",
                message:
                    "the provider would not delete receiver \(id): \(error.providerCode ?? "") \(error.providerMessage ?? error.message)")
        }
        return ReceiverJSON(try await store.removeReceiver(id, now: clock.now()))
    }
}
