import Cashier
import CashierHTTP
import CashierStore

/// `/v1/complaints`: payers' complaints about payments (WeChat Pay's 消费者投诉 2.0), by deadline —
/// read them, upload images, answer, complete, and decide on a refund asked for (approving
/// refunds through the ordinary, reserved refund of the payment). Secret key only; a merchant's
/// own key sees and answers its own complaints (another's is a 404).
struct ComplaintsController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let backend = routes.add(middleware.secretKey)
        let complaints = ledger.complaints
        backend.get("/v1/complaints", name: "list_complaints") { request, context in
            let offset = try APIMiddleware.offset(request)
            return .json(
                try await complaints.list(
                    caller: context.caller, state: request.queryValue("state"), limit: try APIMiddleware.limit(request), offset: offset
                ))
        }
        backend.get("/v1/complaints/{id}", name: "get_complaint") { _, context in
            .json(try await complaints.view(context.parameters["id"], caller: context.caller))
        }
        backend.get("/v1/complaints/{id}/images/{index}", name: "complaint_image") { _, context in
            let image = try await complaints.image(context.parameters["id"], index: context.parameters["index"], caller: context.caller)
            return HTTPServerResponse(
                status: 200, headers: ["Content-Type": image.contentType, "Cache-Control": "private, max-age=300"], body: image.bytes)
        }
        backend.post("/v1/complaints/{id}/images", name: "upload_complaint_image") { request, context in
            let body = try request.decode(ComplaintImageBody.self, expected: #"{"filename":"receipt.png","data":"<base64>"}"#)
            return .json(try await complaints.uploadImage(context.parameters["id"], body, caller: context.caller), status: 201)
        }
        backend.post("/v1/complaints/{id}/responses", name: "respond_to_complaint") { request, context in
            let body = try request.decode(
                ComplaintReplyBody.self,
                expected: #"{"text":"…","images":["<media_id>"],"link_url":"https://…","link_text":"…"} (images and the link optional)"#)
            return .json(try await complaints.respond(context.parameters["id"], body, caller: context.caller))
        }
        backend.post("/v1/complaints/{id}/complete", name: "complete_complaint") { _, context in
            .json(try await complaints.complete(context.parameters["id"], caller: context.caller))
        }
        backend.post("/v1/complaints/{id}/refund", name: "decide_complaint_refund") { request, context in
            let body = try request.decode(
                ComplaintRefundBody.self,
                expected: #"{"decision":"approve"} (optionally "amount" or "amount_minor") or {"decision":"reject","reason":"…"}"#)
            return .json(try await complaints.decideRefund(context.parameters["id"], body, caller: context.caller, actor: context.actor))
        }
    }
}
