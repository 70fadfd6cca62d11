/// `POST /v1/applepay/sessions`: the validation URL Apple Pay on the web handed the page.
struct SessionBody: Decodable, Sendable {
    let validation_url: String
}
