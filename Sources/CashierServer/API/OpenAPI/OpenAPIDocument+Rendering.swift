import Cashier
import CashierHTTP
import CashierStore
import Foundation

extension OpenAPIDocument {
    /// This build's document as every server serves it at `GET /openapi.json` (and `cashier
    /// openapi` prints), written once per process: it depends only on the build and on whether
    /// the sandbox's test helpers are in it.
    static func served(sandbox: Bool) throws -> Data {
        try (sandbox ? servedWithSandbox : servedWithout).get()
    }
    private static let servedWithout = Result { try data(version: CashierVersion.current, sandbox: false) }
    private static let servedWithSandbox = Result { try data(version: CashierVersion.current, sandbox: true) }

    /// The document as JSON (keys sorted, so it is byte-for-byte repeatable).
    /// - Parameter sandbox: include what `cashier serve --sandbox` adds (``sandboxOperations``).
    static func data(version: String, sandbox: Bool = false) throws -> Data {
        var data = try JSONSerialization.data(
            withJSONObject: try object(version: version, sandbox: sandbox), options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// The document as a JSON object.
    static func object(version: String, sandbox: Bool = false) throws -> [String: Any] {
        let builder = JSONSchemaBuilder()
        let error = try builder.schema(example: HTTPErrorBody.self)
        var paths: [String: [String: Any]] = [:]
        for operation in operations + (sandbox ? sandboxOperations : []) {
            paths[operation.path, default: [:]][operation.method.lowercased()] = try render(operation, builder: builder, error: error)
        }
        let orderEvent = try builder.schema(example: WebhookEventJSON.self)
        let transferEvent = try builder.schema(example: TransferEventJSON.self)
        let splitEvent = try builder.schema(example: SplitEventJSON.self)
        let recurringEvent = try builder.schema(example: RecurringEventJSON.self)
        var webhooks: [String: Any] = [:]
        let events =
            WebhookEventJSON.types.map { ($0, orderEvent) } + TransferEventJSON.types.map { ($0, transferEvent) }
            + SplitEventJSON.types.map { ($0, splitEvent) } + RecurringEventJSON.types.map { ($0, recurringEvent) }
        for (type, event) in events {
            webhooks[type] = [
                "post": [
                    "operationId": "webhook_" + type.replacingOccurrences(of: ".", with: "_"), "summary": "The \(type) event.",
                    "requestBody": ["required": true, "content": ["application/json": ["schema": event]]],
                    "responses": ["2XX": ["description": "Received: any 2xx stops the retries (same Cashier-Event-Id on each)."]],
                ]
            ]
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Cashier merchant API", "version": version,
                "summary": "Orders, payments through WeChat Pay, Alipay and Apple Pay, refunds, books and webhooks.",
                "description": """
                Amounts are {"amount": "12.75", "amount_minor": 1275, "currency": "CNY"}: a decimal string and integer minor \
                units, never a float. Errors are {"error": {"code": …, "message": …}}: 400 when the request does not match this \
                document, 422 when it does but a rule across its fields (or the server's configuration) refuses it, 409 when \
                the order is not in a state for it. Create with an Idempotency-Key to retry safely.
                """,
                "license": ["name": "MIT", "identifier": "MIT"],
            ],
            "tags": [
                "server", "orders", "payments", "applepay", "refunds", "books", "webhooks", "complaints", "transfers", "splits",
                "recurring",
                "notifications",
                "sandbox",
            ].map {
                ["name": $0]
            },
            "paths": paths,
            "webhooks": webhooks,
            "components": [
                "schemas": builder.components.merging(sharedEnumerations) { built, _ in built },
                "securitySchemes": [
                    "secretKey": ["type": "http", "scheme": "bearer", "description": "sk_… — your backend only."],
                    "publishableKey": [
                        "type": "http", "scheme": "bearer", "description": "pk_… — the app, with the order's client_secret.",
                    ],
                    "clientSecret": [
                        "type": "apiKey", "in": "query", "name": "client_secret",
                        "description": "The order's client secret alone: its event stream.",
                    ],
                ],
            ],
        ]
    }

    private static func render(_ operation: Operation, builder: JSONSchemaBuilder, error: [String: Any]) throws -> [String: Any] {
        var entry: [String: Any] = ["operationId": operation.id, "summary": operation.summary, "tags": [operation.tag]]
        switch operation.access {
        case .secret: entry["security"] = [["secretKey": [String]()]]
        case .either: entry["security"] = [["secretKey": [String]()], ["publishableKey": [String]()]]
        case .clientSecret: entry["security"] = [["secretKey": [String]()], ["clientSecret": [String]()]]
        case .provider, .none: entry["security"] = [[String: [String]]]()
        }
        var parameters = operation.parameters.map { parameter -> [String: Any] in
            [
                "name": parameter.name, "in": parameter.location, "required": parameter.required, "schema": parameter.schema,
                "description": parameter.description,
            ]
        }
        for (name, schema, description) in pathParameters where operation.path.contains("{\(name)}") {
            parameters.insert(["name": name, "in": "path", "required": true, "schema": schema, "description": description], at: 0)
        }
        if operation.idempotent {
            parameters.append([
                "name": "Idempotency-Key", "in": "header", "required": false,
                "schema": [
                    "type": "string", "minLength": RequestBounds.idempotencyKeyLength.lowerBound,
                    "maxLength": RequestBounds.idempotencyKeyLength.upperBound, "pattern": "^[\\x21-\\x7e]+$",
                ],
                "description": "Retry safely: the same key and body get the same answer; another body with it gets 409.",
            ])
        }
        if !parameters.isEmpty { entry["parameters"] = parameters }
        switch operation.body {
        case .json(let type, let optional, let example)?:
            var media: [String: Any] = ["schema": try builder.schema(decoding: type)]
            if let example { media["example"] = example }
            entry["requestBody"] = ["required": !optional, "content": ["application/json": media]]
        case .provider(let contentType, let description, let fields)?:
            // JSON notifications are objects and a form is fields, each with what it always carries;
            // XML is text.
            var schema: [String: Any] = ["type": "string", "minLength": 1]
            if contentType.hasSuffix("urlencoded") || contentType == "application/json" {
                schema = ["type": "object"]
                if !fields.isEmpty {
                    schema["required"] = fields
                    if contentType.hasSuffix("urlencoded") {
                        schema["properties"] = Dictionary(uniqueKeysWithValues: fields.map { ($0, ["type": "string", "minLength": 1]) })
                    }
                }
            }
            entry["requestBody"] = ["required": true, "description": description, "content": [contentType: ["schema": schema]]]
        case nil: break
        }
        var responses: [String: Any] = [:]
        for response in operation.responses {
            var rendered: [String: Any] = ["description": response.description]
            switch response.content {
            case .json(let type):
                let example = try JSONSerialization.jsonObject(with: JSONEncoder().encode(type.schemaExample))
                rendered["content"] = ["application/json": ["schema": try builder.schema(example: type), "example": example]]
            case .anyObject(let description):
                rendered["content"] = ["application/json": ["schema": ["type": "object", "description": description]]]
            case .text(let contentType):
                rendered["content"] = [contentType: ["schema": ["type": "string"]]]
            case .eventStream(let event, let type):
                let data: [String: Any] = [
                    "type": "string", "contentMediaType": "application/json", "contentSchema": try builder.schema(example: type),
                ]
                rendered["content"] = [
                    "text/event-stream": [
                        "schema": [
                            "type": "object", "required": ["data"],
                            "properties": [
                                "event": ["const": event], "id": ["type": "string"], "retry": ["type": "integer"], "data": data,
                            ],
                        ]
                    ]
                ]
            case .empty: break
            }
            if !response.links.isEmpty { rendered["links"] = response.links }
            responses[response.status] = rendered
        }
        func add(_ status: String, _ description: String) {
            if responses[status] == nil {
                responses[status] = ["description": description, "content": ["application/json": ["schema": error]]]
            }
        }
        if operation.access != .provider {
            if operation.access != .none { add("401", "No key, a wrong key, or the publishable key where the secret key is needed.") }
            if operation.body != nil || !operation.parameters.isEmpty || operation.path.contains("{") {
                add("400", "The request does not match this document; the message names the field.")
                add("422", "The request matches this document, but a rule across its fields or the server's configuration refuses it.")
            }
            if operation.path.contains("{") { add("404", "No such order (or record) for these credentials.") }
            if operation.parameters.contains(where: { $0.name == "starting_after" }) {
                add("404", "starting_after names no record of this list for these credentials: pass the last id of the previous page.")
            }
            if operation.conflicts || operation.idempotent {
                add("409", "Not in a state for this, or the Idempotency-Key was used differently.")
            }
            if operation.callsProvider {
                add("502", "The provider refused.")
                add("503", "The provider did not answer (or calls to it are paused): nothing happened; retry later.")
            }
            if operation.id == "createOrder" { add("403", "The publishable key may only name catalog SKUs.") }
            // The routes the app calls with the publishable key to make the server act (MerchantAPI's payer routes).
            if operation.access == .either && operation.method == "POST" {
                add(
                    "429",
                    "Too many requests with the publishable key from this address (http.publishable_requests_per_minute): "
                        + "nothing was done; try again after Retry-After seconds.")
            }
            responses["default"] = [
                "description": "Anything else: the body is too large (413), the server is stopping or busy (503).",
                "content": ["application/json": ["schema": error]],
            ]
        }
        entry["responses"] = responses
        return entry
    }

    static var pathParameters: [(String, [String: Any], String)] {
        [
            (
                "id", ["type": "string", "minLength": 1],
                "The order's id (ord_…), the webhook's (evt_…), the complaint's (cmp_…), the transfer's (tr_…), the receiver's (rcv_…), or the split's (spl_…)."
            ),
            ("index", ["type": "string", "pattern": "^[0-9]{1,4}$"], "The image's number, from 0."),
            ("date", ["type": "string", "format": "date", "pattern": day], "The day, YYYY-MM-DD (Beijing time)."),
            ("file", ["type": "string", "enum": LedgerExport.allCases.map { $0.rawValue + ".csv" }], "Which records."),
            (
                "merchant", ["type": "string", "pattern": "^[a-z0-9_-]{1,32}$"],
                "The sub-merchant (one of the configuration's merchants) whose notifications these are."
            ),
        ]
    }
}
